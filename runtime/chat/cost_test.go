package chat

import (
	"strings"
	"testing"

	ragent "github.com/luagent/luagent/runtime/agent"
)

func TestCostReport(t *testing.T) {
	priced := ragent.ModelUsage{Usage: ragent.Usage{InputTokens: 1200, OutputTokens: 80, CacheReadTokens: 900, CacheWriteTokens: 100}, Requests: 3, CostUSD: 0.0123}
	free := ragent.ModelUsage{Usage: ragent.Usage{InputTokens: 40, OutputTokens: 4}, Requests: 1, Unpriced: true}
	for _, tc := range []struct {
		name string
		c    ragent.Costs
		want []string
	}{
		{"none", ragent.Costs{}, []string{"no model requests yet"}},
		{"priced", ragent.Costs{TotalUSD: 0.0123, Models: map[string]ragent.ModelUsage{"anthropic:claude-sonnet-4-5": priced}},
			[]string{"anthropic:claude-sonnet-4-5", "1200", "900", "100", "80", "$0.0123", "total: $0.0123"}},
		{"mixed", ragent.Costs{TotalUSD: 0.0123, Unpriced: true, Models: map[string]ragent.ModelUsage{"a": priced, "mock": free}},
			[]string{"unknown", "total: $0.0123 and unknown (no price known for mock"}},
		{"all unknown", ragent.Costs{Unpriced: true, Models: map[string]ragent.ModelUsage{"mock\x1b[2J": free}},
			[]string{"total: unknown", `mock\x1b[2J`}},
	} {
		got := CostReport(tc.c)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: lacks %q:\n%s", tc.name, w, got)
			}
		}
		if strings.Contains(got, "\x1b") || (tc.name != "none" && strings.Contains(got, "$0\n")) {
			t.Errorf("%s:\n%s", tc.name, got)
		}
	}
}
