package chat

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/hub"
	"github.com/luagent/luagent/runtime/render"
)

// StatusLine sums up the servers: "3/5 servers ready, 1 connecting, 1
// needs auth" (disabled ones are not counted; "" when there are none).
func StatusLine(states []hub.State) string {
	count := map[hub.Status]int{}
	total := 0
	for _, st := range states {
		if st.Status == hub.Disabled {
			continue
		}
		count[st.Status]++
		total++
	}
	if total == 0 {
		return ""
	}
	noun := "servers"
	if total == 1 {
		noun = "server"
	}
	parts := []string{fmt.Sprintf("%d/%d %s ready", count[hub.Ready], total, noun)}
	for _, k := range []struct {
		st   hub.Status
		word string
	}{{hub.Connecting, "connecting"}, {hub.NeedsAuth, "needs auth"}, {hub.Failed, "failed"}, {hub.Stopped, "stopped"}} {
		if n := count[k.st]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, k.word))
		}
	}
	return strings.Join(parts, ", ")
}

// Settled says whether no server is connecting any more.
func Settled(states []hub.State) bool {
	for _, st := range states {
		if st.Status == hub.Connecting {
			return false
		}
	}
	return true
}

// MCPList is /mcp as plain text: one line per catalog server with its
// status word, transport, tool count and, for a failed one, its error.
// Env values never appear (nothing of the entry but its transport does).
func MCPList(states []hub.State, entries []*catalog.Server) string {
	if len(states) == 0 {
		return "no MCP servers in the catalog (luagent mcp add NAME -- COMMAND ARGS... adds one)\n"
	}
	transport := map[string]string{}
	for _, e := range entries {
		transport[e.Name] = e.Transport()
	}
	var b strings.Builder
	fmt.Fprintln(&b, StatusLine(states))
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSTATUS\tTRANSPORT\tTOOLS\t")
	for _, st := range states {
		tools := "-"
		if st.Status == hub.Ready {
			tools = fmt.Sprint(st.Tools)
		}
		tr := transport[st.Name]
		if tr == "" {
			tr = "-"
		}
		line := fmt.Sprintf("%s\t%s\t%s\t%s\t", st.Name, strings.ReplaceAll(string(st.Status), "_", " "), tr, tools)
		if st.Err != nil && (st.Status == hub.Failed || st.Status == hub.NeedsAuth) {
			line += render.OneLine(st.Err.Error(), 160)
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
	// The aligned columns pad the last one: no trailing blanks.
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}
