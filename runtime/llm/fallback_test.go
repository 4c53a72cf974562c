package llm_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/llm"
)

// fakeClock is a Config's Sleep and Now: a wait moves the clock at once
// and is recorded; onWait (if set) runs at the i-th wait (0-based).
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	waits  []time.Duration
	onWait func(i int)
}

func newClock() *fakeClock { return &fakeClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	i := len(c.waits)
	c.waits = append(c.waits, d)
	c.now = c.now.Add(d)
	f := c.onWait
	c.mu.Unlock()
	if f != nil {
		f(i)
	}
	return ctx.Err()
}

func (c *fakeClock) Waits() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.waits...)
}

// notices gathers what an observer is told.
type notices struct {
	mu sync.Mutex
	ns []llm.Notice
}

func (n *notices) on(x llm.Notice) { n.mu.Lock(); n.ns = append(n.ns, x); n.mu.Unlock() }

func (n *notices) all() []llm.Notice {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]llm.Notice(nil), n.ns...)
}

func anError(typ, msg string) string {
	return `{"type":"error","error":{"type":"` + typ + `","message":"` + msg + `"},"request_id":"req_1"}`
}

// anAnswer is a whole streamed Messages API answer of text.
func anAnswer(text string) http.HandlerFunc {
	return sse(anStart, anTextStart,
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"`+text+`"}}`),
		anStop0, anDeltaEnd, anMsgStop)
}

// twoModels is a primary and a backup model, each an Anthropic stand-in
// of its own, behind WithFallback, on clock.
func twoModels(t *testing.T, clock *fakeClock, primary, backup *fakeServer) llm.Model {
	t.Helper()
	cfg := llm.Config{Sleep: clock.Sleep, Now: clock.Now, Models: map[string]llm.ModelConfig{
		"primary": {Provider: "anthropic", BaseURL: primary.URL, Model: "claude-primary", APIKey: "k1", KeyFrom: "test"},
		"backup":  {Provider: "anthropic", BaseURL: backup.URL, Model: "claude-backup", APIKey: "k2", KeyFrom: "test"},
	}}
	var ms []llm.Model
	for _, name := range []string{"primary", "backup"} {
		m, err := llm.New(name, cfg)
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	return llm.WithFallback(ms...)
}

// The provider answers 429 with retry-after, then 529 overloaded, then
// goes down (its listener closed): the retries wait what it asked, then
// the backoff; the down endpoint is retried twice; then the backup model
// answers the same request, and the response names it.
func TestRetriesThenFallback(t *testing.T) {
	primary := newFake(t,
		jsonReply(429, anError("rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit"), "retry-after", "2"),
		jsonReply(529, anError("overloaded_error", "Overloaded")))
	backup := newFake(t, anAnswer("from the backup"))
	clock := newClock()
	clock.onWait = func(i int) {
		if i == 1 { // after the 529: the endpoint goes down
			primary.Close()
		}
	}
	var seen notices
	var got collect
	ctx := llm.WithObserver(context.Background(), seen.on)
	req := &llm.Request{Model: "claude-primary", Messages: []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{llm.Text("hi")}}}}
	resp, err := twoModels(t, clock, primary, backup).Stream(ctx, req, got.on)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Model != "backup" || got.text.String() != "from the backup" || resp.Message.Parts[0].Text != "from the backup" {
		t.Fatalf("model %q, text %q, %+v", resp.Model, got.text.String(), resp)
	}
	if n := len(primary.requests()); n != 2 {
		t.Fatalf("%d requests answered by the primary, want 2 (429, 529; then it was down)", n)
	}
	b := backup.requests()
	if len(b) != 1 || b[0].Body["model"] != "claude-backup" || b[0].Header.Get("x-api-key") != "k2" {
		t.Fatalf("backup requests %+v", b)
	}
	waits := clock.Waits()
	if len(waits) != 4 || waits[0] != 2*time.Second || waits[1] > time.Second || waits[2] > 2*time.Second || waits[3] > 4*time.Second {
		t.Fatalf("waits %v: want 2s (retry-after), then backoff under 1s, 2s, 4s", waits)
	}
	ns := seen.all()
	type row struct {
		typ     string
		attempt int
		status  int
		kind    errs.Kind
	}
	want := []row{{llm.NoticeRetry, 1, 429, errs.RateLimit}, {llm.NoticeRetry, 2, 529, errs.Server},
		{llm.NoticeRetry, 3, 0, errs.Server}, {llm.NoticeRetry, 4, 0, errs.Server}, {llm.NoticeFallback, 0, 0, errs.Server}}
	if len(ns) != len(want) {
		t.Fatalf("notices %+v", ns)
	}
	for i, w := range want {
		n := ns[i]
		if (row{n.Type, n.Attempt, n.Status, n.Kind}) != w || n.Model != "primary" {
			t.Errorf("notice %d: %+v, want %+v", i, n, w)
		}
		if n.Type == llm.NoticeRetry && (n.MaxRetries != llm.DefaultMaxRetries || n.Wait != waits[i]) {
			t.Errorf("notice %d: %+v (waits %v)", i, n, waits)
		}
	}
	if ns[4].To != "backup" || !strings.Contains(ns[4].Message, "cannot reach") {
		t.Errorf("fallback notice %+v", ns[4])
	}
	for i, line := range []string{"↻ rate limited (429), retry 1/4 in 2s", "↻ provider overloaded (529), retry 2/4 in ", "↻ endpoint unreachable, retry 3/4 in ", "", "↪ primary: endpoint unreachable: falling back to backup"} {
		if !strings.HasPrefix(ns[i].String(), line) {
			t.Errorf("notice %d: %q, want %q", i, ns[i].String(), line)
		}
	}
}

// A stream that broke after its text began is not sent again, nor to
// the backup: it is incomplete, with the text that came.
func TestBrokenStreamNotRetried(t *testing.T) {
	primary := newFake(t, cut(anStart, anTextStart, anText1))
	backup := newFake(t, anAnswer("never"))
	clock := newClock()
	var got collect
	resp, err := twoModels(t, clock, primary, backup).Stream(context.Background(), &llm.Request{}, got.on)
	if !errs.Is(err, errs.Incomplete) || !strings.Contains(err.Error(), "not sent again") {
		t.Fatalf("got %v", err)
	}
	if resp == nil || len(resp.Message.Parts) != 1 || resp.Message.Parts[0].Text != "Let me " || got.text.String() != "Let me " {
		t.Fatalf("what came: %+v, shown %q", resp, got.text.String())
	}
	if len(primary.requests()) != 1 || len(backup.requests()) != 0 || len(clock.Waits()) != 0 {
		t.Fatalf("%d + %d requests, waits %v: want exactly one", len(primary.requests()), len(backup.requests()), clock.Waits())
	}
}

// Which failures move to the backup, and which end the call as they are.
func TestFallbackKinds(t *testing.T) {
	tests := []struct {
		name     string
		primary  http.HandlerFunc
		kind     errs.Kind // of the call: 0 when the backup answers
		requests int       // made to the primary
	}{
		{"context length", jsonReply(400, anError("invalid_request_error", "prompt is too long: 208310 tokens > 200000 maximum")), 0, 1},
		{"overloaded in the stream before output", sse(anStart, ev("error", anError("overloaded_error", "Overloaded"))), 0, 5},
		{"auth", jsonReply(401, anError("authentication_error", "invalid x-api-key")), errs.Auth, 1},
		{"bad request", jsonReply(400, anError("invalid_request_error", "messages: roles must alternate")), errs.BadRequest, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			primary := newFake(t, tt.primary)
			backup := newFake(t, anAnswer("backup"))
			resp, err := twoModels(t, newClock(), primary, backup).Stream(context.Background(), &llm.Request{}, func(llm.Event) {})
			if n := len(primary.requests()); n != tt.requests {
				t.Errorf("%d requests to the primary, want %d", n, tt.requests)
			}
			if tt.kind == 0 {
				if err != nil || resp.Model != "backup" || len(backup.requests()) != 1 {
					t.Fatalf("%v %+v", err, resp)
				}
				return
			}
			if !errs.Is(err, tt.kind) || len(backup.requests()) != 0 {
				t.Fatalf("got %v, %d backup requests", err, len(backup.requests()))
			}
		})
	}
}

// Retries are bounded in time: a retry-after past what is left of
// MaxRetryTime ends them at once, and the error says what was asked.
func TestRetryTimeBound(t *testing.T) {
	f := newFake(t, jsonReply(429, anError("rate_limit_error", "slow down"), "retry-after", "3"))
	clock := newClock()
	m := anthropicModel(t, f, llm.Config{Sleep: clock.Sleep, Now: clock.Now, MaxRetryTime: 5 * time.Second})
	_, err := m.Stream(context.Background(), &llm.Request{}, nil)
	if !errs.Is(err, errs.RateLimit) || !strings.Contains(err.Error(), "slow down (the server asked to wait 3s, more than the 2s left of the 5s given to retries)") {
		t.Fatalf("got %v", err)
	}
	if n := len(f.requests()); n != 2 || len(clock.Waits()) != 1 {
		t.Fatalf("%d requests, waits %v", n, clock.Waits())
	}
}

// Retries are bounded in count: MaxRetries retries, then the error.
func TestRetryCountBound(t *testing.T) {
	f := newFake(t, jsonReply(529, anError("overloaded_error", "Overloaded")))
	clock := newClock()
	var seen notices
	m := anthropicModel(t, f, llm.Config{Sleep: clock.Sleep, Now: clock.Now, MaxRetries: 2})
	_, err := m.Stream(llm.WithObserver(context.Background(), seen.on), &llm.Request{}, nil)
	if !errs.Is(err, errs.Server) || !strings.Contains(err.Error(), "529: Overloaded (after 2 retries)") {
		t.Fatalf("got %v", err)
	}
	if n := len(f.requests()); n != 3 || len(clock.Waits()) != 2 || len(seen.all()) != 2 {
		t.Fatalf("%d requests, waits %v, notices %+v", n, clock.Waits(), seen.all())
	}
}
