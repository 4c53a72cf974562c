package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/testkit"
)

// contextAgent's model reports 900 input tokens a request and answers
// with what the conversation starts with; its summariser is Lua's.
const contextAgent = `
return agent.new{ hub = false, model = function(req)
  return { text = "seen " .. req.messages[1].parts[1].text:sub(1, 60), usage = { input_tokens = 900, output_tokens = 2 } }
end, summarize = function(messages, focus) return "SUMMARY of " .. #messages .. " focus=" .. focus end }
`

// luagent chat --context-window: at 80% of it the conversation is
// compacted before the next request (said on the terminal); /context says
// where the tokens go; /compact FOCUS compacts on demand.
func TestChatCompactAndContext(t *testing.T) {
	home := t.TempDir()
	file := writeFile(t, home, "agent.lua", contextAgent)
	r := luagent(t, "one\ntwo\nthree\n/context\n/compact the numbers\nfour\n", []string{"LUAGENT_HOME=" + home}, "chat", "--context-window", "1000", "--agent", file)
	out := r.stdout + r.stderr
	for _, want := range []string{
		"seen one", "compacted 2 messages into a summary, kept the last 3",
		"seen [The conversation before this point was compacted",
		"window 1000 tokens", "tool results", "last request: 900 input tokens", "estimates are bytes/4; compacted once",
		"compacted 1 message into a summary, kept the last 4",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if r.code != 0 {
		t.Errorf("exit %d", r.code)
	}
}

func TestContextWindowFlag(t *testing.T) {
	r := luagent(t, "", []string{"LUAGENT_HOME=" + t.TempDir()}, "ask", "--context-window", "lots", "hi")
	if r.code != 2 || !strings.Contains(r.stderr, "--context-window must be a whole number of tokens") {
		t.Errorf("%+v", r)
	}
}

// ask --output-format stream-json says a compaction as the Agent SDK's
// compact_boundary system message (type-checked as SDKCompactBoundaryMessage
// when scripts/sdktypes is installed).
func TestAskStreamJSONCompactBoundary(t *testing.T) {
	home := t.TempDir()
	file := writeFile(t, home, "agent.lua", contextAgent)
	var in strings.Builder
	for _, p := range []string{"one", "two", "three"} {
		in.WriteString(`{"type":"user","message":{"role":"user","content":"` + p + `"}}` + "\n")
	}
	r := luagent(t, in.String(), []string{"LUAGENT_HOME=" + home}, "ask", "--agent", file, "--context-window", "1000",
		"--output-format", "stream-json", "--input-format", "stream-json")
	var line string
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.Contains(l, `"compact_boundary"`) {
			line = l
		}
	}
	if r.code != 0 || !strings.Contains(line, `"compact_metadata":{"trigger":"auto","pre_tokens":900,`) {
		t.Fatalf("exit %d, boundary %q:\n%s\n%s", r.code, line, r.stdout, r.stderr)
	}
	dir := filepath.Join(testkit.RepoRoot(t), "scripts", "sdktypes")
	node, err := exec.LookPath("node")
	if _, serr := os.Stat(filepath.Join(dir, "node_modules", "typescript", "package.json")); serr != nil || err != nil {
		t.Skip("scripts/sdktypes is not installed (or node is not on PATH)")
	}
	out, err := exec.Command(node, filepath.Join(dir, "check.mjs"), writeFile(t, t.TempDir(), "run.jsonl", r.stdout)).CombinedOutput()
	if err != nil {
		t.Fatalf("the Agent SDK's types refuse it: %v\n%s", err, out)
	}
}

// A PreCompact command hook from config.json (Claude Code's format) runs
// before each compaction with the trigger and the focus on stdin; one
// that exits 2 keeps the conversation whole.
func TestPreCompactCommandHook(t *testing.T) {
	home := t.TempDir()
	log := filepath.Join(home, "precompact.jsonl")
	writeFile(t, home, "config.json", `{"version": 1, "mcpServers": {}, "hooks": {"PreCompact": [
  {"matcher": "auto", "hooks": [{"type": "command", "command": "cat >> '`+log+`'; echo >> '`+log+`'"}]},
  {"matcher": "manual", "hooks": [{"type": "command", "command": "cat >> '`+log+`'; echo >> '`+log+`'; echo 'not by hand' >&2; exit 2"}]}]}}`)
	file := writeFile(t, home, "agent.lua", contextAgent)
	r := luagent(t, "one\ntwo\nthree\n/compact keep names\n", []string{"LUAGENT_HOME=" + home}, "chat", "--context-window", "1000", "--agent", file)
	b, _ := os.ReadFile(log)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"hook_event_name":"PreCompact"`) || !strings.Contains(lines[0], `"trigger":"auto","custom_instructions":""`) ||
		!strings.Contains(lines[1], `"trigger":"manual","custom_instructions":"keep names"`) {
		t.Fatalf("the hook got:\n%s", b)
	}
	out := r.stdout + r.stderr
	if !strings.Contains(out, "compacted 2 messages") || !strings.Contains(out, "the conversation was not compacted: not by hand") {
		t.Errorf("exit %d:\n%s", r.code, out)
	}
}
