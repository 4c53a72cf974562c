package httpserver_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/luagent/luagent/runtime/mcp"
	"github.com/luagent/luagent/runtime/transport/httpserver"
)

// worker answers tools/call "who" with its number; "hold" says so on held,
// then waits until release is closed.
type worker struct {
	n       int
	release chan struct{}
	held    chan int
}

func (worker) Capabilities() mcp.HandlerCapabilities { return mcp.HandlerCapabilities{Tools: true} }

func text(s string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"content": []any{map[string]string{"type": "text", "text": s}}})
	return b
}

func (w worker) Handle(r *mcp.Request) {
	if r.Method != "tools/call" {
		r.Reply(json.RawMessage(`{"tools":[]}`))
		return
	}
	if strings.Contains(string(r.Params), `"hold"`) {
		w.held <- w.n
		go func() { <-w.release; r.Reply(text("held " + strconv.Itoa(w.n))) }()
		return
	}
	r.Reply(text("worker " + strconv.Itoa(w.n)))
}

func startPool(t *testing.T, n int) (*testServer, chan struct{}, chan int) {
	t.Helper()
	release := make(chan struct{})
	held := make(chan int, 1)
	var srvs []*mcp.Server
	for i := range n {
		srvs = append(srvs, mcp.NewServer(mcp.ServerOptions{Info: mcp.Implementation{Name: "pool", Version: "1"}, Handler: worker{i, release, held}}))
	}
	h := httpserver.NewPool(srvs, httpserver.Options{})
	ts := newTestServer(t, h)
	t.Cleanup(func() {
		h.Close()
		ts.Close()
		for _, s := range srvs {
			s.Close()
		}
	})
	return ts, release, held
}

func callTool(name string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":{},` + envelope + `}}`
}

// Modern requests go to the worker with the fewest in flight, the first
// among equals.
func TestPoolModernGoesToTheIdlestWorker(t *testing.T) {
	ts, release, heldOn := startPool(t, 2)
	held := make(chan reply, 1)
	go func() { held <- post(t, ts.URL, modernHeaders("tools/call", "hold"), callTool("hold")) }()
	busy := <-heldOn // the held call occupies its worker: calls now go to the other
	seen := map[string]int{}
	for range 6 {
		r := post(t, ts.URL, modernHeaders("tools/call", "who"), callTool("who"))
		seen[r.body[strings.Index(r.body, "worker "):][:8]]++
	}
	free := "worker " + strconv.Itoa(1-busy)
	if len(seen) != 1 || seen[free] != 6 {
		t.Fatalf("with worker %d busy, calls went to %v, want all to %s", busy, seen, free)
	}
	close(release)
	r := <-held
	if strings.Contains(r.body, "held "+free[len("worker "):]) {
		t.Errorf("the held call ran on %s, where the others went too: %s", free, r.body)
	}
	// Idle again: one call at a time all go to the first worker, which
	// stays warm (alternating made every call find a cold Lua state).
	used := map[string]bool{}
	for range 8 {
		r := post(t, ts.URL, modernHeaders("tools/call", "who"), callTool("who"))
		used[r.body[strings.Index(r.body, "worker "):][:8]] = true
	}
	if len(used) != 1 || !used["worker 0"] {
		t.Errorf("idle workers used one call at a time: %v, want worker 0 only", used)
	}
}

// A legacy session stays on the worker that initialized it; sessions
// spread over the workers.
func TestPoolLegacySessionsStick(t *testing.T) {
	ts, _, _ := startPool(t, 3)
	const init = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	var mu sync.Mutex
	workers := map[string]bool{}
	for s := range 6 {
		r := post(t, ts.URL, nil, init)
		sid := r.header.Get("Mcp-Session-Id")
		if sid == "" {
			t.Fatalf("no session: %d %s", r.status, r.body)
		}
		hdr := map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"}
		post(t, ts.URL, hdr, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		first := ""
		for i := range 5 {
			r := post(t, ts.URL, hdr, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i+1)+`,"method":"tools/call","params":{"name":"who","arguments":{}}}`)
			body := r.body
			if len(r.events) > 0 {
				body = r.events[len(r.events)-1]
			}
			w := body[strings.Index(body, "worker "):][:8]
			if first == "" {
				first = w
			} else if w != first {
				t.Errorf("session %d moved from %s to %s", s, first, w)
			}
		}
		mu.Lock()
		workers[first] = true
		mu.Unlock()
	}
	if len(workers) != 3 {
		t.Errorf("6 sessions used workers %v, want all 3", workers)
	}
}

