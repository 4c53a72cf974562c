package agent

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/hub"
)

// A tool the model names while a server is still connecting: the error
// says which server is, so the model (and the person reading the tool
// line) knows its tools may come.
func TestUnknownToolNamesConnectingServers(t *testing.T) {
	h := hub.New([]*catalog.Server{{Name: "late", Enabled: true, Command: "sleep", Args: []string{"60"}, StartupTimeout: time.Minute}}, hub.Options{})
	t.Cleanup(func() { h.Close() })
	h.Start()
	bad := tc("late__build", `{}`)
	m := script(calls(bad), answer("ok"))
	New(Config{Model: m, Hub: h}).Ask(context.Background(), "build it")
	r := toolMessage(t, m.requests()[1], bad.ID)
	if !r.IsError || !strings.Contains(partsText(r), `no tool "late__build" is offered`) || !strings.Contains(partsText(r), "server late is still connecting") {
		t.Errorf("unknown tool while late connects: %q", partsText(r))
	}
}
