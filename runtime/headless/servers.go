package headless

import "github.com/luagent/luagent/runtime/hub"

// MCPServersOf is the init line's mcp_servers: the hub's servers that
// uses says the agent uses, in catalog order, with Claude Code's status
// words (connected, failed, needs-auth, pending, disabled). h may be nil.
func MCPServersOf(h *hub.Hub, uses func(string) bool) []MCPServer {
	out := []MCPServer{}
	if h == nil {
		return out
	}
	for _, st := range h.Status() {
		if uses != nil && !uses(st.Name) {
			continue
		}
		out = append(out, MCPServer{Name: st.Name, Status: statusWord(st.Status)})
	}
	return out
}

func statusWord(s hub.Status) string {
	switch s {
	case hub.Ready:
		return "connected"
	case hub.NeedsAuth:
		return "needs-auth"
	case hub.Connecting:
		return "pending"
	case hub.Disabled:
		return "disabled"
	}
	return "failed" // failed, stopped
}
