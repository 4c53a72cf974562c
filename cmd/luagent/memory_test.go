package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Project memory as a user meets it: AGENTS.md files in a repository and
// in LUAGENT_HOME reach the model's system prompt through luagent ask and
// chat; --no-memory and agent.new{memory = false} leave them out.

// echoSystem is an agent file whose model answers with the system prompt
// it was given.
const echoSystem = `
return agent.new{ hub = false, %s model = function(req)
  return { text = "SYSTEM<<" .. (req.system or "") .. ">>" }
end }
`

// memoryRepo is a repository (root/.git) with AGENTS.md at its root and
// in sub, a CLAUDE.md in sub, an AGENTS.md above the root that must not
// count, and a LUAGENT_HOME with the user's AGENTS.md and a catalog whose
// memoryFiles names CLAUDE.md.
func memoryRepo(t *testing.T) (home, sub string) {
	t.Helper()
	top := t.TempDir()
	writeFile(t, top, "AGENTS.md", "ABOVE THE REPO\n")
	root := filepath.Join(top, "repo")
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, "AGENTS.md", "ROOT RULE: run make test\n")
	sub = filepath.Join(root, "sub")
	writeFile(t, sub, "AGENTS.md", "SUB RULE: tabs, not spaces\n")
	writeFile(t, sub, "CLAUDE.md", "CLAUDE RULE: be brief\n")
	home = filepath.Join(top, "home")
	writeFile(t, home, "AGENTS.md", "USER RULE: answer in English\n")
	writeFile(t, home, "config.json", `{"version": 1, "mcpServers": {}, "memoryFiles": ["CLAUDE.md"]}`)
	return home, sub
}

func systemOf(t *testing.T, stdout string) string {
	t.Helper()
	m := regexp.MustCompile(`(?s)SYSTEM<<(.*)>>`).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no system prompt in %q", stdout)
	}
	return m[1]
}

// inOrder checks that each of want appears in s, in that order.
func inOrder(t *testing.T, s string, want ...string) {
	t.Helper()
	at := 0
	for _, w := range want {
		i := strings.Index(s[at:], w)
		if i < 0 {
			t.Fatalf("%q missing (or out of order) in:\n%s", w, s)
		}
		at += i + len(w)
	}
}

func TestAskProjectMemory(t *testing.T) {
	home, sub := memoryRepo(t)
	root := filepath.Dir(sub)
	env := []string{"LUAGENT_HOME=" + home}
	agentFile := writeFile(t, home, "echo.lua", strings.Replace(echoSystem, "%s", "", 1))

	r := luagentIn(t, sub, "", env, "ask", "--agent", agentFile, "hello")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	sys := systemOf(t, r.stdout)
	// The user's first, then the repository's root down to the working
	// folder, AGENTS.md before memoryFiles' names; each under its path.
	inOrder(t, sys, "# Project memory",
		"## "+filepath.Join(home, "AGENTS.md")+"\n\nUSER RULE",
		"## "+filepath.Join(root, "AGENTS.md")+"\n\nROOT RULE",
		"## "+filepath.Join(sub, "AGENTS.md")+"\n\nSUB RULE",
		"## "+filepath.Join(sub, "CLAUDE.md")+"\n\nCLAUDE RULE")
	if strings.Contains(sys, "ABOVE THE REPO") {
		t.Errorf("a file above the repository's root was read:\n%s", sys)
	}
	if r.stderr != "" {
		t.Errorf("stderr: %q", r.stderr)
	}
	// The same files give the same bytes.
	if again := luagentIn(t, sub, "", env, "ask", "--agent", agentFile, "hello"); systemOf(t, again.stdout) != sys {
		t.Errorf("a second run's system prompt differs")
	}

	// --no-memory leaves it out.
	r = luagentIn(t, sub, "", env, "ask", "--no-memory", "--agent", agentFile, "hello")
	if sys := systemOf(t, r.stdout); sys != "" || r.code != 0 {
		t.Errorf("--no-memory: exit %d, system %q, stderr %q", r.code, sys, r.stderr)
	}

	// An agent made with memory = false opts out; one with a system
	// prompt of its own keeps it first.
	optOut := writeFile(t, home, "optout.lua", strings.Replace(echoSystem, "%s", "memory = false,", 1))
	r = luagentIn(t, sub, "", env, "ask", "--agent", optOut, "hello")
	if sys := systemOf(t, r.stdout); sys != "" || r.code != 0 {
		t.Errorf("memory = false: exit %d, system %q, stderr %q", r.code, sys, r.stderr)
	}
	own := writeFile(t, home, "own.lua", strings.Replace(echoSystem, "%s", `system = "I AM THE AGENT",`, 1))
	r = luagentIn(t, sub, "", env, "ask", "--agent", own, "hello")
	if sys := systemOf(t, r.stdout); !strings.HasPrefix(sys, "I AM THE AGENT\n\n# Project memory") || !strings.Contains(sys, "SUB RULE") {
		t.Errorf("own system prompt: %q", sys)
	}
	bad := writeFile(t, home, "bad.lua", strings.Replace(echoSystem, "%s", `memory = true,`, 1))
	r = luagentIn(t, sub, "", env, "ask", "--agent", bad, "hello")
	if r.code != 1 || !strings.Contains(r.stderr, "invalid") || !strings.Contains(r.stderr, "agent.new: memory must be false (leave the project memory out) or text, not boolean") {
		t.Errorf("memory = true: exit %d, stderr %q", r.code, r.stderr)
	}
	noGoStack(t, r.stderr)
}

