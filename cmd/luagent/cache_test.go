package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/luagent/luagent/runtime/cachestub"
)

// cacheEndpoint is the cache-aware Anthropic stand-in, recording the
// request bodies: a question gets a call of srv__echo, its result an
// answer.
func cacheEndpoint(t *testing.T) (*httptest.Server, *cachestub.Stub, func() []string) {
	stub := cachestub.New(cachestub.Options{Reply: func(r *cachestub.Request) cachestub.Reply {
		last := r.Messages[len(r.Messages)-1]
		if last.Blocks[len(last.Blocks)-1]["type"] == "tool_result" {
			return cachestub.Reply{Text: "the server answered"}
		}
		return cachestub.Reply{Calls: []cachestub.Call{{ID: "toolu_" + strings.Repeat("x", len(r.Messages)), Name: "srv__echo", Input: json.RawMessage(`{"message":"hi"}`)}}}
	}})
	var mu sync.Mutex
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(b))
		stub.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, stub, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), bodies...) }
}

// Two separate runs send the same bytes (tools, system prompt with the
// project memory, the question), so the second reads the first's cache;
// ten runs continuing one session (-c) read most of their input from it.
func TestAskPromptCache(t *testing.T) {
	home, _ := askHome(t)
	var memo strings.Builder
	for i := range 80 {
		memo.WriteString("- Project rule " + strings.Repeat("x", i%7) + ": keep the tests green and the changes small.\n")
	}
	writeFile(t, home, "AGENTS.md", "# Project notes\n"+memo.String())
	dir := t.TempDir()
	srv, stub, bodies := cacheEndpoint(t)
	env := []string{"LUAGENT_HOME=" + home, "ANTHROPIC_BASE_URL=" + srv.URL, "ANTHROPIC_API_KEY=ak-test", "LUAGENT_MODEL=anthropic:claude-test", "DISABLE_PROMPT_CACHING="}

	for i := range 2 {
		if r := luagentIn(t, dir, "", env, "ask", "please echo hi"); r.code != 0 || r.stdout != "the server answered\n" {
			t.Fatalf("run %d: exit %d\nstdout: %q\nstderr: %s", i+1, r.code, r.stdout, r.stderr)
		}
	}
	b := bodies()
	if len(b) != 4 || b[0] != b[2] || b[1] != b[3] {
		t.Fatalf("two runs sent different requests:\n%s\n%s", b[0], b[2])
	}
	if n := strings.Count(b[1], "cache_control"); n != 4 {
		t.Fatalf("%d breakpoints: %s", n, b[1])
	}
	if u := stub.Usages()[2]; u.CacheReadInputTokens == 0 || u.CacheReadInputTokens < u.Prompt()*9/10 {
		t.Fatalf("the second run's first request read %+v", u)
	}

	// Ten runs of one session, the first new, then -c, against a cold
	// cache.
	srv, stub, _ = cacheEndpoint(t)
	env[1] = "ANTHROPIC_BASE_URL=" + srv.URL
	before := 0
	var last string
	for i := range 10 {
		args := []string{"ask", "--output-format", "stream-json", "--verbose", "please echo hi"}
		if i > 0 {
			args = append([]string{"ask", "-c"}, args[1:]...)
		}
		r := luagentIn(t, dir, "", env, args...)
		if r.code != 0 {
			t.Fatalf("run %d: exit %d\nstderr: %s", i+1, r.code, r.stderr)
		}
		last = r.stdout
	}
	var prompt, read, written int
	for _, u := range stub.Usages()[before:] {
		prompt += u.Prompt()
		read += u.CacheReadInputTokens
		written += u.CacheCreationInputTokens
	}
	share := float64(read) / float64(prompt)
	t.Logf("10 runs of luagent ask (-c), %d requests: %d input tokens, %d read from the cache (%.1f%%), %d written",
		len(stub.Usages())-before, prompt, read, 100*share, written)
	if share < 0.8 {
		t.Errorf("the cache served %.1f%% of the input, want > 80%%", 100*share)
	}
	// stream-json's result has Claude Code's usage: input_tokens uncached.
	lines := strings.Split(strings.TrimSpace(last), "\n")
	var res struct {
		Usage struct {
			Input int `json:"input_tokens"`
			Read  int `json:"cache_read_input_tokens"`
			Write int `json:"cache_creation_input_tokens"`
		} `json:"usage"`
		ModelUsage map[string]struct {
			Read int `json:"cacheReadInputTokens"`
		} `json:"modelUsage"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil {
		t.Fatal(err)
	}
	us := stub.Usages()
	want := us[len(us)-2].CacheReadInputTokens + us[len(us)-1].CacheReadInputTokens
	if res.Usage.Read != want || res.ModelUsage["anthropic:claude-test"].Read != want || res.Usage.Input != us[len(us)-2].InputTokens+us[len(us)-1].InputTokens {
		t.Fatalf("result usage %+v %+v, the stand-in's last two %+v", res.Usage, res.ModelUsage, us[len(us)-2:])
	}
}
