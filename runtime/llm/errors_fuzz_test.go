package llm

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/errs"
)

// A provider's error body, whatever it is, gives one typed line: never a
// panic, a context-length kind only from a 400/413/422, and the key never
// in the text.
func FuzzProviderError(f *testing.F) {
	for _, s := range []string{
		`{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208310 tokens > 200000 maximum"}}`,
		`{"error":{"message":"This model's maximum context length is 128000 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}`,
		`{"error":{"code":500,"message":"the request exceeds the available context size","type":"exceed_context_size_error"}}`,
		`{"error":"unknown field"}`, `<html>bad gateway</html>`, `{"error":{"message":1}}`, ``, `null`,
	} {
		f.Add(400, s)
		f.Add(529, s)
	}
	m := &wireModel{name: "anthropic:x", key: "sk-SECRET", keyVar: "K"}
	f.Fuzz(func(t *testing.T, status int, body string) {
		if status < 400 || status > 599 {
			return
		}
		e := m.httpError(status, []byte(body+"sk-SECRET"))
		if strings.Contains(e.Msg, "sk-SECRET") || strings.Contains(e.Msg, "\n") {
			t.Fatalf("%q", e.Msg)
		}
		if e.Kind == errs.ContextLength && status != 400 && status != 413 && status != 422 {
			t.Fatalf("status %d typed context_length", status)
		}
		_ = streamError([]byte(body))
	})
}

// retry-after, in any form, is a wait of zero or more, or none.
func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{"2", "0.5", "-3", "Wed, 21 Oct 2015 07:28:00 GMT", "NaN", "1e300", ""} {
		f.Add(s, s)
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	f.Fuzz(func(t *testing.T, ms, s string) {
		h := http.Header{}
		h.Set("retry-after-ms", ms)
		h.Set("retry-after", s)
		if d, ok := retryAfter(h, now); ok && d < 0 {
			t.Fatalf("retry-after-ms %q, retry-after %q: %v", ms, s, d)
		}
	})
}
