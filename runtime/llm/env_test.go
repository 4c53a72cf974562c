package llm

import (
	"slices"
	"testing"

	"github.com/luagent/luagent/runtime/transport"
)

// Every variable a provider reads (keys and base URLs) is one servers do
// not inherit: transport's list of luagent's own variables must grow with
// the providers.
func TestProviderVariablesAreWithheld(t *testing.T) {
	var read []string
	cfg := Config{Lookup: func(name string) (string, bool) {
		read = append(read, name)
		return "", false
	}}
	for _, spec := range []string{"openai:m", "ollama:m", "anthropic:m"} {
		New(spec, cfg)
	}
	cfg.Lookup = func(name string) (string, bool) { read = append(read, name); return "x", true }
	for _, spec := range []string{"openai:m", "ollama:m", "anthropic:m"} {
		New(spec, cfg)
	}
	if len(read) == 0 {
		t.Fatal("no variable read")
	}
	withheld := transport.WithheldEnv()
	for _, name := range read {
		if !slices.Contains(withheld, name) {
			t.Errorf("providers read %s, which servers still inherit: add it to transport's list", name)
		}
	}
}
