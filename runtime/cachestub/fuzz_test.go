package cachestub

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzRequest: any body is answered, 200 or a 400 invalid_request_error,
// never a panic.
func FuzzRequest(f *testing.F) {
	for _, s := range []string{
		`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`,
		`{"model":"m","max_tokens":5,"system":"s","tools":[{"name":"t","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]}]}`,
		`{"model":"m","max_tokens":5,"stream":true,"messages":[{"role":"assistant","content":[1]}]}`,
		`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":null}]}`,
		`[]`, `{`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		// A stand-in per input: a shared one's cache grows with every
		// input, and each request is checked against all of it.
		s := New(Options{MinTokens: 1})
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/v1/messages", strings.NewReader(body)))
		if rec.Code != 200 && (rec.Code != 400 || !strings.Contains(rec.Body.String(), "invalid_request_error")) {
			t.Fatalf("%d %s", rec.Code, rec.Body.String())
		}
	})
}