// The default agent (no --agent) sends the memory to the provider as its
// system prompt.
func TestAskProjectMemoryDefaultAgent(t *testing.T) {
	home, sub := memoryRepo(t)
	log := &wireLog{}
	srv := openAIEndpoint(t, log)
	r := luagentIn(t, sub, "", openAIEnv(home, srv.URL, "sk-test"), "ask", "--model", "openai:gpt-test", "hello")
	if r.code != 0 || len(log.bodies) == 0 {
		t.Fatalf("exit %d, %d requests: %s", r.code, len(log.bodies), r.stderr)
	}
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(log.bodies[0]), &req); err != nil || len(req.Messages) == 0 || req.Messages[0].Role != "system" {
		t.Fatalf("request %s: %v", log.bodies[0], err)
	}
	inOrder(t, req.Messages[0].Content, "USER RULE", "ROOT RULE", "SUB RULE", "CLAUDE RULE")
}

// A file over the bound is cut: the prompt and stderr say so, in one line
// naming the file.
func TestAskProjectMemoryCut(t *testing.T) {
	home := t.TempDir()
	dir := t.TempDir()
	writeFile(t, dir, "AGENTS.md", strings.Repeat("rule number forty-two\n", 3000)) // 66000 bytes
	agentFile := writeFile(t, home, "echo.lua", strings.Replace(echoSystem, "%s", "", 1))
	r := luagentIn(t, dir, "", []string{"LUAGENT_HOME=" + home}, "ask", "--agent", agentFile, "hello")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	sys := systemOf(t, r.stdout)
	if len(sys) > 34000 || !strings.Contains(sys, "[luagent: this file is cut here: only its first 32758 of 66000 bytes are shown") {
		t.Errorf("the cut prompt (%d bytes) ends %q", len(sys), sys[max(0, len(sys)-300):])
	}
	want := "luagent: memory: " + filepath.Join(dir, "AGENTS.md") + " is 66000 bytes; only its first 32758 are in the system prompt (at most 32768 a file, 65536 in all)\n"
	if r.stderr != want {
		t.Errorf("stderr = %q, want %q", r.stderr, want)
	}
}

