package llm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/llm"
)

// A fake provider: each request gets the next handler of the script (the
// last one repeats), and is recorded.
type fakeServer struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []recorded
}

type recorded struct {
	Method, Path string
	Header       http.Header
	Body         map[string]any
}

func newFake(t *testing.T, script ...http.HandlerFunc) *fakeServer {
	f := &fakeServer{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var body map[string]any
		json.Unmarshal(b, &body)
		f.mu.Lock()
		n := len(f.reqs)
		f.reqs = append(f.reqs, recorded{r.Method, r.URL.Path, r.Header.Clone(), body})
		f.mu.Unlock()
		script[min(n, len(script)-1)](w, r)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeServer) requests() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.reqs...)
}

// sse writes each event ("data: ..." lines, or "event: x\ndata: ..."),
// flushing after each, as the APIs stream.
func sse(events ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range events {
			fmt.Fprint(w, e, "\n\n")
			w.(http.Flusher).Flush()
		}
	}
}

func jsonReply(status int, body string, header ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

// cut streams events, then drops the connection without ending the
// chunked body.
func cut(events ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		sse(events...)(w, r)
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	}
}

// hold streams events, then waits for the client to go away.
func hold(events ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		sse(events...)(w, r)
		<-r.Context().Done()
	}
}

// noSleep is a Config.Sleep that returns at once (the context's error
// when it ended).
func noSleep(ctx context.Context, d time.Duration) error { return ctx.Err() }

func env(kv ...string) func(string) (string, bool) {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// collect gathers a stream's events.
type collect struct {
	text  strings.Builder
	calls []llm.ToolCall
	order []string // "text" / "call:NAME"
}

func (c *collect) on(e llm.Event) {
	if e.ToolCall != nil {
		c.calls = append(c.calls, *e.ToolCall)
		c.order = append(c.order, "call:"+e.ToolCall.Name)
		return
	}
	c.text.WriteString(e.Text)
	if n := len(c.order); n == 0 || c.order[n-1] != "text" {
		c.order = append(c.order, "text")
	}
}

// conversation is a request using every message kind.
func conversation() *llm.Request {
	temp := 0.5
	return &llm.Request{
		System: "be brief",
		Messages: []llm.Message{
			{Role: llm.RoleUser, Parts: []llm.Part{llm.Text("look"), {Type: "image", MIME: "image/png", Data: []byte{0x89, 'P', 'N', 'G'}}}},
			{Role: llm.RoleAssistant, Parts: []llm.Part{llm.Text("checking")}, ToolCalls: []llm.ToolCall{
				{ID: "c1", Name: "read", Arguments: json.RawMessage(`{"path":"a"}`)},
				{ID: "c2", Name: "stat", Arguments: json.RawMessage(`{"path":"b"}`)}}},
			{Role: llm.RoleTool, ToolCallID: "c1", Parts: []llm.Part{llm.Text("contents")}},
			{Role: llm.RoleTool, ToolCallID: "c2", IsError: true, Parts: []llm.Part{llm.Text("no such file")}},
		},
		Tools:       []llm.Tool{{Name: "read", Description: "Read a file", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}},
		MaxTokens:   100,
		Temperature: &temp,
		Stop:        []string{"END"},
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// errorCase is a failing exchange and the error it must give.
type errorCase struct {
	name     string
	script   []http.HandlerFunc
	kind     errs.Kind
	contains string
	requests int // how many requests the client made (retries)
}

// runErrorCases checks each case's kind, text, one line naming the model
// (prefix), request count, and that the key is not in the text.
func runErrorCases(t *testing.T, prefix, key string, model func(*fakeServer) llm.Model, cases []errorCase) {
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, tt.script...)
			var c collect
			_, err := model(f).Stream(context.Background(), &llm.Request{}, c.on)
			if !errs.Is(err, tt.kind) || !strings.Contains(err.Error(), tt.contains) {
				t.Fatalf("got %v (kind %v), want kind %v containing %q", err, errs.KindOf(err), tt.kind, tt.contains)
			}
			if strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), prefix) || strings.Contains(err.Error(), key) {
				t.Fatalf("not one line naming the model without the key: %q", err)
			}
			if n := len(f.requests()); n != tt.requests {
				t.Fatalf("%d requests, want %d", n, tt.requests)
			}
		})
	}
}

// testCancelMidStream cancels on the first text event of a stream the
// server holds open: the error is cancelled, not a short answer.
func testCancelMidStream(t *testing.T, model func(*fakeServer) llm.Model, events ...string) {
	f := newFake(t, hold(events...))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := model(f).Stream(ctx, &llm.Request{}, func(e llm.Event) {
		if e.Text != "" {
			cancel()
		}
	})
	if !errs.Is(err, errs.Cancelled) {
		t.Fatalf("got %v", err)
	}
}
