package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/cmdfile"
)

// `luagent ask "/NAME args"` sends the command file's prompt, expanded,
// to the model (the mock echoes it when it has no tools); its model is
// the run's unless --model; an unknown /word is a usage error naming the
// commands; a path and //text are prompts.
func TestAskSlashCommand(t *testing.T) {
	home := t.TempDir()
	repo := permRepo(t, "")
	writeFile(t, repo, ".luagent/commands/review.md", "---\ndescription: Review a file\nargument-hint: FILE\nmodel: mock\n---\nReview $ARGUMENTS carefully, starting with $1.\n")
	writeFile(t, home, "commands/frontend/test.md", "Test the $1 component")
	writeFile(t, repo, ".luagent/commands/broken.md", "---\ndescription: [\n---\nx")
	env := []string{"LUAGENT_HOME=" + home}
	for _, tc := range []struct {
		prompt, out string
		code        int
		errHas      []string
	}{
		{"/review src/x.go lib/y.go", "mock: Review src/x.go lib/y.go carefully, starting with src/x.go.", 0, []string{"broken.md: the front matter is not valid YAML"}},
		{"/test Button", "mock: Test the Button component", 0, []string{"no model configured"}},
		{"/frontend:test Menu", "mock: Test the Menu component", 0, nil},
		{"//review x", "mock: /review x", 0, nil},
		{"/tmp/x explain", "mock: /tmp/x explain", 0, nil},
		{"/tmp explain", "mock: /tmp explain", 0, nil},
		{"/nope a b", "", 2, []string{"luagent: unknown command /nope: the commands are /review, /test (", "//"}},
	} {
		r := luagentIn(t, repo, "", env, "ask", tc.prompt)
		if r.code != tc.code || !strings.Contains(r.stdout, tc.out) {
			t.Errorf("ask %q: exit %d\nstdout: %s\nstderr: %s", tc.prompt, r.code, r.stdout, r.stderr)
		}
		for _, s := range tc.errHas {
			if !strings.Contains(r.stderr, s) {
				t.Errorf("ask %q: stderr lacks %q:\n%s", tc.prompt, s, r.stderr)
			}
		}
		if tc.prompt == "/review src/x.go lib/y.go" && strings.Contains(r.stderr, "no model configured") {
			t.Errorf("the command's model: mock was not used:\n%s", r.stderr)
		}
		if tc.code == 2 && strings.Count(r.stderr, "\n") != 2 { // broken.md's line and the error
			t.Errorf("not one line each:\n%s", r.stderr)
		}
		noGoStack(t, r.stderr)
	}
	// stream-json input: a message "/NAME args" is the command's prompt.
	in := `{"type":"user","message":{"role":"user","content":"/test Card"}}
{"type":"user","message":{"role":"user","content":"/unknown stays"}}
`
	r0 := luagentIn(t, repo, in, env, "ask", "--output-format", "stream-json", "--input-format", "stream-json")
	if r0.code != 0 || !strings.Contains(r0.stdout, "mock: Test the Card component") || !strings.Contains(r0.stdout, "mock: /unknown stays") {
		t.Errorf("stream-json input: %+v", r0)
	}
	// stream-json's init names the commands, as Claude Code's does.
	r := luagentIn(t, repo, "", env, "ask", "--output-format", "stream-json", "/review a")
	if r.code != 0 || !strings.Contains(r.stdout, `"slash_commands":["review","test"]`) || !strings.Contains(r.stdout, "Review a carefully") {
		t.Errorf("stream-json: %+v", r)
	}
}

