package llm

import "testing"

func TestKnownWindow(t *testing.T) {
	for _, tc := range []struct {
		model string
		want  int
	}{
		{"claude-sonnet-4-5", 200000},
		{"anthropic:claude-opus-4-1", 200000},
		{"openai:gpt-4.1-mini", 1047576},
		{"gpt-4o-mini", 128000},
		{"gpt-5", 400000},
		{"o3", 200000},
		{"o4-mini", 200000},
		{"openai:anthropic/claude-sonnet-4", 200000}, // a router's vendor/model name, as prices take it
		{"mock", 0},
		{"ollama:llama3.2", 0},
		{"", 0},
	} {
		if got := KnownWindow(tc.model); got != tc.want {
			t.Errorf("KnownWindow(%q) = %d, want %d", tc.model, got, tc.want)
		}
	}
	models := map[string]ModelConfig{"work": {Provider: "anthropic", Model: "claude-sonnet-4-5"}, "big": {Provider: "anthropic", Model: "claude-sonnet-4-5", ContextWindow: 1000000}}
	if WindowOf("work", models) != 200000 || WindowOf("big", models) != 1000000 || WindowOf("openai:gpt-4o", models) != 128000 || WindowOf("local", models) != 0 {
		t.Error("WindowOf")
	}
}