// A bad memoryFiles or notifications is refused in one line naming it.
func TestMemoryConfigRefused(t *testing.T) {
	home := t.TempDir()
	writeFile(t, home, "config.json", `{"version": 1, "memoryFiles": ["../x.md"], "notifications": "loud"}`)
	r := luagentIn(t, t.TempDir(), "", []string{"LUAGENT_HOME=" + home}, "ask", "hello")
	if r.code != 1 || !strings.Contains(r.stderr, "memoryFiles[0]") || !strings.Contains(r.stderr, `notifications: must be "auto", "bell", "osc9" or "off", not "loud"`) {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// startTTYIn is startTTY in the working folder dir with more variables
// (TERM_PROGRAM is left out unless env sets it).
func startTTYIn(t *testing.T, dir string, env []string, args ...string) *tty {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TERM_PROGRAM=") && !strings.HasPrefix(kv, "TERM=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "TERM=xterm")
	cmd.Env = append(cmd.Env, env...)
	return runTTY(t, cmd, 160)
}

// writingAgent calls its own write tool (which the default policy asks
// about) when asked to write, and says what it saw of the system prompt.
const writingAgent = `
return agent.new{ hub = false,
  tools = { { name = "write", description = "Write a note", input = {}, handler = function() return "written" end } },
  model = function(req)
    local last = req.messages[#req.messages]
    if last.role == "user" and last.parts[1].type == "text" and last.parts[1].text == "please write" then
      return { tool_calls = { { name = "write", arguments = {} } } }
    end
    return { text = "done, memory " .. ((req.system or ""):find("BE BRIEF", 1, true) and "seen" or "unseen") }
  end }
`

func TestTTYChatMemoryAndNotify(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "AGENTS.md", "BE BRIEF\n")
	for _, tc := range []struct {
		name, notifications string
		env, flags          []string
		want                string // written when the approval waits ("": nothing)
	}{
		{"bell by default", "", nil, nil, "\a"},
		{"osc9 on iTerm2", "", []string{"TERM_PROGRAM=iTerm.app"}, nil, "\x1b]9;luagent: allow run write?\a"},
		{"osc9 set", `, "notifications": "osc9"`, nil, nil, "\x1b]9;luagent: allow run write?\a"},
		{"off", `, "notifications": "off"`, []string{"TERM_PROGRAM=iTerm.app"}, nil, ""},
		{"--no-notify", "", nil, []string{"--no-notify"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			writeFile(t, home, "config.json", `{"version": 1, "mcpServers": {}`+tc.notifications+`}`)
			agentFile := writeFile(t, home, "writer.lua", writingAgent)
			args := append([]string{"chat", "--agent", agentFile}, tc.flags...)
			tt := startTTYIn(t, dir, append([]string{"LUAGENT_HOME=" + home}, tc.env...), args...)
			m := tt.wait(0, "luagent chat — model", "> ")
			if tc.name == "bell by default" {
				// /memory: the files, their sizes, and what went in.
				tt.send("/memory\r")
				m = tt.wait(m, "memory: 1 of 1 files in the system prompt, 9 bytes (at most 32768 a file, 65536 in all)",
					filepath.Join(dir, "AGENTS.md")+"  9 bytes  project, loaded", "> ")
			}
			tt.send("please write\r")
			before, end := tt.between(m, "allow? [y/a/n] ")
			if tc.want != "" && !strings.Contains(before, tc.want) {
				t.Errorf("no %q before the approval question:\n%q", tc.want, before)
			}
			tt.send("y\r")
			m = tt.wait(end, "done, memory seen", "> ")
			tt.send("/quit\r")
			tt.exited()
			if tc.want == "" && strings.ContainsAny(tt.output(), "\a") {
				t.Errorf("notifications off, yet the output rings:\n%q", tt.output())
			}
			if strings.Count(tt.output(), "\a") > 1 {
				t.Errorf("rang more than once:\n%q", tt.output())
			}
		})
	}
}

// chat --no-memory: /memory says so and the agent's prompt has none.
func TestTTYChatNoMemory(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "AGENTS.md", "BE BRIEF\n")
	home := t.TempDir()
	writeFile(t, home, "config.json", `{"version": 1, "mcpServers": {}}`)
	agentFile := writeFile(t, home, "writer.lua", writingAgent)
	tt := startTTYIn(t, dir, []string{"LUAGENT_HOME=" + home}, "chat", "--no-memory", "--agent", agentFile)
	m := tt.wait(0, "> ")
	tt.send("/memory\r")
	m = tt.wait(m, "memory: off (--no-memory): no AGENTS.md in the system prompt", "> ")
	tt.send("hi\r")
	m = tt.wait(m, "done, memory unseen", "> ")
	tt.send("/quit\r")
	tt.exited()
}

// A server's form rings too (OSC 9 here, set in config.json), before its
// first field is asked.
func TestTTYChatFormNotifies(t *testing.T) {
	home := t.TempDir()
	el := writeFile(t, home, "el.lua", elicitServer)
	b, _ := json.Marshal(map[string]any{"version": 1, "notifications": "osc9",
		"mcpServers": map[string]any{"el": map[string]any{"command": bin, "args": []string{"serve", el}}}})
	writeFile(t, home, "config.json", string(b))
	tt := startTTYIn(t, t.TempDir(), []string{"LUAGENT_HOME=" + home}, "chat")
	m := tt.wait(0, "[1/1 server ready]")
	tt.send("ask for a profile\r")
	before, end := tt.between(m, "age (integer, 0 to 150): ")
	if !strings.Contains(before, "\x1b]9;luagent: el asks for input\a") {
		t.Errorf("no notification before the form:\n%q", before)
	}
	tt.send("!decline\r")
	m = tt.wait(end, `answer {"action":"decline"}`, "\r\n> ")
	tt.send("/quit\r")
	tt.exited()
}