// A command's allowed-tools pre-approve its tools for that prompt, in a
// trusted project only (one line says they grant nothing otherwise); an
// untrusted project's .lua commands do not run (one line says so), a
// trusted one's compute the prompt.
func TestAskSlashTrust(t *testing.T) {
	home, notes := permHome(t, nil)
	repo := permRepo(t, "")
	writeFile(t, repo, ".luagent/commands/note.md", "---\nallowed-tools: mcp__srv__write, Bash(git add:*)\n---\nwrite text=$1")
	writeFile(t, repo, ".luagent/commands/calc.lua", `return {description = "computed", run = function(args, argv) return "computed " .. #argv .. ": " .. args end}`)
	env := []string{"LUAGENT_HOME=" + home}

	r := luagentIn(t, repo, "", env, "ask", "/note hi")
	if r.code != 0 || wrote(notes) || !strings.Contains(r.stderr, "allowed-tools grant nothing: the project folder is not trusted (luagent trust "+repo+")") {
		t.Fatalf("untrusted: exit %d, wrote %v\nstderr: %s", r.code, wrote(notes), r.stderr)
	}
	r = luagentIn(t, repo, "", env, "ask", "/calc a b")
	if r.code != 2 || !strings.Contains(r.stderr, ".lua command file(s) in "+filepath.Join(repo, ".luagent", "commands")+" not run: the project folder is not trusted") {
		t.Fatalf("untrusted lua: %+v", r)
	}
	if r := luagentIn(t, repo, "", env, "trust"); r.code != 0 {
		t.Fatalf("trust: %+v", r)
	}
	r = luagentIn(t, repo, "", env, "ask", "/note hi")
	if r.code != 0 || !wrote(notes) || !strings.Contains(r.stderr, "allowed-tools Bash(git add:*) name no luagent tool; skipped") {
		t.Fatalf("trusted: exit %d, wrote %v\nstderr: %s", r.code, wrote(notes), r.stderr)
	}
	os.Remove(notes)
	r = luagentIn(t, repo, "", env, "ask", "--json", "/calc a 'b c'")
	if r.code != 0 || !strings.Contains(r.stdout, `"computed 2: a 'b c'"`) {
		t.Fatalf("trusted lua: %+v", r)
	}
}

// A piped chat: /help lists the command files with their argument hint,
// description and source; /NAME args sends the expanded prompt (the mock
// echoes it); a built-in wins a shared name; a bad file is one line.
func TestChatFileCommands(t *testing.T) {
	home := t.TempDir()
	repo := permRepo(t, "")
	writeFile(t, repo, ".luagent/commands/review.md", "---\ndescription: Review a file\nargument-hint: FILE\nmodel: mock\n---\nReview $1 please")
	writeFile(t, repo, ".luagent/commands/help.md", "not the built-in")
	writeFile(t, repo, ".luagent/commands/broken.md", "---\ndescription: [\n---\nx")
	writeFile(t, home, "commands/git/commit.md", "---\ndescription: Commit\n---\nCommit: $ARGUMENTS")
	r := luagentIn(t, repo, "/help\n/review src/x.go\n/commit fix the bug\n", []string{"LUAGENT_HOME=" + home}, "chat", "--model", "mock")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"commands from files", "/review FILE", "Review a file (project)", "/commit", "Commit (user:git)",
		"mock: Review src/x.go please", "mock: Commit: fix the bug", "(/review runs on mock; then back to mock)"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "not the built-in") || !strings.Contains(r.stdout, "/quit") {
		t.Errorf("the built-in /help did not win:\n%s", r.stdout)
	}
	if strings.Count(r.stderr, "broken.md") != 1 {
		t.Errorf("the bad file is not one line:\n%s", r.stderr)
	}
}

