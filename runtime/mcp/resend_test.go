package mcp

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/testkit"
)

// brokenTools is a 2026-07-28 server whose tools run (each execution is
// counted) and whose reply stream then breaks mid-way, the first time each
// tool runs; later runs answer. tools/list breaks the same way once.
func brokenTools(t *testing.T) (url string, runs func(tool string) int, posts func(method string) []string) {
	var mu sync.Mutex
	n := map[string]int{}
	url, posts = modernHTTP(t, func(w http.ResponseWriter, r *http.Request, method string, nth int, id json.RawMessage) {
		switch method {
		case "tools/list":
			if nth == 1 {
				testkit.BreakStream(w)
				return
			}
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(id)+`,"result":{"resultType":"complete","tools":[`+
				`{"name":"mutate","inputSchema":{"type":"object"}},`+
				`{"name":"destroy","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":false,"idempotentHint":false,"destructiveHint":true}},`+
				`{"name":"read","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}},`+
				`{"name":"set","inputSchema":{"type":"object"},"annotations":{"idempotentHint":true}}]}}`)
		case "tools/call":
			tool := r.Header.Get("Mcp-Name")
			mu.Lock()
			n[tool]++
			first := n[tool] == 1
			mu.Unlock()
			if first {
				testkit.BreakStream(w)
				return
			}
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(id)+`,"result":`+okResult+`}`)
		}
	})
	return url, func(tool string) int {
		mu.Lock()
		defer mu.Unlock()
		return n[tool]
	}, posts
}

// A 2026-07-28 tools/call whose reply stream breaks after the tool ran is
// sent again only when the tool says it is safe (readOnlyHint or
// idempotentHint); any other fails with kind unknown_outcome, having run
// once. Requests safe by nature (tools/list) are sent again.
func TestHTTPClientResendsOnlyWhatIsSafe(t *testing.T) {
	url, runs, posts := brokenTools(t)
	c := connectURL(t, url)
	ctx := context.Background()
	if _, err := c.Tools(ctx); err != nil {
		t.Fatalf("tools/list after a broken stream: %v", err)
	}
	if n := len(posts("tools/list")); n != 2 {
		t.Errorf("%d tools/list POSTs, want 2 (safe: sent again once)", n)
	}
	for _, tc := range []struct {
		tool string
		runs int
		kind errs.Kind
	}{
		{"mutate", 1, errs.UnknownOutcome},  // no annotations: unsafe
		{"destroy", 1, errs.UnknownOutcome}, // hints say so
		{"read", 2, errs.Unknown},           // readOnlyHint
		{"set", 2, errs.Unknown},            // idempotentHint
	} {
		t.Run(tc.tool, func(t *testing.T) {
			_, err := c.CallTool(ctx, tc.tool, nil, CallOptions{})
			if errs.KindOf(err) != tc.kind || (err == nil) != (tc.kind == errs.Unknown) {
				t.Fatalf("kind %v, want %v: %v", errs.KindOf(err), tc.kind, err)
			}
			if got := runs(tc.tool); got != tc.runs {
				t.Errorf("the tool ran %d times, want %d", got, tc.runs)
			}
			if err != nil && (!strings.Contains(err.Error(), "may have run") || !strings.Contains(err.Error(), "before") || strings.Contains(err.Error(), "\n")) {
				t.Errorf("message: %q", err)
			}
		})
	}
}

// The non-blocking path (Lua's) decides the same way.
func TestHTTPClientAsyncResendsOnlyWhatIsSafe(t *testing.T) {
	url, runs, _ := brokenTools(t)
	c := connectURL(t, url)
	if _, err := c.Tools(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		tool string
		runs int
		kind errs.Kind
	}{
		{"mutate", 1, errs.UnknownOutcome},
		{"read", 2, errs.Unknown},
	} {
		done := make(chan error, 1)
		c.CallToolAsync(context.Background(), tc.tool, nil, CallOptions{}, func(_ json.RawMessage, err error) { done <- err })
		if err := <-done; errs.KindOf(err) != tc.kind || (err == nil) != (tc.kind == errs.Unknown) {
			t.Errorf("%s: kind %v, want %v: %v", tc.tool, errs.KindOf(err), tc.kind, err)
		}
		if got := runs(tc.tool); got != tc.runs {
			t.Errorf("%s ran %d times, want %d", tc.tool, got, tc.runs)
		}
	}
}

