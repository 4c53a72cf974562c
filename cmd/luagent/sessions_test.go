package main

import (
	"bufio"
	"encoding/json"
	"github.com/luagent/luagent/runtime/sessionid"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/session"
)

// sessionsOf is `luagent sessions list --json` in home.
func sessionsOf(t *testing.T, home string) []session.Info {
	t.Helper()
	r := luagent(t, "", []string{"LUAGENT_HOME=" + home}, "sessions", "list", "--json")
	var out []session.Info
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &out) != nil {
		t.Fatalf("sessions list --json: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	return out
}

func sessionByID(t *testing.T, home, id string) session.Info {
	t.Helper()
	for _, i := range sessionsOf(t, home) {
		if i.ID == id {
			return i
		}
	}
	t.Fatalf("no session %s", id)
	return session.Info{}
}

// ask is a session: -c goes on with the folder's latest, --resume ID with
// a given one, --fork copies one to a new id; sessions list, show and rm
// see them. The counting agent's model says how many messages it saw.
func TestAskSessions(t *testing.T) {
	home := t.TempDir()
	env := []string{"LUAGENT_HOME=" + home}
	agentFile := writeFile(t, home, "counting.lua", countingAgent)
	ask := func(want string, args ...string) {
		t.Helper()
		r := luagent(t, "", env, append([]string{"ask", "--agent", agentFile}, args...)...)
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Fatalf("ask %q: exit %d, want %q\n%s%s", args, r.code, want, r.stdout, r.stderr)
		}
	}
	ask("seen 1 messages", "hello \x1b[31mred")
	l := sessionsOf(t, home)
	if len(l) != 1 || l[0].Turns != 1 || l[0].FirstPrompt != "hello \x1b[31mred" || l[0].Command != "ask" || l[0].AgentFile != agentFile {
		t.Fatalf("after one ask: %+v", l)
	}
	first := l[0].ID
	if !sessionid.Valid(first) {
		t.Fatalf("id %q", first)
	}
	wd, _ := os.Getwd()
	if l[0].Cwd != wd {
		t.Errorf("cwd %q, want %q", l[0].Cwd, wd)
	}
	ask("seen 3 messages", "-c", "again")
	ask("seen 5 messages", "--resume", first, "third")
	if l = sessionsOf(t, home); len(l) != 1 || l[0].Turns != 3 {
		t.Fatalf("after -c and --resume: %+v", l)
	}
	ask("seen 7 messages", "--fork", "-c", "forked")
	l = sessionsOf(t, home)
	if len(l) != 2 || l[0].ID == first || l[0].ForkedFrom != first || l[0].Turns != 4 || sessionByID(t, home, first).Turns != 3 {
		t.Fatalf("after --fork: %+v", l)
	}
	fork := l[0].ID
	// -c now means the fork (the latest); --resume the first still.
	ask("seen 9 messages", "-c", "on the fork")
	ask("seen 7 messages", "--resume", first[:8], "on the first")

	// The folder and files are private.
	for path, want := range map[string]os.FileMode{filepath.Join(home, "sessions"): 0o700, filepath.Join(home, "sessions", first+".jsonl"): 0o600} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: %v %v, want %v", path, fi.Mode().Perm(), err, want)
		}
	}

	// list: the text form, newest first.
	r := luagent(t, "", env, "sessions", "list")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) != 3 || !strings.HasPrefix(lines[0], "ID ") || !strings.HasPrefix(lines[1], first) || !strings.Contains(lines[2], fork) || strings.Fields(lines[1])[4] != "4" || strings.Contains(r.stdout, "\x1b") {
		t.Errorf("sessions list:\n%q", r.stdout)
	}
	// show: the conversation, control characters visible.
	r = luagent(t, "", env, "sessions", "show", first)
	for _, want := range []string{"session " + first, "> hello \\x1b[31mred", "seen 1 messages", "── turn 4", "> on the first"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("sessions show lacks %q:\n%s", want, r.stdout)
		}
	}
	if r.code != 0 || strings.Contains(r.stdout, "\x1b") {
		t.Errorf("sessions show: exit %d, raw escape in:\n%q", r.code, r.stdout)
	}
	// rm, then the id is unknown: one line, not_found.
	if r = luagent(t, "", env, "sessions", "rm", fork); r.code != 0 || !strings.Contains(r.stdout, "removed session "+fork) {
		t.Errorf("rm: %d %s%s", r.code, r.stdout, r.stderr)
	}
	for _, args := range [][]string{{"sessions", "rm", fork}, {"sessions", "show", fork}, {"ask", "--resume", fork, "x"}, {"sessions", "show", "nope"}} {
		r = luagent(t, "", env, args...)
		if r.code != 1 || !strings.HasPrefix(r.stderr, "luagent: not_found: no session") || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%q: exit %d %q", args, r.code, r.stderr)
		}
	}
	if l = sessionsOf(t, home); len(l) != 1 {
		t.Errorf("after rm: %+v", l)
	}
}

