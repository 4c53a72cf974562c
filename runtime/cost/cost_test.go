package cost

import (
	"math"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestOf(t *testing.T) {
	for _, tc := range []struct {
		name, model string
		u           Usage
		want        float64
		known       bool
	}{
		{"sonnet plain", "claude-sonnet-4-5", Usage{InputTokens: 1_000_000, OutputTokens: 1_000_000}, 3 + 15, true},
		{"dated snapshot", "claude-sonnet-4-20250514", Usage{InputTokens: 2000, OutputTokens: 100}, (2000*3 + 100*15) / 1e6, true},
		{"alias -0", "claude-opus-4-0", Usage{InputTokens: 1000}, 1000 * 15 / 1e6, true},
		{"spec prefix", "anthropic:claude-haiku-4-5-20251001", Usage{OutputTokens: 1000}, 1000 * 5 / 1e6, true},
		{"latest alias", "claude-3-5-haiku-latest", Usage{InputTokens: 1000}, 1000 * 0.8 / 1e6, true},
		{"router vendor", "anthropic/claude-opus-4-5", Usage{InputTokens: 1000}, 1000 * 5 / 1e6, true},
		{"openai dated", "openai:gpt-4.1-2025-04-14", Usage{InputTokens: 1000, OutputTokens: 1000}, (1000*2 + 1000*8) / 1e6, true},
		{"mini not the bigger", "gpt-4.1-mini", Usage{InputTokens: 1_000_000}, 0.40, true},
		{"case", "GPT-4o", Usage{OutputTokens: 1_000_000}, 10, true},
		{"cache parts anthropic", "claude-sonnet-4", Usage{InputTokens: 10_000, CacheReadTokens: 6000, CacheWriteTokens: 3000, OutputTokens: 500},
			(1000*3 + 6000*0.30 + 3000*3.75 + 500*15) / 1e6, true},
		{"cached openai", "gpt-4.1-nano", Usage{InputTokens: 4000, CacheReadTokens: 3000}, (1000*0.10 + 3000*0.025) / 1e6, true},
		{"cache over input", "gpt-4o", Usage{InputTokens: 10, CacheReadTokens: 20}, 20 * 1.25 / 1e6, true},
		{"unknown", "openai:o3-mini", Usage{InputTokens: 1000}, 0, false},
		{"mock", "mock", Usage{InputTokens: 1000}, 0, false},
		{"local", "ollama:llama3.2", Usage{InputTokens: 1000}, 0, false},
		{"empty", "", Usage{}, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, known := Of(tc.model, tc.u)
			if known != tc.known || !near(got, tc.want) {
				t.Fatalf("Of(%q, %+v) = %v, %v; want %v, %v", tc.model, tc.u, got, known, tc.want, tc.known)
			}
		})
	}
}

func TestTable(t *testing.T) {
	var nilT *Table
	if _, ok := nilT.Lookup("gpt-4o"); !ok {
		t.Fatal("nil table lacks the built-in prices")
	}
	tb := &Table{}
	tb.Set("fast", Price{Input: 1, Output: 2})
	tb.Set("gpt-4o", Price{Input: 100}) // configured wins over the list price
	if got, ok := tb.Of("fast", Usage{InputTokens: 1_000_000, OutputTokens: 1_000_000}); !ok || !near(got, 3) {
		t.Fatalf("fast = %v %v", got, ok)
	}
	if got, ok := tb.Of("gpt-4o", Usage{InputTokens: 1_000_000}); !ok || !near(got, 100) {
		t.Fatalf("gpt-4o = %v %v", got, ok)
	}
	if _, ok := tb.Of("slow", Usage{}); ok {
		t.Fatal("slow is not priced")
	}
}

func TestCheck(t *testing.T) {
	if err := (Price{Input: 1}).Check(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []Price{{Input: -1}, {Output: math.NaN()}, {CacheWrite: math.Inf(1)}} {
		if (p).Check() == nil {
			t.Errorf("%+v passed", p)
		}
	}
}

func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		usd   float64
		known bool
		want  string
	}{{0, false, "unknown"}, {0, true, "$0"}, {0.00123, true, "$0.0012"}, {1.5, true, "$1.50"},
		{0.00003, true, "<$0.0001"}, {0.00005, true, "$0.0001"}, {-0.0, true, "$0"}} {
		if got := Format(tc.usd, tc.known); got != tc.want {
			t.Errorf("Format(%v,%v) = %q, want %q", tc.usd, tc.known, got, tc.want)
		}
	}
}

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"claude-sonnet-4-20250514", "gpt-4.1-2025-04-14", "a:b/c-latest", "-", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := Normalize(s)
		if len(n) > len(s) {
			t.Fatalf("normalize(%q) = %q grew", s, n)
		}
	})
}

func BenchmarkOf(b *testing.B) {
	u := Usage{InputTokens: 12000, CacheReadTokens: 9000, OutputTokens: 400}
	for b.Loop() {
		Of("anthropic:claude-sonnet-4-20250514", u)
	}
}
