package agent

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/hub"
	"github.com/luagent/luagent/runtime/mcp"
	"github.com/luagent/luagent/runtime/testkit"
)

// breaksAfterRunning is a 2026-07-28 server with one tool, send, that
// runs (counted) and whose reply stream then breaks before the answer.
func breaksAfterRunning(t *testing.T) (string, *atomic.Int32) {
	var runs atomic.Int32
	s := testkit.ScriptedModern(t, "mail", func(w http.ResponseWriter, r testkit.ScriptedRequest) {
		switch r.Method {
		case "tools/list":
			testkit.ScriptedTools(w, r.ID, `{"name":"send","description":"Send an email","inputSchema":{"type":"object"}}`)
		case "tools/call":
			runs.Add(1)
			testkit.BreakStream(w)
		default:
			w.WriteHeader(400)
		}
	})
	mcp.ForgetEra()
	return s.URL, &runs
}

// A tool call whose answer was lost after it was sent (kind
// unknown_outcome) reaches the model as a result that says the call may
// have run and to inspect before retrying; it ran once.
func TestUnknownOutcomeToldToTheModel(t *testing.T) {
	url, runs := breaksAfterRunning(t)
	h := startHub(t, hub.Options{}, &catalog.Server{Name: "mail", Enabled: true, URL: url, RequestTimeout: 5 * time.Second})
	call := tc("mail__send", `{}`)
	m := script(calls(call), answer("ok"))
	_, tr, err := New(Config{Model: m, Hub: h, Yes: true}).Ask(context.Background(), "send it")
	if err != nil {
		t.Fatal(err)
	}
	reqs := m.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests", len(reqs))
	}
	msg := toolMessage(t, reqs[1], call.ID)
	text := partsText(msg)
	for _, want := range []string{"may have run", "inspect", "before retrying"} {
		if !msg.IsError || !strings.Contains(text, want) {
			t.Errorf("the model was told %q (error %v); want it to say %q", text, msg.IsError, want)
		}
	}
	if rec := tr.ToolCalls[0]; rec.ErrorKind != errs.UnknownOutcome.String() {
		t.Errorf("recorded kind %q", rec.ErrorKind)
	}
	if n := runs.Load(); n != 1 {
		t.Errorf("the tool ran %d times, want 1", n)
	}
}
