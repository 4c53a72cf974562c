package llm_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/llm"
)

// A provider that redirects to another origin (another port) is not
// followed: the key (Anthropic's x-api-key, OpenAI's Authorization) never
// reaches it, the refusal is not retried, and the error names both
// origins and no key.
func TestProviderRedirectToAnotherOrigin(t *testing.T) {
	for _, tc := range []struct{ spec, keyVar, key, baseVar, path string }{
		{"anthropic:claude-test", "ANTHROPIC_API_KEY", anKey, "ANTHROPIC_BASE_URL", ""},
		{"openai:gpt-test", "OPENAI_API_KEY", oaKey, "OPENAI_BASE_URL", "/v1"},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			other := newFake(t, jsonReply(500, `{}`))
			moved := newFake(t, func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
			})
			m, err := llm.New(tc.spec, llm.Config{Lookup: env(tc.keyVar, tc.key, tc.baseVar, moved.URL+tc.path), MaxRetries: 2})
			if err != nil {
				t.Fatal(err)
			}
			_, err = m.Stream(context.Background(), &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{llm.Text("hi")}}}}, nil)
			if errs.KindOf(err) != errs.Protocol || !strings.Contains(err.Error(), moved.URL) || !strings.Contains(err.Error(), other.URL) || strings.Contains(err.Error(), tc.key) {
				t.Errorf("kind %v: %v", errs.KindOf(err), err)
			}
			if n := len(other.requests()); n != 0 {
				t.Errorf("the other origin got %d requests", n)
			}
			if n := len(moved.requests()); n != 1 {
				t.Errorf("%d requests to the provider, want 1 (a refused redirect is not retried)", n)
			}
		})
	}
}
