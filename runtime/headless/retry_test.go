package headless

import (
	"bytes"
	"strings"
	"testing"
	"time"

	ragent "github.com/luagent/luagent/runtime/agent"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/llm"
)

// A retry is the SDK's api_retry line (error_status null without an
// answer); a fallback is the SDK's informational line tagged
// model_fallback; the answer of a fallback names its model.
func TestRetryLines(t *testing.T) {
	var out bytes.Buffer
	s := New(Options{Out: &out, Format: StreamJSON, SessionID: "sid", NewID: func() string { return "u" }})
	for _, n := range []llm.Notice{
		{Type: llm.NoticeRetry, Model: "primary", Attempt: 1, MaxRetries: 4, Wait: 2 * time.Second, Status: 429, Kind: errs.RateLimit, Message: "429 Too Many Requests: slow down"},
		{Type: llm.NoticeRetry, Model: "primary", Attempt: 2, MaxRetries: 4, Wait: 812 * time.Millisecond, Status: 529, Kind: errs.Server, Message: "529: Overloaded"},
		{Type: llm.NoticeRetry, Model: "primary", Attempt: 3, MaxRetries: 4, Wait: 1500 * time.Millisecond, Kind: errs.Server, Message: "cannot reach http://127.0.0.1:1"},
		{Type: llm.NoticeFallback, Model: "primary", To: "backup", Kind: errs.ContextLength, Status: 400, Message: "400 Bad Request: prompt is too long"},
	} {
		s.Event(ragent.Event{Type: ragent.EventRetry, Notice: &n, Message: n.String()})
	}
	s.Event(ragent.Event{Type: ragent.EventResponse, Response: &ragent.Message{Role: "assistant", Parts: []ragent.Part{{Type: "text", Text: "hi"}}}, Model: "backup", StopReason: "end"})
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	want := []string{
		`{"type":"system","subtype":"api_retry","attempt":1,"max_retries":4,"retry_delay_ms":2000,"error_status":429,"error":"rate_limit","uuid":"u","session_id":"sid"}`,
		`{"type":"system","subtype":"api_retry","attempt":2,"max_retries":4,"retry_delay_ms":812,"error_status":529,"error":"overloaded","uuid":"u","session_id":"sid"}`,
		`{"type":"system","subtype":"api_retry","attempt":3,"max_retries":4,"retry_delay_ms":1500,"error_status":null,"error":"server_error","uuid":"u","session_id":"sid"}`,
		`{"type":"system","subtype":"informational","content":"↪ primary: conversation too long for its context window: falling back to backup","level":"warning","tag":"model_fallback","model_fallback":{"from":"primary","to":"backup","error":"invalid_request","error_kind":"context_length","error_status":400,"message":"400 Bad Request: prompt is too long"},"uuid":"u","session_id":"sid"}`,
	}
	if len(lines) != 5 {
		t.Fatalf("lines:\n%s", out.String())
	}
	for i, w := range want {
		if lines[i] != w {
			t.Errorf("line %d:\n got %s\nwant %s", i+1, lines[i], w)
		}
	}
	if !strings.Contains(lines[4], `"model":"backup"`) {
		t.Errorf("the fallback's answer: %s", lines[4])
	}
}
