package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/luagent/luagent/runtime/testkit"
)

// helpExamples are the example lines of every command's --help.
func helpExamples(t *testing.T) []string {
	code := 0
	root, o := newRoot(&code, strings.NewReader(""), io.Discard, io.Discard)
	declareAll(o)
	var out []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		_, ex, found := strings.Cut(helpText(c), "\nexamples:\n")
		if found {
			ex, _, _ = strings.Cut(ex, "\n\n")
			for _, l := range strings.Split(strings.TrimSpace(ex), "\n") {
				out = append(out, strings.TrimSpace(l))
			}
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	return out
}

// exampleSubstitutes are the examples that cannot run as printed in a
// test, why, and what runs instead (the rest run as printed).
var exampleSubstitutes = map[string]struct{ why, instead string }{
	"luagent mcp add everything -- npx -y @modelcontextprotocol/server-everything": {
		"npx would fetch the package", "the pinned server-everything peer (testkit.Everything)"},
	`OPENAI_API_KEY=... luagent ask --model openai:gpt-4.1-mini "summarise README.md"`: {
		"needs an OpenAI key and the network", "--model mock"},
	"luagent chat --agent examples/agent.lua --model openai:gpt-4.1-mini": {
		"needs an OpenAI key and the network", "--model mock, one line piped"},
	"luagent chat": {"a conversation on a terminal", "one line piped"},
	"luagent chat --resume latest": {
		"continues a session saved earlier", "the session the chat examples saved, one line piped"},
	"luagent serve examples/notes.lua --http 8081": {
		"serves until stopped, on a fixed port", "a free port, one tools/list, then stopped"},
	"luagent --set timer_seconds=5 mcp-server --agent-file examples/agents.lua --http 8081": {
		"serves until stopped, on a fixed port", "a free port, one tools/list, then stopped"},
	"npx @modelcontextprotocol/inspector bin/luagent serve examples/notes.lua": {
		"the Inspector's web UI", "the Inspector's headless --cli, tools/list"},
}

// Every example every command's --help prints runs (exit 0), as printed
// or as exampleSubstitutes says.
func TestHelpExamplesRun(t *testing.T) {
	root := testkit.RepoRoot(t)
	examples := helpExamples(t)
	if len(examples) < 15 {
		t.Fatalf("only %d examples found: %q", len(examples), examples)
	}
	// mcp add first (the other mcp examples use what it saves), a resumed
	// chat after the chats that save a session.
	rank := func(l string) int {
		switch {
		case strings.Contains(l, "mcp add"):
			return 0
		case strings.Contains(l, "--resume"):
			return 2
		}
		return 1
	}
	slices.SortStableFunc(examples, func(a, b string) int { return rank(a) - rank(b) })
	mcpHome, agentHome := filepath.Join(t.TempDir(), "mcp"), filepath.Join(t.TempDir(), "agent")
	// mcp import --dry-run looks in the user's folders: a HOME with a
	// Cursor configuration.
	home := t.TempDir()
	fixture, _ := os.ReadFile(importFixture("project/.cursor/mcp.json"))
	writeFile(t, home, ".cursor/mcp.json", string(fixture))
	for _, line := range examples {
		t.Run(line, func(t *testing.T) {
			env := []string{"LUAGENT_HOME=" + agentHome, "HOME=" + home, "LUAGENT_MODEL="}
			if strings.Contains(line, "luagent mcp ") {
				env[0] = "LUAGENT_HOME=" + mcpHome
			}
			sub, substituted := exampleSubstitutes[line]
			words, stdin := exampleWords(t, line)
			if substituted {
				t.Logf("%s: %s", sub.why, sub.instead)
				words, stdin = substitute(t, line, words, stdin, agentHome)
				if words == nil {
					return // run by substitute
				}
			}
			if words[0] != "luagent" {
				t.Fatalf("an example that is not a luagent command line needs an entry in exampleSubstitutes: %s", line)
			}
			r := luagentIn(t, root, stdin, env, words[1:]...)
			if r.code != 0 {
				t.Errorf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
			}
		})
	}
	for line := range exampleSubstitutes {
		if !slices.Contains(examples, line) {
			t.Errorf("exampleSubstitutes names an example --help no longer prints: %s", line)
		}
	}
}

// exampleWords splits an example: echo TEXT | becomes stdin, NAME=VALUE
// before the command is dropped (only a substitute may need it).
func exampleWords(t *testing.T, line string) ([]string, string) {
	stdin := ""
	if before, after, ok := strings.Cut(line, " | "); ok && strings.HasPrefix(before, "echo ") {
		w := shellWords(t, before)
		stdin, line = strings.Join(w[1:], " ")+"\n", after
	}
	words := shellWords(t, strings.ReplaceAll(line, "~/", "HOME/"))
	for len(words) > 0 && strings.Contains(words[0], "=") {
		words = words[1:]
	}
	return words, stdin
}

func replaceWord(words []string, old, new string) []string {
	for i, w := range words {
		if w == old {
			words[i] = new
		}
	}
	return words
}

// substitute runs (or rewrites) an example of exampleSubstitutes.
func substitute(t *testing.T, line string, words []string, stdin, agentHome string) ([]string, string) {
	switch {
	case strings.Contains(line, "server-everything"):
		cmd, args := testkit.Everything(t)
		return append([]string{"luagent", "mcp", "add", "everything", "--", cmd}, args...), stdin
	case strings.Contains(line, "openai:"):
		return replaceWord(words, "openai:gpt-4.1-mini", "mock"), "hello\n"
	case strings.Contains(line, "--resume"):
		sessions, _ := filepath.Glob(filepath.Join(agentHome, "sessions", "*.jsonl"))
		if len(sessions) == 0 {
			t.Fatal("the chat examples saved no session")
		}
		return words, "hello again\n"
	case line == "luagent chat":
		return words, "hello\n"
	case strings.Contains(line, "--http 8081"):
		words = replaceWord(words, "8081", "127.0.0.1:0")
		url := startServing(t, testkit.RepoRoot(t), []string{"LUAGENT_HOME=" + agentHome}, words[1:]...)
		listTools(t, "url = '"+url+"'")
		return nil, ""
	case strings.HasPrefix(line, "npx @modelcontextprotocol/inspector"):
		node, cli := testkit.Inspector(t)
		cmd := exec.Command(node, cli, "--cli", bin, "serve", filepath.Join(testkit.RepoRoot(t), "examples/notes.lua"), "--method", "tools/list")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), `"tools"`) {
			t.Errorf("inspector --cli: %v\n%s", err, out)
		}
		return nil, ""
	}
	t.Fatalf("no substitute for %s", line)
	return nil, ""
}

// listTools connects (conn is mcp.connect's fields) and lists the tools.
func listTools(t *testing.T, conn string) {
	r := luagent(t, "", nil, "-e", "local c = mcp.connect{"+conn+"}\nassert(#c:tools() > 0)\nprint('ok')\nc:close()")
	if r.code != 0 || r.stdout != "ok\n" {
		t.Errorf("tools/list: %+v", r)
	}
}

// startServing starts luagent ARGS (an HTTP server) in dir and returns its
// URL; the test's end stops it.
func startServing(t *testing.T, dir string, env []string, args ...string) string {
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			if _, url, ok := strings.Cut(sc.Text(), " at http://"); ok {
				url, _, _ = strings.Cut(url, " ")
				select {
				case urls <- "http://" + url:
				default:
				}
			}
		}
		close(urls)
	}()
	select {
	case url, ok := <-urls:
		if !ok {
			t.Fatalf("luagent %v exited without serving", args)
		}
		return url
	case <-time.After(20 * time.Second):
		t.Fatalf("luagent %v did not start", args)
	}
	return ""
}
