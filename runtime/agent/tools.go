package agent

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/luagent/luagent/runtime/hub"
	"github.com/luagent/luagent/runtime/llm"
	"github.com/luagent/luagent/runtime/skills"
)

// The meta-tools' names.
const (
	ToolSearch        = "mcp_search_tools"
	ToolListResources = "mcp_list_resources"
	ToolReadResource  = "mcp_read_resource"
)

var metaTools = map[string]llm.Tool{
	ToolSearch: {Name: ToolSearch,
		Description: "Search the connected MCP servers' tools by what they do. Returns matching tools with their names and input schemas; call a tool by its name in your next turn. partial: true means some servers are still starting (search again later for more).",
		Schema:      json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"words describing the tool you need"},"server":{"type":"string","description":"only this server's tools"},"limit":{"type":"integer","minimum":1,"maximum":50,"description":"at most this many tools (default 10)"}},"required":["query"]}`)},
	ToolListResources: {Name: ToolListResources,
		Description: "List the resources (files, documents, data) the connected MCP servers offer, with their URIs. Without server, lists every server that has resources.",
		Schema:      json.RawMessage(`{"type":"object","properties":{"server":{"type":"string","description":"only this server's resources"}}}`)},
	ToolReadResource: {Name: ToolReadResource,
		Description: "Read one resource of an MCP server by its URI (from mcp_list_resources).",
		Schema:      json.RawMessage(`{"type":"object","properties":{"server":{"type":"string"},"uri":{"type":"string"}},"required":["server","uri"]}`)},
}

var anyObject = json.RawMessage(`{"type":"object"}`)

// entry is one tool the model may call in a turn.
type entry struct {
	kind  string
	local *LocalTool
	hub   hub.Tool
	code  *toolset // run_lua's: what its snippets may call
}

// toolset is what one model turn offers.
type toolset struct {
	tools  []llm.Tool
	byName map[string]entry
	search bool          // meta mode: mcp_search_tools stands for the hub's tools
	skills []skills.Info // offered with the skill tools
	code   []CodeTool    // a snippet's tools (codeToolset's)
}

// servers is the subset of the hub's servers the agent uses (nil: all).
func (a *Agent) inSubset(server string) bool {
	return a.cfg.Servers == nil || slices.Contains(a.cfg.Servers, server)
}

// toolset builds the offered tools from the hub's current catalog.
func (a *Agent) toolset() *toolset {
	ts := &toolset{byName: map[string]entry{}}
	var hubTools []hub.Tool
	resources := false
	if h := a.cfg.Hub; h != nil {
		all, _ := h.Tools()
		for _, t := range all {
			if a.inSubset(t.Server) {
				hubTools = append(hubTools, t)
			}
		}
		for _, st := range h.Status() {
			// Ready and declaring resources, or offered from a cache that says so.
			if a.inSubset(st.Name) && h.OffersResources(st.Name) {
				resources = true
			}
		}
	}
	local := map[string]bool{}
	for i := range a.cfg.Tools {
		local[a.cfg.Tools[i].Name] = true
	}
	ts.search = !a.codeOnly() && a.deferTools(len(hubTools))
	if ts.search {
		ts.add(metaTools[ToolSearch], entry{kind: KindMeta})
	}
	if resources {
		ts.add(metaTools[ToolListResources], entry{kind: KindMeta})
		ts.add(metaTools[ToolReadResource], entry{kind: KindMeta})
	}
	if a.codeOn() {
		code := a.codeToolset(hubTools, local)
		ts.add(a.runLuaTool(code), entry{kind: KindCode, code: code})
	}
	if !a.codeOnly() {
		a.addDirect(ts, hubTools, local, func(name string) bool { return !ts.search || a.found[name] })
	}
	ts.addSkillTools(a.skillList())
	if a.results != nil && a.results.Len() > 0 { // a result was cut: the model may page it
		rt := a.readToolResultTool()
		ts.add(llm.Tool{Name: rt.Name, Description: rt.Description, Schema: rt.Schema}, entry{kind: KindMeta})
	}
	return ts
}

// deferTools reports whether mcp_search_tools stands for the hub's n
// tools (Config.ToolSearch, MetaToolThreshold).
func (a *Agent) deferTools(n int) bool {
	switch a.cfg.ToolSearch {
	case ToolSearchNever:
		return false
	case ToolSearchAlways:
		return n > 0
	}
	return a.cfg.MetaToolThreshold >= 0 && n+len(a.cfg.Tools) > a.cfg.MetaToolThreshold
}

// addDirect adds the hub's tools (those keep allows; nil: all) and the
// local tools, which shadow hub tools of the same name.
func (a *Agent) addDirect(ts *toolset, hubTools []hub.Tool, local map[string]bool, keep func(string) bool) {
	for _, t := range hubTools {
		if local[t.Name] || (keep != nil && !keep(t.Name)) {
			continue
		}
		lt := llmTool(t)
		if b := a.bound(t.Name, t.Def.Name); b != nil {
			lt.Schema = withoutArgs(lt.Schema, b)
		}
		ts.add(lt, entry{kind: KindMCP, hub: t})
	}
	for i := range a.cfg.Tools {
		t := &a.cfg.Tools[i]
		schema := t.Schema
		if len(schema) == 0 {
			schema = anyObject
		}
		if b := a.bound(t.Name, ""); b != nil {
			schema = withoutArgs(schema, b)
		}
		ts.add(llm.Tool{Name: t.Name, Description: t.Description, Schema: schema}, entry{kind: KindLocal, local: t})
	}
}

func (ts *toolset) add(t llm.Tool, e entry) {
	if _, dup := ts.byName[t.Name]; dup {
		return
	}
	ts.byName[t.Name] = e
	ts.tools = append(ts.tools, t)
}

func llmTool(t hub.Tool) llm.Tool {
	desc := t.Def.Description
	if desc == "" {
		desc = t.Def.Title
	}
	schema := t.Def.InputSchema
	if len(schema) == 0 {
		schema = anyObject
	}
	return llm.Tool{Name: t.Name, Description: desc, Schema: schema}
}

// resolve finds what the model called. A hub tool of the agent's servers
// that this turn did not offer (meta mode: named by a search in the same
// turn) is callable too, and counts as found.
func (a *Agent) resolve(ts *toolset, name string) (entry, error) {
	if e, ok := ts.byName[name]; ok {
		return e, nil
	}
	if h := a.cfg.Hub; h != nil && !strings.HasPrefix(name, "mcp_") {
		if t, ok := h.Tool(name); ok && a.inSubset(t.Server) {
			return entry{kind: KindMCP, hub: t}, nil
		}
	}
	if ts.search {
		return entry{}, fmt.Errorf("no tool %q is offered%s: find tools with %s and call them by the names it returns", name, a.connectingNote(), ToolSearch)
	}
	return entry{}, fmt.Errorf("no tool %q is offered%s", name, a.connectingNote())
}

// annotationsOf copies a hub tool's annotations.
func annotationsOf(t hub.Tool) *Annotations {
	an := t.Def.Annotations
	if an == nil {
		return nil
	}
	return &Annotations{Title: an.Title, ReadOnlyHint: an.ReadOnlyHint, DestructiveHint: an.DestructiveHint,
		IdempotentHint: an.IdempotentHint, OpenWorldHint: an.OpenWorldHint}
}
