package agent

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/hub"
	"github.com/luagent/luagent/runtime/testkit"
)

// The loop over the npm reference server (server-everything): its echo
// is called by qualified name and the answer reaches the model; its
// resources are offered through the meta-tools.
func TestEverything(t *testing.T) {
	cmd, args := testkit.Everything(t)
	h := startHub(t, hub.Options{}, &catalog.Server{Name: "everything", Enabled: true, Command: cmd, Args: args, StartupTimeout: time.Minute})
	echo := tc("everything__echo", `{"message":"through the agent"}`)
	m := script(calls(echo), answer("ok"))
	if _, _, err := New(Config{Model: m, Hub: h, Yes: true}).Ask(context.Background(), "echo"); err != nil {
		t.Fatal(err)
	}
	reqs := m.requests()
	if got := toolNames(reqs[0]); !slices.Contains(got, "everything__echo") || !slices.Contains(got, ToolListResources) {
		t.Errorf("offered %v", got)
	}
	if r := toolMessage(t, reqs[1], echo.ID); r.IsError || !strings.Contains(partsText(r), "through the agent") {
		t.Errorf("echo result: %+v", r)
	}
}
