package cachestub_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/agent"
	"github.com/luagent/luagent/runtime/cachestub"
	"github.com/luagent/luagent/runtime/llm"
)

// script answers a new question with a call of read_file and a tool
// result with a short answer: each user turn is two model requests.
func script(r *cachestub.Request) cachestub.Reply {
	last := r.Messages[len(r.Messages)-1]
	b := last.Blocks[len(last.Blocks)-1]
	if b["type"] == "tool_result" {
		return cachestub.Reply{Text: "The file says what was asked; done."}
	}
	n := len(r.Messages)
	return cachestub.Reply{Text: "Let me look.", Calls: []cachestub.Call{{ID: fmt.Sprintf("toolu_%d", n), Name: "read_file",
		Input: json.RawMessage(fmt.Sprintf(`{"path":"src/file%d.go"}`, n))}}}
}

// session is a coding agent's: a system prompt of about 1500 tokens and
// eight tools with their schemas (about 1000 tokens more), each tool
// result about 300 tokens, as a project's would be.
func session(t testing.TB, stub *cachestub.Stub, cache bool) *agent.Agent {
	return sessionWith(t, stub, cache)
}

func sessionWith(t testing.TB, stub *cachestub.Stub, cache bool, opts ...func(*agent.Config)) *agent.Agent {
	srv := httptest.NewServer(stub)
	t.Cleanup(srv.Close)
	env := map[string]string{"ANTHROPIC_API_KEY": "sk-ant-test", "ANTHROPIC_BASE_URL": srv.URL}
	if !cache {
		env["DISABLE_PROMPT_CACHING"] = "1"
	}
	return sessionOf(t, "anthropic:claude-test", env, opts...)
}

// openaiSession is the same session on an OpenAI model (the stand-in's
// Chat Completions, with OpenAI's automatic caching).
func openaiSession(t testing.TB, stub *cachestub.Stub) *agent.Agent {
	srv := httptest.NewServer(stub.OpenAI())
	t.Cleanup(srv.Close)
	return sessionOf(t, "openai:gpt-test", map[string]string{"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": srv.URL + "/v1"})
}

