package agent

import (
	"context"
	"slices"
	"testing"

	"github.com/luagent/luagent/runtime/hub"
)

// ToolSearch: "always" defers even a few tools behind mcp_search_tools,
// "never" offers every tool however many, "auto" (the default) defers
// above the threshold.
func TestToolSearchModes(t *testing.T) {
	h := startHub(t, hub.Options{}, luaServer(t, "tools"))
	few, _ := h.Tools()
	if len(few) == 0 || len(few) > DefaultMetaToolThreshold {
		t.Fatalf("the tools server lists %d tools", len(few))
	}
	for _, c := range []struct {
		name      string
		mode      string
		threshold int
		search    bool
	}{
		{"default", "", 0, false},
		{"auto", ToolSearchAuto, 0, false},
		{"auto under a low threshold", ToolSearchAuto, 1, true},
		{"always", ToolSearchAlways, 0, true},
		{"always whatever the threshold", ToolSearchAlways, 1000, true},
		{"never", ToolSearchNever, 1, false},
		{"never, threshold < 0", "", -1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := script(answer("ok"))
			a := New(Config{Model: m, Hub: h, ToolSearch: c.mode, MetaToolThreshold: c.threshold})
			if _, _, err := a.Ask(context.Background(), "x"); err != nil {
				t.Fatal(err)
			}
			got := toolNames(m.requests()[0])
			if slices.Contains(got, ToolSearch) != c.search || slices.Contains(got, few[0].Name) == c.search {
				t.Errorf("offers %v; want search %v", got, c.search)
			}
		})
	}
	// Without hub tools there is nothing to search, even when "always".
	m := script(answer("ok"))
	New(Config{Model: m, ToolSearch: ToolSearchAlways}).Ask(context.Background(), "x")
	if got := toolNames(m.requests()[0]); slices.Contains(got, ToolSearch) {
		t.Errorf("no hub: offers %v", got)
	}
}
