package llm

import (
	"strings"

	"github.com/luagent/luagent/runtime/cost"
)

// knownWindows are the context windows (tokens) of models luagent knows,
// by the provider's model name's prefix; the longest prefix wins.
var knownWindows = []struct {
	prefix string
	tokens int
}{
	{"claude-", 200000},
	{"gpt-4.1", 1047576},
	{"gpt-4o", 128000},
	{"gpt-5", 400000},
	{"o3", 200000},
	{"o4-mini", 200000},
}

// KnownWindow is the context window, in tokens, of a model luagent knows
// by name: the provider's model name ("gpt-4.1-mini") or a spec
// ("openai:gpt-4.1-mini", "anthropic:claude-sonnet-4-5"). 0 is unknown
// (a local model, the mock): nothing is compacted automatically unless a
// window is configured (config.json's models.NAME.contextWindow,
// --context-window, agent.new's context_window).
func KnownWindow(model string) int {
	model = cost.Normalize(model) // as the price table reads it: no spec, vendor or date
	best, n := 0, 0
	for _, k := range knownWindows {
		if strings.HasPrefix(model, k.prefix) && len(k.prefix) > n {
			best, n = k.tokens, len(k.prefix)
		}
	}
	return best
}

// WindowOf is the context window of the model a spec names: a configured
// model's ContextWindow, else KnownWindow of its model name (0: unknown).
func WindowOf(spec string, models map[string]ModelConfig) int {
	if mc, ok := models[spec]; ok {
		if mc.ContextWindow > 0 {
			return mc.ContextWindow
		}
		return KnownWindow(mc.Model)
	}
	return KnownWindow(spec)
}