// -c in a folder with no session, and the flags' misuse.
func TestAskSessionFlags(t *testing.T) {
	home := t.TempDir()
	env := []string{"LUAGENT_HOME=" + home}
	r := luagent(t, "", env, "ask", "-c", "hi")
	if r.code != 1 || !strings.Contains(r.stderr, "luagent: not_found: no session was started in ") {
		t.Errorf("-c with none: %d %q", r.code, r.stderr)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"ask", "--fork", "hi"}, "--fork copies a session"},
		{[]string{"ask", "-c", "--resume", sessionid.New(), "hi"}, "--continue and --resume name the session twice"},
		{[]string{"ask", "--resume"}, "--resume needs a session id"},
		{[]string{"sessions"}, "sessions needs a verb"},
		{[]string{"sessions", "show"}, "sessions show takes one session id"},
		{[]string{"sessions", "list", "x"}, "sessions list takes only --json"},
	} {
		r := luagent(t, "", env, tc.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%q: exit %d %q, want %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
	if r = luagent(t, "", env, "sessions", "list"); r.code != 0 || !strings.Contains(r.stdout, "no sessions yet") {
		t.Errorf("empty list: %d %q", r.code, r.stdout)
	}
	if r = luagent(t, "", env, "sessions", "list", "--json"); r.code != 0 || strings.TrimSpace(r.stdout) != "[]" {
		t.Errorf("empty list --json: %d %q", r.code, r.stdout)
	}
}

// Secrets never reach a session file: the providers' keys, the
// environment's secret-named variables, the catalog's env values.
func TestAskSessionSecrets(t *testing.T) {
	home := t.TempDir()
	const key, token, envVal = "sk-test-key-0123456789", "ghp_tokenvalue987654321", "catalog-env-secret-55555"
	writeCatalog(t, home, map[string]any{"srv": map[string]any{"command": "/nonexistent/server", "env": map[string]string{"API_TOKEN": envVal}, "disabled": true}})
	env := []string{"LUAGENT_HOME=" + home, "OPENAI_API_KEY=" + key, "GITHUB_TOKEN=" + token}
	r := luagent(t, "", env, "ask", "--model", "mock", "remember "+key+" and "+token+" and "+envVal)
	if r.code != 0 {
		t.Fatalf("ask: %d %s%s", r.code, r.stdout, r.stderr)
	}
	files, _ := filepath.Glob(filepath.Join(home, "sessions", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("files %q", files)
	}
	b, _ := os.ReadFile(files[0])
	for _, s := range []string{key, token, envVal} {
		if strings.Contains(string(b), s) {
			t.Errorf("the session file holds %q:\n%s", s, b)
		}
	}
	if !strings.Contains(string(b), "remember <secret> and <secret> and <secret>") {
		t.Errorf("the prompt is not there, masked:\n%s", b)
	}
}

// slowAgent's model says "thinking" and waits when the prompt is "slow";
// otherwise it counts the messages it sees.
const slowAgent = `
return agent.new{ hub = false, model = function(req)
  local last = req.messages[#req.messages]
  if last.parts[1].text == "slow" then
    io.write("thinking\n") io.stdout:flush()
    task.sleep(120)
  end
  return { text = "seen " .. #req.messages .. " messages" }
end }
`

// A run killed (SIGKILL) mid-turn loses nothing already answered: the
// session resumes after its last complete turn, by ask -c and by a chat
// on a terminal (--resume latest).
func TestSessionKilledMidTurn(t *testing.T) {
	home := t.TempDir()
	env := []string{"LUAGENT_HOME=" + home}
	agentFile := writeFile(t, home, "slow.lua", slowAgent)
	if r := luagent(t, "", env, "ask", "--agent", agentFile, "hello"); r.code != 0 || !strings.Contains(r.stdout, "seen 1 messages") {
		t.Fatalf("first ask: %d %s%s", r.code, r.stdout, r.stderr)
	}
	cmd := startSlow(t, env, agentFile)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()

	l := sessionsOf(t, home)
	if len(l) != 1 || l[0].Turns != 1 {
		t.Fatalf("after the kill: %+v", l)
	}
	r := luagent(t, "", env, "sessions", "show", l[0].ID)
	if !strings.Contains(r.stdout, "1 message of a turn that did not finish not shown") || strings.Contains(r.stdout, "> slow") {
		t.Errorf("show after the kill:\n%s", r.stdout)
	}
	// The killed turn's prompt is left out: the model sees hello, its
	// answer and the new prompt.
	if r = luagent(t, "", env, "ask", "--agent", agentFile, "-c", "after"); r.code != 0 || !strings.Contains(r.stdout, "seen 3 messages") {
		t.Fatalf("ask -c after the kill: %d %s%s", r.code, r.stdout, r.stderr)
	}
	// A chat on a terminal goes on with it.
	tt := startTTY(t, home, "chat", "--agent", agentFile, "--resume", "latest")
	m := tt.wait(0, "resumed session "+l[0].ID+": 2 turns", "> ")
	tt.send("in chat\r")
	m = tt.wait(m, "seen 5 messages", "> ")
	tt.send("\x04")
	tt.wait(m, "saved the conversation to ")
	tt.exited()
	if got := sessionByID(t, home, l[0].ID); got.Turns != 3 {
		t.Errorf("after the chat: %+v", got)
	}
}

// From Lua: agent.new{session = true} saves an agent's asks, a:session()
// says where, agent.resume(id) goes on with a saved session in a later
// run, and an agent file returning agent.resume("latest") makes ask go on
// in that session.
func TestLuaSessions(t *testing.T) {
	home := t.TempDir()
	env := []string{"LUAGENT_HOME=" + home}
	dir := t.TempDir()
	first := writeFile(t, dir, "first.lua", `
local a = agent.new{ model = "mock", hub = false }
assert(a:session() == nil, "no session unless asked for")
local b = agent.new{ model = "mock", hub = false, session = true }
b:ask("hello from lua")
local s = b:session()
print(s.id) print(s.path)
`)
	r := luagent(t, "", env, first)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) != 2 || !sessionid.Valid(lines[0]) || lines[1] != filepath.Join(home, "sessions", lines[0]+".jsonl") {
		t.Fatalf("first run: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	id := lines[0]
	second := writeFile(t, dir, "second.lua", `
local id = ...
local a = agent.resume(id, { hub = false })
assert(a:session().id == id, "the same session")
print(#a:messages())
print((a:ask("and again")))
local ok, err = pcall(agent.resume, "0f8fad5b-d9cb-469f-a165-70867728950e")
print(ok, err.kind)
local f = agent.resume(id, { hub = false, fork = true })
print(f:session().id ~= id, #f:messages())
`)
	r = luagent(t, "", env, second, id)
	if r.code != 0 || r.stdout != "2\nmock: and again\nfalse\tnot_found\ntrue\t4\n" {
		t.Fatalf("second run: %d\n%q%s", r.code, r.stdout, r.stderr)
	}
	if got := sessionByID(t, home, id); got.Turns != 2 || got.Command != "lua" {
		t.Fatalf("after resume: %+v", got)
	}
	// ask --agent FILE whose agent resumes a session goes on in it.
	agentFile := writeFile(t, dir, "resumer.lua", `return agent.resume("`+id+`", { hub = false })`)
	if r = luagent(t, "", env, "ask", "--agent", agentFile, "third"); r.code != 0 || !strings.Contains(r.stdout, "mock: third") {
		t.Fatalf("ask --agent: %d %s%s", r.code, r.stdout, r.stderr)
	}
	if got := sessionByID(t, home, id); got.Turns != 3 {
		t.Fatalf("after ask --agent: %+v", got)
	}
	if n := len(sessionsOf(t, home)); n != 2 { // id and its fork
		t.Fatalf("%d sessions", n)
	}
}

// A session that cannot be saved (the sessions folder is a file) leaves
// the run going, unsaved, with one line saying so; resuming one fails.
func TestSessionUnsaved(t *testing.T) {
	home := t.TempDir()
	writeFile(t, home, "sessions", "not a folder")
	env := []string{"LUAGENT_HOME=" + home}
	r := luagent(t, "", env, "ask", "--model", "mock", "hi")
	if r.code != 0 || r.stdout != "mock: hi\n" || !strings.Contains(r.stderr, "luagent: this ask is not saved: cannot make the sessions folder") {
		t.Errorf("ask: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = luagent(t, "hi\n", env, "chat", "--model", "mock")
	if r.code != 0 || !strings.Contains(r.stdout, "mock: hi") || !strings.Contains(r.stderr, "luagent: this chat is not saved") || strings.Contains(r.stdout, "saved the conversation") {
		t.Errorf("chat: %d %q %q", r.code, r.stdout, r.stderr)
	}
	if r = luagent(t, "", env, "ask", "-c", "hi"); r.code != 1 || !strings.Contains(r.stderr, "luagent: invalid: cannot read "+filepath.Join(home, "sessions")) {
		t.Errorf("ask -c: %d %q", r.code, r.stderr)
	}
}

// A tool the agent runs may ask which session it is in (a:session()
// during the ask does not wait for the ask).
func TestLuaSessionFromTool(t *testing.T) {
	home := t.TempDir()
	script := writeFile(t, t.TempDir(), "s.lua", `
local a
a = agent.new{ model = "mock", hub = false, session = true, yes = true,
  tools = { { name = "where", description = "which session", handler = function() return a:session().id end } } }
local text = a:ask("where are we")
print(text:find(a:session().id, 1, true) ~= nil)
`)
	r := luagent(t, "", []string{"LUAGENT_HOME=" + home}, script)
	if r.code != 0 || r.stdout != "true\n" {
		t.Fatalf("%d %q %s", r.code, r.stdout, r.stderr)
	}
}

// startSlow starts `ask --agent slowAgent -c slow` and returns it once
// its model is thinking.
func startSlow(t *testing.T, env []string, agentFile string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, "ask", "--agent", agentFile, "-c", "slow")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	thinking := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if sc.Text() == "thinking" {
				thinking <- true
			}
		}
		close(thinking)
	}()
	select {
	case ok := <-thinking:
		if !ok {
			t.Fatal("ask ended before the slow turn started")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the slow turn never started")
	}
	return cmd
}

// Ctrl-C (SIGINT) mid-turn ends the turn as cancelled: it is complete,
// its prompt stays, and -c goes on after it.
func TestSessionInterruptedTurn(t *testing.T) {
	home := t.TempDir()
	env := []string{"LUAGENT_HOME=" + home}
	agentFile := writeFile(t, home, "slow.lua", slowAgent)
	if r := luagent(t, "", env, "ask", "--agent", agentFile, "hello"); r.code != 0 {
		t.Fatalf("first ask: %d %s", r.code, r.stderr)
	}
	cmd := startSlow(t, env, agentFile)
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()
	l := sessionsOf(t, home)
	if len(l) != 1 || l[0].Turns != 2 {
		t.Fatalf("after Ctrl-C: %+v", l)
	}
	r := luagent(t, "", env, "sessions", "show", l[0].ID)
	if !strings.Contains(r.stdout, "> slow") || !strings.Contains(r.stdout, "(the turn ended: cancelled") {
		t.Errorf("show:\n%s", r.stdout)
	}
	if r = luagent(t, "", env, "ask", "--agent", agentFile, "-c", "after"); !strings.Contains(r.stdout, "seen 4 messages") {
		t.Errorf("ask -c after Ctrl-C: %d %s%s", r.code, r.stdout, r.stderr)
	}
}

// A tool result over the line cap (4 MiB) is cut in the file, which says
// so, while the model and the user got it whole.
func TestSessionLineCap(t *testing.T) {
	home := t.TempDir()
	env := []string{"LUAGENT_HOME=" + home}
	agentFile := writeFile(t, home, "big.lua", `
-- the model gets the whole result (not cut at 40 kB), so that the answer
-- the session saves is over the line cap too
return agent.new{ model = "mock", hub = false, yes = true, tool_result_limit = 8 * 1024 * 1024,
  tools = { { name = "big", description = "a big result", handler = function() return string.rep("x", 5 * 1024 * 1024) end } } }
`)
	r := luagent(t, "", env, "ask", "--agent", agentFile, "big")
	if r.code != 0 || !strings.Contains(r.stdout, strings.Repeat("x", 5*1024*1024)) {
		t.Fatalf("ask: %d, %d bytes out, %s", r.code, len(r.stdout), r.stderr)
	}
	files, _ := filepath.Glob(filepath.Join(home, "sessions", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("files %q", files)
	}
	b, _ := os.ReadFile(files[0])
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if len(line)+1 > session.DefaultMaxLine {
			t.Errorf("a line of %d bytes", len(line))
		}
	}
	if !strings.Contains(string(b), `"cut":true`) || !strings.Contains(string(b), "over the session file's line cap") {
		t.Errorf("the file does not say what was cut")
	}
	if l := sessionsOf(t, home); len(l) != 1 || l[0].Turns != 1 {
		t.Errorf("list: %+v", l)
	}
	if r = luagent(t, "", env, "sessions", "show", files[0][len(files[0])-42:len(files[0])-6]); r.code != 0 || !strings.Contains(r.stdout, "(cut in the file: over the line cap)") {
		t.Errorf("show: %d %.500s %s", r.code, r.stdout, r.stderr)
	}
}
