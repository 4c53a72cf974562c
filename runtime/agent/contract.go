package agent

import (
	"fmt"
	"slices"
	"strings"

	"github.com/luagent/luagent/runtime/hub"
	"github.com/luagent/luagent/runtime/llm"
)

// contractNote says which of the MCP tools a turn offered changed or are
// gone by the time its calls ran: a server offered from its cached list
// (hub.Options.CacheDir) that lists its tools differently once started,
// or a list refreshed while the turn ran. "" when none did. The note goes
// with the turn's tool results, so the model hears it before it picks the
// next tools; the next request lists them as they are.
func (a *Agent) contractNote(ts *toolset) string {
	h := a.cfg.Hub
	if h == nil || ts == nil {
		return ""
	}
	var offered []hub.Tool
	for _, e := range ts.byName {
		if e.kind == KindMCP {
			offered = append(offered, e.hub)
		}
	}
	if len(offered) == 0 {
		return ""
	}
	var changed, removed []string
	for _, t := range offered {
		now, ok := h.Peek(t.Name)
		switch {
		case !ok:
			removed = append(removed, t.Name)
		case now.SchemaHash != t.SchemaHash:
			changed = append(changed, t.Name)
		}
	}
	if len(changed) == 0 && len(removed) == 0 {
		return ""
	}
	slices.Sort(changed)
	slices.Sort(removed)
	var parts []string
	if len(changed) > 0 {
		parts = append(parts, "changed: "+strings.Join(changed, ", "))
	}
	if len(removed) > 0 {
		parts = append(parts, "no longer available: "+strings.Join(removed, ", "))
	}
	return fmt.Sprintf("[note: MCP tools offered in this turn changed since they were listed (%s); calls made against the old definitions are refused. The next request lists the tools as they are now.]", strings.Join(parts, "; "))
}

// withContractNote adds the note to the last of a turn's tool results.
func withContractNote(results []llm.Message, note string) []llm.Message {
	if note == "" || len(results) == 0 {
		return results
	}
	last := &results[len(results)-1]
	last.Parts = append(slices.Clone(last.Parts), llm.Text(note))
	return results
}
