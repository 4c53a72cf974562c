package catalog

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

const modelsFile = `{
  "version": 1,
  "mcpServers": {},
  "model": "fast",
  "models": {
    "fast": {"provider": "openai", "model": "gpt-4.1-mini", "note": [1, 2]},
    "local": {
      "provider": "ollama",
      "baseUrl": "http://127.0.0.1:11434/v1",
      "model": "llama3.2"
    },
    "work": {"provider": "anthropic", "apiKeyEnv": "WORK_ANTHROPIC_KEY", "model": "claude-sonnet-4-5", "contextWindow": 1000000}
  }
}
`

func TestModelsRoundTrip(t *testing.T) {
	c := mustParse(t, []byte(modelsFile))
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.DefaultModel != "fast" || len(c.Models) != 3 {
		t.Fatalf("%+v", c)
	}
	w := c.Models[2]
	if w.Name != "work" || w.Provider != "anthropic" || w.APIKeyEnv != "WORK_ANTHROPIC_KEY" || w.Model != "claude-sonnet-4-5" || w.BaseURL != "" {
		t.Fatalf("work = %+v", w)
	}
	if w.ContextWindow != 1000000 || c.Models[0].ContextWindow != 0 {
		t.Fatalf("contextWindow: %d, %d", w.ContextWindow, c.Models[0].ContextWindow)
	}
	if l := c.Models[1]; l.BaseURL != "http://127.0.0.1:11434/v1" || l.Provider != "ollama" {
		t.Fatalf("local = %+v", l)
	}
	out := mustMarshal(t, c)
	// Known members are written in their order; values keep their bytes,
	// the unknown "note" too.
	if !bytes.Contains(out, []byte(`"note": [1, 2]`)) || !bytes.Contains(out, []byte(`"model": "fast"`)) {
		t.Fatalf("marshal lost bytes:\n%s", out)
	}
	again := mustParse(t, out)
	if again.DefaultModel != "fast" || len(again.Models) != 3 || again.Models[1].Model != "llama3.2" {
		t.Fatalf("reparse: %+v", again)
	}
	if b := mustMarshal(t, again); !bytes.Equal(b, out) {
		t.Fatalf("not a fixed point:\n%s\n%s", out, b)
	}

	// An edit writes the changed fields, keeps the rest.
	c.Models[0].Model = "gpt-4.1"
	c.DefaultModel = "local"
	c.Models = append(c.Models, &Model{Name: "demo", Provider: "mock", ContextWindow: 8000})
	out = mustMarshal(t, c)
	for _, want := range []string{`"contextWindow": 8000`, `"contextWindow": 1000000`, `"model": "gpt-4.1"`, `"note": [1, 2]`, `"model": "local"`, `"demo": {`, `"provider": "mock"`} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("edit: %s missing in\n%s", want, out)
		}
	}
	if err := mustParse(t, out).Validate(); err != nil {
		t.Fatal(err)
	}

	// A file without models stays without them.
	plain := mustMarshal(t, mustParse(t, []byte(`{"version": 1, "mcpServers": {}}`)))
	if bytes.Contains(plain, []byte("model")) {
		t.Fatalf("models appeared:\n%s", plain)
	}
	if got := string(mustMarshal(t, mustParse(t, []byte(`{"models": null, "model": null}`)))); !strings.Contains(got, `"models": null`) || !strings.Contains(got, `"model": null`) {
		t.Fatalf("nulls not kept:\n%s", got)
	}
}