// An agent file is offered to the main agent as a tool (its description
// the tool's), runs in-process with its own conversation when the model
// calls it, and its answer fires SubagentStop (config.json's command
// hook); a bad agent file is one line, the others load; an untrusted
// project's .lua agent is skipped with one line, a trusted one's runs.
func TestAskAgentFiles(t *testing.T) {
	home := t.TempDir()
	stops := filepath.Join(home, "stops.jsonl")
	writeFile(t, home, "config.json", `{"version": 1, "hooks": {"SubagentStop": [{"hooks": [{"type": "command", "command": "cat >> `+stops+`"}]}]}}`)
	repo := permRepo(t, "")
	writeFile(t, repo, ".luagent/agents/reviewer.md", "---\nname: code-reviewer\ndescription: Reviews code for bugs\ntools: Read, Grep\nmodel: inherit\n---\nYou review code.\n")
	writeFile(t, repo, ".luagent/agents/broken.md", "---\nname: [\n---\nx")
	writeFile(t, repo, ".luagent/agents/lua-helper.lua", `return agent.new{ name = "lua_helper", description = "A helper in Lua",
		model = function(req) return "helper saw: " .. req.system end, system = "HELPER SYSTEM" }`)
	env := []string{"LUAGENT_HOME=" + home}
	r := luagentIn(t, repo, "", env, "ask", "--model", "mock", `ask code-reviewer to review: prompt="check x.go"`)
	if r.code != 0 || !strings.Contains(r.stdout, `mock: check x.go`) || !strings.Contains(r.stderr, "code-reviewer") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "broken.md: the front matter is not valid YAML") || strings.Count(r.stderr, "broken.md") != 1 {
		t.Errorf("the bad file:\n%s", r.stderr)
	}
	if !strings.Contains(r.stderr, "1 .lua agent file(s) in "+filepath.Join(repo, ".luagent", "agents")+" not run: the project folder is not trusted") {
		t.Errorf("untrusted lua agent:\n%s", r.stderr)
	}
	b, _ := os.ReadFile(stops)
	if !strings.Contains(string(b), `"hook_event_name":"SubagentStop"`) {
		t.Errorf("SubagentStop did not fire: %q", b)
	}
	if r := luagentIn(t, repo, "", env, "trust"); r.code != 0 {
		t.Fatalf("trust: %+v", r)
	}
	writeFile(t, repo, ".luagent/agents/boom.lua", `error("boom")`)
	r = luagentIn(t, repo, "", env, "ask", "--model", "mock", `ask the lua_helper helper in Lua: prompt=hi`)
	if r.code != 0 || !strings.Contains(r.stdout, "helper saw: HELPER SYSTEM") || strings.Contains(r.stderr, "not trusted") ||
		!strings.Contains(r.stderr, "boom.lua") || !strings.Contains(r.stderr, "boom") || strings.Count(r.stderr, "boom.lua") != 1 {
		t.Fatalf("trusted lua agent: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
}

// On a terminal, Tab completes a command file's name and the line runs it.
func TestTTYChatFileCommandTab(t *testing.T) {
	home := t.TempDir()
	repo := permRepo(t, "")
	writeFile(t, repo, ".luagent/commands/review-file.md", "---\ndescription: Review a file\n---\nReview $1 now")
	tt := startTTYIn(t, repo, []string{"LUAGENT_HOME=" + home}, "chat", "--model", "mock")
	m := tt.wait(0, "> ")
	tt.send("/review-\t")
	m = tt.wait(m, "/review-file")
	tt.send(" x.go\r")
	m = tt.wait(m, "mock: Review x.go now", "> ")
	tt.send("/quit\r")
	tt.exited()
}

// A stream-json or ACP message treats a doubled slash as ask does: the
// text with one slash, never a command.
func TestSlashPromptDoubledSlash(t *testing.T) {
	if got, err := slashPrompt(context.Background(), "//review is a word"); err != nil || got != "/review is a word" {
		t.Fatalf("%q %v", got, err)
	}
	if name, first, args, ok := cmdfile.Call("/review\nthe body"); !ok || name != "review" || first != "/review" || args != "the body" {
		t.Fatalf("%q %q %q %v", name, first, args, ok)
	}
}

// An agent file on the main agent's model says nothing of a missing key:
// the run says it once. One with a model of its own whose key is missing
// is named, and the run goes on without it.
func TestAgentFileMissingKeyToldOnce(t *testing.T) {
	home := t.TempDir()
	repo := permRepo(t, "")
	writeFile(t, repo, ".luagent/agents/helper.md", "---\nname: helper\ndescription: Helps\nmodel: inherit\n---\nYou help.\n")
	env := []string{"LUAGENT_HOME=" + home, "OPENAI_API_KEY=", "ANTHROPIC_API_KEY="}
	r := luagentIn(t, repo, "", env, "ask", "--model", "openai:gpt-4.1-mini", "hi")
	if r.code == 0 || strings.Count(r.stderr, "OPENAI_API_KEY") != 1 || strings.Contains(r.stderr, "helper.md") {
		t.Errorf("inherited model without its key: exit %d\n%s", r.code, r.stderr)
	}
	writeFile(t, repo, ".luagent/agents/other.md", "---\nname: other\ndescription: Elsewhere\nmodel: anthropic:claude-haiku-4-5\n---\nYou help.\n")
	r = luagentIn(t, repo, "", env, "ask", "--model", "mock", "hi")
	if r.code != 0 || !strings.Contains(r.stderr, "other.md") || !strings.Contains(r.stderr, "ANTHROPIC_API_KEY") || strings.Contains(r.stderr, "helper.md") {
		t.Errorf("a model of its own without its key: exit %d\n%s", r.code, r.stderr)
	}
}
