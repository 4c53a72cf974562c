package agent

import (
	"fmt"
	"strings"

	"github.com/luagent/luagent/runtime/hub"
)

// connectingNote is what an unknown tool's error adds while servers of
// the agent's are still connecting: their tools may be the one named.
func (a *Agent) connectingNote() string {
	h := a.cfg.Hub
	if h == nil {
		return ""
	}
	var names []string
	for _, st := range h.Status() {
		if st.Status == hub.Connecting && a.inSubset(st.Name) {
			names = append(names, st.Name)
		}
	}
	switch len(names) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf(" (yet: server %s is still connecting; its tools come when it is ready)", names[0])
	}
	return fmt.Sprintf(" (yet: servers %s are still connecting; their tools come when they are ready)", strings.Join(names, ", "))
}