// A proxy that forwards its own name as Host is refused unless allowed.
func TestAllowHosts(t *testing.T) {
	srv := goServer("h")
	defer srv.Close()
	for _, tc := range []struct {
		allow []string
		host  string
		want  int
	}{
		{nil, "mcp.internal", 403},
		{[]string{"mcp.internal"}, "mcp.internal:8080", 200},
		{[]string{"MCP.internal"}, "mcp.internal", 200},
		{[]string{"mcp.internal"}, "evil.example", 403},
		{nil, "localhost:1", 200},
	} {
		h := httpserver.NewHandler(srv, httpserver.Options{AllowHosts: tc.allow})
		req := httptest.NewRequest("POST", "/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+envelope+`}}`))
		req.Host = tc.host
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "server/discover")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		h.Close()
		if rec.Code != tc.want {
			t.Errorf("allow %v, Host %s: %d %s, want %d", tc.allow, tc.host, rec.Code, rec.Body, tc.want)
		}
		if tc.want == 403 && !strings.Contains(rec.Body.String(), "--allow-host") {
			t.Errorf("403 does not say what to do: %s", rec.Body)
		}
	}
}

// A task lives in the worker that made it: tasks/* requests go there,
// even when another worker is idler.
func TestPoolRoutesTasksToTheirWorker(t *testing.T) {
	var srvs []*mcp.Server
	release, hold := make(chan struct{}), make(chan struct{})
	held := make(chan bool, 1)
	for range 2 {
		srv := mcp.NewServer(mcp.ServerOptions{})
		srv.AddTool(mcp.Tool{Name: "job", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskOptional}}, func(c *mcp.ToolCall) {
			go func() { <-release; c.ReturnText("job done") }()
		})
		srv.AddTool(mcp.Tool{Name: "hold"}, func(c *mcp.ToolCall) {
			held <- true
			go func() { <-hold; c.ReturnText("held") }()
		})
		srvs = append(srvs, srv)
	}
	h := httpserver.NewPool(srvs, httpserver.Options{})
	ts := newTestServer(t, h)
	t.Cleanup(func() {
		close(hold)
		h.Close()
		ts.Close()
		for _, s := range srvs {
			s.Close()
		}
	})
	const tasksEnvelope = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	r := post(t, ts.URL, modernHeaders("tools/call", "job"), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"job","arguments":{},`+tasksEnvelope+`}}`)
	var created struct {
		Result struct{ TaskID string } `json:"result"`
	}
	json.Unmarshal([]byte(r.body), &created)
	id := created.Result.TaskID
	if id == "" {
		t.Fatalf("no task: %s", r.body)
	}
	// The first worker is busy now: an unrouted request would go to the
	// second, which never heard of the task.
	go func() {
		req, _ := http.NewRequest("POST", ts.URL, strings.NewReader(callTool("hold")))
		for k, v := range modernHeaders("tools/call", "hold") {
			req.Header.Set(k, v)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	<-held
	get := func() string {
		return post(t, ts.URL, modernHeaders("tasks/get", id), `{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"`+id+`",`+tasksEnvelope+`}}`).body
	}
	if b := get(); !strings.Contains(b, `"status":"working"`) {
		t.Fatalf("tasks/get while the first worker is busy: %s", b)
	}
	close(release)
	for b := get(); !strings.Contains(b, `"status":"completed"`); b = get() {
		if !strings.Contains(b, `"status":"working"`) {
			t.Fatalf("tasks/get: %s", b)
		}
	}
}