func sessionOf(t testing.TB, spec string, env map[string]string, opts ...func(*agent.Config)) *agent.Agent {
	m, err := llm.New(spec, llm.Config{Lookup: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
	if err != nil {
		t.Fatal(err)
	}
	var system strings.Builder
	for i := range 60 {
		fmt.Fprintf(&system, "Rule %d: read the code before changing it, keep changes small, run the tests, and say what you did.\n", i)
	}
	var tools []agent.LocalTool
	for _, name := range []string{"write_file", "read_file", "grep", "glob", "run_tests", "edit_file", "list_dir", "git_diff"} {
		tools = append(tools, agent.LocalTool{
			Name:        name,
			Description: "The " + name + " tool of the workspace: " + strings.Repeat("it does what its name says, within the project folder only. ", 6),
			Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"a path relative to the project root"},` +
				`"limit":{"type":"integer","minimum":1,"description":"at most this many lines"},"pattern":{"type":"string","description":"a glob or a regular expression"}},"required":["path"]}`),
			Call: func(ctx context.Context, args json.RawMessage) (agent.Result, error) {
				return agent.TextResult("// "+string(args)+"\n"+strings.Repeat("func f() { return the code of the file, line by line }\n", 22), false), nil
			},
		})
	}
	cfg := agent.Config{Model: m, System: system.String(), Tools: tools, Yes: true}
	for _, o := range opts {
		o(&cfg)
	}
	return agent.New(cfg)
}

// share runs turns user turns and is the share of the input tokens the
// cache served, from the usage the agent reports.
func share(t testing.TB, a *agent.Agent, turns int) (u agent.Usage, requests int) {
	for i := range turns {
		_, tr, err := a.Ask(context.Background(), fmt.Sprintf("Question %d: what does file %d do?", i, i))
		if err != nil {
			t.Fatal(err)
		}
		u.InputTokens += tr.Usage.InputTokens
		u.OutputTokens += tr.Usage.OutputTokens
		u.CacheReadTokens += tr.Usage.CacheReadTokens
		u.CacheWriteTokens += tr.Usage.CacheWriteTokens
		requests += len(tr.Turns)
	}
	return u, requests
}

// TestSessionCachedShare: a 10-turn session with tools, through the agent
// loop and the Anthropic provider against the stand-in; most of the
// input tokens are cache reads.
func TestSessionCachedShare(t *testing.T) {
	stub := cachestub.New(cachestub.Options{Reply: script})
	u, requests := share(t, session(t, stub, true), 10)
	if requests != 20 {
		t.Fatalf("%d model requests, want 20", requests)
	}
	// The agent's usage is the provider's: the stand-in's, summed.
	var sum cachestub.Usage
	for _, w := range stub.Usages() {
		sum.InputTokens += w.Prompt()
		sum.CacheReadInputTokens += w.CacheReadInputTokens
		sum.CacheCreationInputTokens += w.CacheCreationInputTokens
	}
	if sum.InputTokens != u.InputTokens || sum.CacheReadInputTokens != u.CacheReadTokens || sum.CacheCreationInputTokens != u.CacheWriteTokens {
		t.Fatalf("agent usage %+v, the stand-in's %+v", u, sum)
	}
	got := float64(u.CacheReadTokens) / float64(u.InputTokens)
	t.Logf("10 user turns, %d requests: %d input tokens, %d read from the cache (%.1f%%), %d written, %d uncached",
		requests, u.InputTokens, u.CacheReadTokens, 100*got, u.CacheWriteTokens, u.InputTokens-u.CacheReadTokens-u.CacheWriteTokens)
	if got < 0.80 {
		t.Fatalf("the cache served %.1f%% of the input tokens, want > 80%%", 100*got)
	}
	readsPrevious(t, stub.Usages())
}

// readsPrevious: every request reads at least what the one before it
// cached.
func readsPrevious(t *testing.T, us []cachestub.Usage) {
	t.Helper()
	for i := 1; i < len(us); i++ {
		if prev := us[i-1]; us[i].CacheReadInputTokens < prev.CacheReadInputTokens+prev.CacheCreationInputTokens {
			t.Errorf("request %d read %d tokens, less than the %d the one before cached", i+1, us[i].CacheReadInputTokens, prev.CacheReadInputTokens+prev.CacheCreationInputTokens)
		}
	}
}

// BenchmarkSession20: the prompt tokens (uncached, read from the cache,
// written to it) and model requests of a 20-turn session with tools (40
// model requests), with the breakpoints and without
// (DISABLE_PROMPT_CACHING), and on OpenAI's automatic caching.
// input-units weighs the tokens as Anthropic bills them: uncached 1,
// cache read 0.1, cache write 1.25 (OpenAI bills a cached token at 0.5
// or less, and no writes).
func BenchmarkSession20(b *testing.B) {
	for _, run := range []string{"anthropic/cache=true", "anthropic/cache=false", "openai/auto"} {
		b.Run(run, func(b *testing.B) {
			var u agent.Usage
			var requests int
			for b.Loop() {
				stub := cachestub.New(cachestub.Options{Reply: script})
				a := session(b, stub, run == "anthropic/cache=true")
				if run == "openai/auto" {
					a = openaiSession(b, stub)
				}
				u, requests = share(b, a, 20)
			}
			uncached := u.InputTokens - u.CacheReadTokens - u.CacheWriteTokens
			b.ReportMetric(float64(requests), "requests/op")
			b.ReportMetric(float64(u.InputTokens), "prompt-tokens/op")
			b.ReportMetric(float64(uncached), "uncached-tokens/op")
			b.ReportMetric(float64(u.CacheReadTokens), "cache-read-tokens/op")
			b.ReportMetric(float64(u.CacheWriteTokens), "cache-write-tokens/op")
			b.ReportMetric(100*float64(u.CacheReadTokens)/float64(u.InputTokens), "cached-%")
			b.ReportMetric(float64(uncached)+0.1*float64(u.CacheReadTokens)+1.25*float64(u.CacheWriteTokens), "input-units/op")
		})
	}
}

// More than the API's 20-block lookback between two requests (a dozen
// parallel calls and their results): the breakpoint where the previous
// request ended still finds its cache.
func TestSessionParallelCalls(t *testing.T) {
	wide := func(r *cachestub.Request) cachestub.Reply {
		last := r.Messages[len(r.Messages)-1]
		if last.Blocks[len(last.Blocks)-1]["type"] == "tool_result" {
			return cachestub.Reply{Text: "done"}
		}
		var calls []cachestub.Call
		for i := range 12 {
			calls = append(calls, cachestub.Call{ID: fmt.Sprintf("toolu_%d_%d", len(r.Messages), i), Name: "grep",
				Input: json.RawMessage(fmt.Sprintf(`{"path":"dir%d"}`, i))})
		}
		return cachestub.Reply{Text: "Searching.", Calls: calls}
	}
	stub := cachestub.New(cachestub.Options{Reply: wide})
	u, requests := share(t, session(t, stub, true), 3)
	if requests != 6 {
		t.Fatalf("%d requests", requests)
	}
	readsPrevious(t, stub.Usages())
	t.Logf("%d input tokens, %d read", u.InputTokens, u.CacheReadTokens)
}

// TestOpenAISessionCachedShare: the same session on an OpenAI model; the
// provider caches on its own, and the agent reports what it read
// (prompt_tokens_details.cached_tokens).
func TestOpenAISessionCachedShare(t *testing.T) {
	stub := cachestub.New(cachestub.Options{Reply: script})
	u, requests := share(t, openaiSession(t, stub), 10)
	var read int
	for _, w := range stub.Usages() {
		read += w.CacheReadInputTokens
	}
	if requests != 20 || read != u.CacheReadTokens || u.CacheWriteTokens != 0 {
		t.Fatalf("%d requests, agent usage %+v, the stand-in read %d", requests, u, read)
	}
	got := float64(u.CacheReadTokens) / float64(u.InputTokens)
	t.Logf("OpenAI, 10 user turns, %d requests: %d input tokens, %d cached (%.1f%%)", requests, u.InputTokens, u.CacheReadTokens, 100*got)
	if got < 0.80 {
		t.Fatalf("the cache served %.1f%% of the input tokens, want > 80%%", 100*got)
	}
}

// The tools reach the provider in one order (by name, canonical schemas)
// whatever order they come in: here they are rotated before every
// request, and the prefixes are still read.
func TestToolOrderDoesNotBreakTheCache(t *testing.T) {
	n := 0
	rotate := func(c *agent.Config) {
		c.BeforeModel = func(_ context.Context, r *llm.Request) {
			n++
			k := n % len(r.Tools)
			r.Tools = append(r.Tools[k:], r.Tools[:k]...)
		}
	}
	for _, p := range []struct {
		name string
		new  func(*cachestub.Stub) *agent.Agent
	}{
		{"anthropic", func(stub *cachestub.Stub) *agent.Agent {
			srv := httptest.NewServer(stub)
			t.Cleanup(srv.Close)
			return sessionOf(t, "anthropic:claude-test", map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": srv.URL}, rotate)
		}},
		{"openai", func(stub *cachestub.Stub) *agent.Agent {
			srv := httptest.NewServer(stub.OpenAI())
			t.Cleanup(srv.Close)
			return sessionOf(t, "openai:gpt-test", map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": srv.URL + "/v1"}, rotate)
		}},
	} {
		t.Run(p.name, func(t *testing.T) {
			stub := cachestub.New(cachestub.Options{Reply: script})
			u, _ := share(t, p.new(stub), 3)
			if got := float64(u.CacheReadTokens) / float64(u.InputTokens); got < 0.6 {
				t.Fatalf("the cache served %.1f%% of %+v", 100*got, u)
			}
			for i, w := range stub.Usages()[1:] {
				if w.CacheReadInputTokens == 0 {
					t.Errorf("request %d read nothing: %+v", i+2, w)
				}
			}
		})
	}
}