func TestModelsValidate(t *testing.T) {
	for _, tt := range []struct{ file, path string }{
		{`{"models": {"a": {"provider": "gemini", "model": "x"}}}`, "models.a.provider"},
		{`{"models": {"a": {"provider": "openai"}}}`, "models.a.model"},
		{`{"models": {"a": {"provider": "ollama", "model": "m", "baseUrl": "127.0.0.1:11434"}}}`, "models.a.baseUrl"},
		{`{"models": {"a": {"provider": "openai", "model": "m", "apiKeyEnv": "sk-abc 123"}}}`, "models.a.apiKeyEnv"},
		{`{"models": {"a:b": {"provider": "openai", "model": "m"}}}`, `models."a:b"`},
		{`{"model": "nope", "models": {}}`, "model"},
	} {
		err := mustParse(t, []byte(tt.file)).Validate()
		var ps Problems
		if !errors.As(err, &ps) || len(ps) != 1 || ps[0].Path != tt.path {
			t.Errorf("%s: got %v, want one problem at %s", tt.file, err, tt.path)
		}
	}
	for _, ok := range []string{`{"model": "openai:gpt-4.1-mini"}`, `{"model": "mock"}`, `{"models": {"m": {"provider": "mock"}}, "model": "m"}`} {
		if err := mustParse(t, []byte(ok)).Validate(); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	if err := (&Config{Models: []*Model{{Name: "m", Provider: "mock", ContextWindow: -5}}}).Validate(); err == nil || !strings.Contains(err.Error(), "models.m.contextWindow") {
		t.Errorf("a negative window: %v", err)
	}
	for _, bad := range []string{`{"models": {"a": {"provider": "mock", "contextWindow": 0}}}`, `{"models": {"a": {"provider": "mock", "contextWindow": "big"}}}`,
		`{"models": {"a": {"provider": "mock", "contextWindow": 1.5}}}`, `{"models": []}`, `{"models": {"a": 1}}`, `{"model": 1}`, `{"models": {"a": {"provider": 2}}}`} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("Parse(%s) accepted it", bad)
		}
	}
}

// fallbackModels: names of models entries or specs, kept as written.
func TestFallbackModels(t *testing.T) {
	base := `{"version": 1, "mcpServers": {}, "models": {"fast": {"provider": "openai", "model": "gpt-4.1-mini"}}, `
	tests := []struct {
		member string
		want   []string
		err    string // of Parse, then Validate
	}{
		{`"fallbackModels": ["fast", "anthropic:claude-haiku-4-5", "mock"]`, []string{"fast", "anthropic:claude-haiku-4-5", "mock"}, ""},
		{`"fallbackModels": null`, nil, ""},
		{`"fallbackModels": "fast"`, nil, `fallbackModels: must be an array of strings`},
		{`"fallbackModels": ["fast", "slow"]`, nil, `fallbackModels[1]: "slow" is neither a name under models nor a spec`},
	}
	for _, tt := range tests {
		t.Run(tt.member, func(t *testing.T) {
			src := base + tt.member + "}\n"
			c, err := Parse([]byte(src))
			if err == nil {
				err = c.Validate()
			}
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(c.FallbackModels, ",") != strings.Join(tt.want, ",") {
				t.Fatalf("%q", c.FallbackModels)
			}
			if out := mustMarshal(t, c); !bytes.Contains(out, []byte(tt.member)) {
				t.Fatalf("not kept as written:\n%s", out)
			}
		})
	}
}

func TestModelsPrice(t *testing.T) {
	file := `{"models": {"fast": {"provider": "openai", "model": "gpt-4.1-mini", "price": {"input": 0.4, "output": 1.6, "cachedInput": 0.1}}}}`
	c := mustParse(t, []byte(file))
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if p := c.Models[0].Price; p == nil || *p != (ModelPrice{Input: 0.4, Output: 1.6, CachedInput: 0.1}) {
		t.Fatalf("price = %+v", p)
	}
	out := mustMarshal(t, c)
	if !bytes.Contains(out, []byte(`"price": {"input": 0.4, "output": 1.6, "cachedInput": 0.1}`)) {
		t.Fatalf("the price's bytes were not kept:\n%s", out)
	}
	c.Models[0].Price.Output = 2
	out = mustMarshal(t, c)
	if again := mustParse(t, out); again.Models[0].Price == nil || again.Models[0].Price.Output != 2 || again.Models[0].Price.CachedInput != 0.1 {
		t.Fatalf("edited price not written:\n%s", out)
	}
	c.Models[0].Price.Input = -1
	var ps Problems
	if err := c.Validate(); !errors.As(err, &ps) || ps[0].Path != "models.fast.price" {
		t.Fatalf("negative price: %v", err)
	}
	for _, bad := range []struct{ price, path string }{
		{`{"input": -1}`, "models.a.price.input"},
		{`{"input": "3"}`, "models.a.price.input"},
		{`{"inptu": 3}`, "models.a.price.inptu"},
		{`[3, 15]`, "models.a.price"},
	} {
		_, err := Parse([]byte(`{"models": {"a": {"provider": "openai", "model": "m", "price": ` + bad.price + `}}}`))
		if !errors.As(err, &ps) || len(ps) != 1 || ps[0].Path != bad.path {
			t.Errorf("price %s: got %v, want one problem at %s", bad.price, err, bad.path)
		}
	}
}
