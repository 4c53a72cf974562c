package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/mcp"
	"github.com/luagent/luagent/runtime/trace"
)

// A traced server records each request it serves and its answer as one
// span (request_in, reply_sent), with the tool, the era, and the failure;
// the legacy handshake records the era.
func TestServerTracesRequests(t *testing.T) {
	rec := &trace.Recorder{}
	srv, url := registryServer(t, mcp.ServerOptions{Trace: rec})
	must(t, srv.AddTool(mcp.Tool{Name: "echo"}, func(c *mcp.ToolCall) { c.ReturnText("hi") }))
	must(t, srv.AddTool(mcp.Tool{Name: "fails"}, func(c *mcp.ToolCall) { c.Return(nil, errors.New("it broke")) }))
	eras(t, func(t *testing.T, era string) {
		c := dial(t, url, era, mcp.Options{})
		ctx := context.Background()
		if _, err := c.CallToolRaw(ctx, "echo", json.RawMessage(`{}`), mcp.CallOptions{}); err != nil {
			t.Fatal(err)
		}
		c.CallToolRaw(ctx, "fails", json.RawMessage(`{}`), mcp.CallOptions{})
		c.ReadResource(ctx, "nope://x")
	})
	in := map[string]trace.Event{}
	var replies []trace.Event
	eraSeen := false
	for _, e := range rec.Events() {
		switch e.Kind {
		case trace.RequestIn:
			in[e.Span] = e
		case trace.ReplySent:
			replies = append(replies, e)
		case trace.EraChosen:
			eraSeen = eraSeen || strings.HasPrefix(e.Message, "legacy")
		}
	}
	if !eraSeen {
		t.Error("no era_chosen for the legacy handshake")
	}
	got := map[string]int{}
	for _, r := range replies {
		q, ok := in[r.Span]
		if !ok || q.Method != r.Method || q.ID != r.ID || q.ID == "" {
			t.Fatalf("reply %+v has no matching request_in (%+v)", r, q)
		}
		era := strings.Fields(q.Message)[0]
		key := era + " " + r.Method + " " + r.Tool
		got[key]++
		switch {
		case r.Tool == "fails" && r.Error == "":
			t.Errorf("%s: the tool's isError is not recorded: %+v", key, r)
		case r.Method == "resources/read" && (r.Code == 0 || r.Error == ""):
			t.Errorf("%s: the JSON-RPC error is not recorded: %+v", key, r)
		case r.Tool == "echo" && (r.Error != "" || r.Duration <= 0):
			t.Errorf("%s: %+v", key, r)
		}
	}
	for _, want := range []string{"legacy tools/call echo", "legacy tools/call fails", "legacy resources/read ", "modern tools/call echo", "modern resources/read "} {
		if got[want] == 0 {
			t.Errorf("no traced %q; got %v", want, got)
		}
	}
}
