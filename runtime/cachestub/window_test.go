package cachestub_test

import (
	"fmt"
	"testing"

	"github.com/luagent/luagent/runtime/agent"
	"github.com/luagent/luagent/runtime/cachestub"
)

// summarizing answers a request without tools (the compaction's summary
// request) with a summary, and the session's requests as script does.
func summarizing(r *cachestub.Request) cachestub.Reply {
	if len(r.Tools) == 0 {
		return cachestub.Reply{Text: "Summary: the user asked what files do; each was read and explained."}
	}
	return script(r)
}

// window20 runs the 20-turn session of BenchmarkSession20 on the
// Anthropic stand-in, with or without compaction (an 8000-token window:
// compacted from 6400 input tokens on) and the cache breakpoints. It
// returns the usage the provider reported for every request, summary
// requests included.
func window20(t testing.TB, compaction, cache bool) (u cachestub.Usage, requests, largest int) {
	stub := cachestub.New(cachestub.Options{Reply: summarizing})
	var a *agent.Agent
	if compaction {
		a = sessionWith(t, stub, cache, func(c *agent.Config) { c.ContextWindow = 8000 })
	} else {
		a = sessionWith(t, stub, cache, func(c *agent.Config) { c.NoCompaction = true })
	}
	share(t, a, 20)
	for _, w := range stub.Usages() {
		u.InputTokens += w.Prompt()
		u.CacheReadInputTokens += w.CacheReadInputTokens
		u.CacheCreationInputTokens += w.CacheCreationInputTokens
		u.OutputTokens += w.OutputTokens
		largest = max(largest, w.Prompt())
	}
	return u, len(stub.Usages()), largest
}

// TestWindow20: compaction bounds the largest request, and caching still
// serves most of the input of a compacting session.
func TestWindow20(t *testing.T) {
	full, _, fullLargest := window20(t, false, true)
	comp, requests, largest := window20(t, true, true)
	if largest > 8000 || fullLargest <= 8000 {
		t.Fatalf("largest request %d with compaction (window 8000), %d without", largest, fullLargest)
	}
	if comp.InputTokens >= full.InputTokens {
		t.Fatalf("compaction sent %d prompt tokens, no fewer than %d without", comp.InputTokens, full.InputTokens)
	}
	if requests <= 40 {
		t.Fatalf("%d requests: no summary request was made", requests)
	}
	if s := float64(comp.CacheReadInputTokens) / float64(comp.InputTokens); s < 0.5 {
		t.Fatalf("with compaction the cache served %.1f%%", 100*s)
	}
}

// BenchmarkSession20Window: prompt tokens and model requests of the
// 20-turn session with and without compaction and caching, side by side.
func BenchmarkSession20Window(b *testing.B) {
	for _, compaction := range []bool{false, true} {
		for _, cache := range []bool{false, true} {
			b.Run(fmt.Sprintf("compaction=%v/cache=%v", compaction, cache), func(b *testing.B) {
				var u cachestub.Usage
				var requests, largest int
				for b.Loop() {
					u, requests, largest = window20(b, compaction, cache)
				}
				uncached := u.InputTokens - u.CacheReadInputTokens - u.CacheCreationInputTokens
				b.ReportMetric(float64(requests), "requests/op")
				b.ReportMetric(float64(u.InputTokens), "prompt-tokens/op")
				b.ReportMetric(float64(largest), "largest-request")
				b.ReportMetric(100*float64(u.CacheReadInputTokens)/float64(u.InputTokens), "cached-%")
				b.ReportMetric(float64(uncached)+0.1*float64(u.CacheReadInputTokens)+1.25*float64(u.CacheCreationInputTokens), "input-units/op")
			})
		}
	}
}