// A tools/call sent as a raw request before the tool list is known is
// unsafe whatever the tool: the client cannot know its annotations.
func TestHTTPClientRawToolCallWithoutTheListIsUnsafe(t *testing.T) {
	url, runs, _ := brokenTools(t)
	c := connectURL(t, url)
	_, err := c.Request(context.Background(), "tools/call", json.RawMessage(`{"name":"read","arguments":{}}`))
	if errs.KindOf(err) != errs.UnknownOutcome || runs("read") != 1 {
		t.Errorf("kind %v after %d runs: %v", errs.KindOf(err), runs("read"), err)
	}
}

// A 2025-11-25 tools/call whose reply stream breaks after the tool ran: a
// stream with event ids is resumed (GET with Last-Event-ID; nothing is
// sent again) and answers; one without fails with kind unknown_outcome.
// Either way the tool ran once and was POSTed once.
func TestHTTPClientLegacyBrokenStreamIsNeverResent(t *testing.T) {
	for _, tc := range []struct {
		name     string
		eventIDs bool
		kind     errs.Kind
	}{
		{"resumable", true, errs.Unknown},
		{"not resumable", false, errs.UnknownOutcome},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var runs, posts, resumed int
			var callID string
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				var m struct {
					ID     json.RawMessage `json:"id"`
					Method string          `json:"method"`
				}
				json.Unmarshal(b, &m)
				mu.Lock()
				defer mu.Unlock()
				if r.Method == "GET" {
					if r.Header.Get("Last-Event-ID") != "e1" || callID == "" {
						w.WriteHeader(405)
						return
					}
					resumed++
					w.Header().Set("Content-Type", "text/event-stream")
					io.WriteString(w, "id: e2\ndata: {\"jsonrpc\":\"2.0\",\"id\":"+callID+",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"done\"}]}}\n\n")
					return
				}
				w.Header().Set("Content-Type", "application/json")
				switch m.Method {
				case "server/discover":
					w.WriteHeader(400)
					io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: Mcp-Session-Id header is required"}}`)
				case "initialize":
					w.Header().Set("Mcp-Session-Id", "S1")
					io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`)
				case "tools/list":
					io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"tools":[{"name":"mutate","inputSchema":{"type":"object"}}]}}`)
				case "tools/call":
					runs++
					posts++
					callID = string(m.ID)
					w.Header().Set("Content-Type", "text/event-stream")
					if tc.eventIDs {
						io.WriteString(w, "id: e1\nretry: 10\ndata:\n\n")
					} else {
						io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"working\"}}\n\n")
					}
				default:
					w.WriteHeader(202)
				}
			}))
			defer ts.Close()
			ForgetEra()
			c := connectURL(t, ts.URL+"/mcp")
			r, err := c.CallTool(context.Background(), "mutate", nil, CallOptions{})
			if errs.KindOf(err) != tc.kind || (err == nil) != (tc.kind == errs.Unknown) {
				t.Fatalf("kind %v, want %v: %v", errs.KindOf(err), tc.kind, err)
			}
			if err == nil && r.Text() != "done" {
				t.Errorf("resumed answer %q", r.Text())
			}
			mu.Lock()
			defer mu.Unlock()
			if runs != 1 || posts != 1 {
				t.Errorf("ran %d times in %d POSTs, want 1 and 1", runs, posts)
			}
			if tc.eventIDs && resumed != 1 {
				t.Errorf("%d resumptions, want 1", resumed)
			}
		})
	}
}

// A server that is gone before a tool call is sent (nothing listens): the
// call was never delivered, so its error is kind process ("cannot
// reach"), not unknown_outcome.
func TestHTTPClientUndeliveredCallIsNotUnknown(t *testing.T) {
	ts := testkit.ScriptedModern(t, "s", func(w http.ResponseWriter, r testkit.ScriptedRequest) {
		if r.Method == "tools/list" {
			testkit.ScriptedTools(w, r.ID, `{"name":"mutate","inputSchema":{"type":"object"}}`)
		}
	})
	ForgetEra()
	c := connectURL(t, ts.URL)
	if _, err := c.Tools(context.Background()); err != nil {
		t.Fatal(err)
	}
	ts.Close()
	_, err := c.CallTool(context.Background(), "mutate", nil, CallOptions{})
	if errs.KindOf(err) != errs.Process || !strings.Contains(err.Error(), "cannot reach") {
		t.Errorf("kind %v: %v", errs.KindOf(err), err)
	}
}
