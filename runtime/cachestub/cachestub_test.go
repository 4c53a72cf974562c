package cachestub

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// clock is a fake clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

var eph = map[string]any{"type": "ephemeral"}

// body is a request: a system prompt of sys bytes (marked), the messages'
// texts (the last marked), and a tool.
func body(sys int, mark bool, texts ...string) map[string]any {
	s := map[string]any{"type": "text", "text": strings.Repeat("s", sys)}
	if mark {
		s["cache_control"] = eph
	}
	var msgs []any
	for i, t := range texts {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		b := map[string]any{"type": "text", "text": t}
		if mark && i == len(texts)-1 {
			b["cache_control"] = eph
		}
		msgs = append(msgs, map[string]any{"role": role, "content": []any{b}})
	}
	return map[string]any{"model": "claude-test", "max_tokens": 100, "system": []any{s}, "messages": msgs,
		"tools": []any{map[string]any{"name": "read", "input_schema": map[string]any{"type": "object"}}}}
}

func post(t *testing.T, h http.Handler, b map[string]any) (int, Usage, string) {
	t.Helper()
	raw, _ := json.Marshal(b)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/v1/messages", bytes.NewReader(raw)))
	var out struct {
		Usage Usage `json:"usage"`
	}
	json.Unmarshal(rec.Body.Bytes(), &out)
	return rec.Code, out.Usage, rec.Body.String()
}

func TestCache(t *testing.T) {
	long := 8000 // bytes: 2000 tokens, over the minimum
	type step struct {
		advance          time.Duration
		body             map[string]any
		read, write, all int // read < 0: only check that nothing was read
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"written then read", []step{
			{0, body(long, true, "q1"), 0, -1, 0},
			{time.Minute, body(long, true, "q1"), -2, 0, 0},
		}},
		{"the conversation grows: the previous prefix is read", []step{
			{0, body(long, true, "q1"), 0, -1, 0},
			{time.Second, body(long, true, "q1", "a1", strings.Repeat("q", 400)), -3, -1, 0},
		}},
		{"expired after five minutes unused", []step{
			{0, body(long, true, "q1"), 0, -1, 0},
			{5*time.Minute + time.Second, body(long, true, "q1"), 0, -1, 0},
		}},
		{"a read refreshes the five minutes", []step{
			{0, body(long, true, "q1"), 0, -1, 0},
			{4 * time.Minute, body(long, true, "q1"), -2, 0, 0},
			{4 * time.Minute, body(long, true, "q1"), -2, 0, 0},
		}},
		{"under the minimum: not cached", []step{
			{0, body(100, true, "q1"), 0, 0, 0},
			{time.Second, body(100, true, "q1"), 0, 0, 0},
		}},
		{"no breakpoints: not cached", []step{
			{0, body(long, false, "q1"), 0, 0, 0},
			{time.Second, body(long, false, "q1"), 0, 0, 0},
		}},
		{"one byte changed in the system prompt: a miss", []step{
			{0, body(long, true, "q1"), 0, -1, 0},
			{time.Second, body(long+1, true, "q1"), 0, -1, 0},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &clock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			s := New(Options{Now: c.Now})
			var prev Usage
			for i, st := range tc.steps {
				c.add(st.advance)
				code, u, raw := post(t, s, st.body)
				if code != 200 {
					t.Fatalf("step %d: %d %s", i, code, raw)
				}
				read, write := st.read, st.write
				switch read {
				case -2: // all of the previous write
					read = prev.CacheCreationInputTokens + prev.CacheReadInputTokens
				case -3: // the previous request's whole prompt
					read = prev.Prompt()
				}
				if write == -1 { // everything up to the last breakpoint, less the read
					write = u.Prompt() - u.InputTokens - read
					if write <= 0 {
						t.Fatalf("step %d: nothing written: %+v", i, u)
					}
				}
				if u.CacheReadInputTokens != read || u.CacheCreationInputTokens != write {
					t.Fatalf("step %d: usage %+v, want read %d write %d (previous %+v)", i, u, read, write, prev)
				}
				prev = u
			}
		})
	}
}

func TestTooManyBreakpoints(t *testing.T) {
	b := body(10, true, "q1", "a1", "q2", "a2", "q3")
	for _, m := range b["messages"].([]any)[:3] {
		m.(map[string]any)["content"].([]any)[0].(map[string]any)["cache_control"] = eph
	}
	code, _, raw := post(t, New(Options{}), b)
	if code != 400 || !strings.Contains(raw, "A maximum of 4 blocks with cache_control may be provided. Found 5.") || !strings.Contains(raw, "invalid_request_error") {
		t.Fatalf("%d %s", code, raw)
	}
}

// Moving a breakpoint changes no prefix: the blocks are compared without
// their markers.
func TestMarkerNotPartOfPrefix(t *testing.T) {
	s := New(Options{MinTokens: 1})
	post(t, s, body(4000, true, "q1"))
	b := body(4000, true, "q1", "a1", "q2")
	msgs := b["messages"].([]any)
	msgs[0].(map[string]any)["content"].([]any)[0].(map[string]any)["cache_control"] = eph
	_, u, _ := post(t, s, b)
	if u.CacheReadInputTokens == 0 {
		t.Fatalf("nothing read: %+v", u)
	}
}
