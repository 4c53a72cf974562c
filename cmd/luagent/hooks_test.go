package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Command hooks from config.json, end to end: `luagent ask` with the mock
// model over askServer, hooks written the way Claude Code's documentation
// shows them (a script reading the event's JSON on stdin, exiting 2 to
// block with a reason on stderr, or printing JSON).

// hookHome is askHome's catalog with hooks (the "hooks" member's JSON).
func hookHome(t *testing.T, hooks string) (home, notes string) {
	t.Helper()
	home, notes = askHome(t)
	var cfg map[string]any
	b, _ := os.ReadFile(filepath.Join(home, "config.json"))
	json.Unmarshal(b, &cfg)
	cfg["hooks"] = json.RawMessage(hooks)
	b, _ = json.Marshal(cfg)
	writeFile(t, home, "config.json", string(b))
	return home, notes
}

// jsonField is a shell function reading a field of the event the script
// got in $input: with jq when it is installed (as Claude Code's examples
// do), else with python3.
const jsonField = `field() {
  if command -v jq >/dev/null 2>&1; then printf '%s' "$input" | jq -r "$1 // empty"
  else printf '%s' "$input" | python3 -c 'import json,sys
v=json.load(sys.stdin)
for k in sys.argv[1].lstrip(".").split("."): v=v.get(k) if isinstance(v,dict) else None
print("" if v is None else (json.dumps(v) if not isinstance(v,str) else v))' "$1"; fi
}
`

func needShellTools(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("jq"); err == nil {
		return
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("neither jq nor python3 to read the hook's JSON with")
	}
}

// A PreToolUse script in Claude Code's documented style blocks a write
// with exit 2: the tool does not run, and the model gets the script's
// stderr (the mock model quotes what it got on stdout). The matcher is
// Claude Code's name for the tool, mcp__srv__write. The script got the
// event on stdin with the session's id and in the working folder, with
// CLAUDE_PROJECT_DIR set.
func TestHookScriptExit2BlocksATool(t *testing.T) {
	needShellTools(t)
	work := t.TempDir()
	logf := filepath.Join(work, "event.json")
	script := writeFile(t, work, "guard.sh", "#!/bin/bash\ninput=$(cat)\n"+jsonField+`
printf '%s' "$input" > "`+logf+`"
echo "$CLAUDE_PROJECT_DIR" > "`+logf+`.dir"
if [ "$(field .hook_event_name)" = PreToolUse ] && [[ "$(field .tool_input.text)" == *secret* ]]; then
  echo "Blocked: $(field .tool_name) may not write secrets" >&2
  exit 2
fi
exit 0
`)
	os.Chmod(script, 0o755)
	home, notes := hookHome(t, `{"PreToolUse": [{"matcher": "mcp__srv__write", "hooks": [{"type": "command", "command": "`+script+`", "timeout": 30}]}]}`)
	r := luagentIn(t, work, "", []string{"LUAGENT_HOME=" + home}, "ask", "--yes", "call write with text=secret")
	if r.code != 0 || !strings.Contains(r.stdout, "Blocked: srv__write may not write secrets") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if b, _ := os.ReadFile(notes); len(b) != 0 {
		t.Errorf("the blocked write ran: %q", b)
	}
	var ev map[string]any
	b, _ := os.ReadFile(logf)
	if err := json.Unmarshal(b, &ev); err != nil {
		t.Fatalf("the event: %v: %s", err, b)
	}
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	realWork, _ := filepath.EvalSymlinks(work)
	if id, _ := ev["session_id"].(string); !uuid.MatchString(id) || ev["hook_event_name"] != "PreToolUse" || ev["tool_name"] != "srv__write" ||
		ev["cwd"] != realWork && ev["cwd"] != work || ev["permission_mode"] != "bypassPermissions" || ev["tool_use_id"] == "" {
		t.Errorf("the event: %s", b)
	}
	if _, ok := ev["transcript_path"]; !ok {
		t.Errorf("no transcript_path: %s", b)
	}
	if ti, _ := ev["tool_input"].(map[string]any); ti["text"] != "secret" {
		t.Errorf("tool_input: %s", b)
	}
	if d, _ := os.ReadFile(logf + ".dir"); strings.TrimSpace(string(d)) != realWork && strings.TrimSpace(string(d)) != work {
		t.Errorf("CLAUDE_PROJECT_DIR=%q", d)
	}
	// Another text passes.
	r = luagentIn(t, work, "", []string{"LUAGENT_HOME=" + home}, "ask", "--yes", "call write with text=fine")
	if b, _ := os.ReadFile(notes); r.code != 0 || string(b) != "fine\n" {
		t.Errorf("exit %d, notes %q\n%s", r.code, b, r.stderr)
	}
}

// JSON on stdout: permissionDecision deny blocks with its reason; allow
// runs a call nobody could be asked about (no --yes), with updatedInput
// as its arguments; PostToolUse's additionalContext reaches the model.
func TestHookJSONDecisions(t *testing.T) {
	pre := func(out string) string {
		b, _ := json.Marshal("cat >/dev/null; echo '" + out + "'")
		return string(b)
	}
	deny := `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "notes are read-only today"}}`
	home, notes := hookHome(t, `{"PreToolUse": [{"matcher": "srv__write", "hooks": [{"type": "command", "command": `+pre(deny)+`}]}]}`)
	r := luagent(t, "", []string{"LUAGENT_HOME=" + home}, "ask", "--yes", "call write with text=hi")
	if b, _ := os.ReadFile(notes); len(b) != 0 || !strings.Contains(r.stdout, "notes are read-only today") {
		t.Errorf("deny: notes %q\nstdout: %s\nstderr: %s", b, r.stdout, r.stderr)
	}

	allow := `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "permissionDecisionReason": "a note is safe", "updatedInput": {"text": "rewritten"}}}`
	post := `{"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "the audit log has it"}}`
	home, notes = hookHome(t, `{"PreToolUse": [{"matcher": "srv__write", "hooks": [{"type": "command", "command": `+pre(allow)+`}]}],
	  "PostToolUse": [{"matcher": "srv__.*", "hooks": [{"type": "command", "command": `+pre(post)+`}]}]}`)
	r = luagent(t, "", []string{"LUAGENT_HOME=" + home}, "ask", "call write with text=hi")
	if b, _ := os.ReadFile(notes); r.code != 0 || string(b) != "rewritten\n" || !strings.Contains(r.stdout, "wrote rewritten") || !strings.Contains(r.stdout, "the audit log has it") {
		t.Errorf("allow: exit %d, notes %q\nstdout: %s\nstderr: %s", r.code, b, r.stdout, r.stderr)
	}
}

// A UserPromptSubmit hook exiting 2 blocks the prompt: the model is never
// called, the user sees the reason, ask exits 1 with kind auth.
func TestHookBlocksThePrompt(t *testing.T) {
	home, _ := hookHome(t, `{"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "grep -q password && { echo 'prompts may not hold passwords' >&2; exit 2; }; exit 0"}]}]}`)
	r := luagent(t, "", []string{"LUAGENT_HOME=" + home}, "ask", "my password is hunter2")
	if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, "luagent: auth: agent: a UserPromptSubmit hook blocked the prompt: prompts may not hold passwords") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	r = luagent(t, "", []string{"LUAGENT_HOME=" + home}, "ask", "hello")
	if r.code != 0 {
		t.Errorf("an innocent prompt: exit %d\n%s", r.code, r.stderr)
	}
}

// A Stop hook that blocks makes the agent go on; the second time it sees
// stop_hook_active and lets it stop. The agent is a scripted Lua agent
// file whose model answers "first", then, told by the hook, "second".
func TestHookStopContinues(t *testing.T) {
	needShellTools(t)
	work := t.TempDir()
	agentFile := writeFile(t, work, "agent.lua", `
return agent.new{ hub = false, model = function(req)
  local last = req.messages[#req.messages]
  if last.parts[1].text:find("Stop hook: run the tests", 1, true) then return { text = "second" } end
  return { text = "first" }
end }
`)
	script := writeFile(t, work, "stop.sh", "#!/bin/bash\ninput=$(cat)\n"+jsonField+`
if [ "$(field .stop_hook_active)" = true ]; then exit 0; fi
echo '{"decision": "block", "reason": "run the tests"}'
`)
	os.Chmod(script, 0o755)
	home, _ := hookHome(t, `{"Stop": [{"hooks": [{"type": "command", "command": "`+script+`"}]}]}`)
	r := luagentIn(t, work, "", []string{"LUAGENT_HOME=" + home}, "ask", "--agent", agentFile, "go")
	if r.code != 0 || !strings.Contains(r.stdout, "second") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
}

// A hook that hangs is killed at its timeout, one that prints megabytes is
// cut, one that fails is a line on stderr: none of them stops the agent,
// and the call goes on.
func TestHookFailuresDoNotStopTheAgent(t *testing.T) {
	home, notes := hookHome(t, `{"PreToolUse": [
	  {"matcher": "srv__write", "hooks": [{"type": "command", "command": "sleep 60", "timeout": 1}]},
	  {"matcher": "*", "hooks": [{"type": "command", "command": "head -c 30000000 /dev/zero | tr '\\0' x"}]},
	  {"hooks": [{"type": "command", "command": "echo 'the linter is missing' >&2; exit 1"}]}
	]}`)
	start := time.Now()
	r := luagent(t, "", []string{"LUAGENT_HOME=" + home}, "ask", "--yes", "call write with text=hi")
	took := time.Since(start)
	b, _ := os.ReadFile(notes)
	if r.code != 0 || string(b) != "hi\n" || took > 30*time.Second {
		t.Fatalf("exit %d after %v, notes %q\nstderr: %.2000s", r.code, took, b, r.stderr)
	}
	for _, want := range []string{`PreToolUse hook "sleep 60": timed out after 1s`, `PreToolUse hook "echo 'the linter is missing' >&2; exit 1": exited with code 1: the linter is missing`, "xxxxxxxx"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%.3000s", want, r.stderr)
		}
	}
	if len(r.stderr) > 20000 {
		t.Errorf("stderr is %d bytes: the huge output was not cut", len(r.stderr))
	}
}

// hooks list shows each configured command with its event, matcher,
// timeout and where it is configured; hooks luagent does not run say so.
func TestHooksList(t *testing.T) {
	home, _ := hookHome(t, `{"PreToolUse": [{"matcher": "mcp__srv__write", "hooks": [{"type": "command", "command": "./guard.sh", "timeout": 5}, {"type": "prompt", "prompt": "ok?"}]}],
	  "PostToolUseFailure": [{"hooks": [{"type": "command", "command": "notify"}]}]}`)
	r := luagent(t, "", []string{"LUAGENT_HOME=" + home}, "hooks", "list")
	cfgPath := filepath.Join(home, "config.json")
	for _, want := range []string{
		"EVENT", "PreToolUse          mcp__srv__write  ./guard.sh", "5s", cfgPath + " (hooks.PreToolUse[0].hooks[0])",
		"(prompt hook: luagent runs only command hooks)", "notify (never runs: luagent has no PostToolUseFailure event)",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("lacks %q:\n%s", want, r.stdout)
		}
	}
	if r := luagent(t, "", nil, "hooks", "list"); r.code != 0 || !strings.Contains(r.stdout, "no hooks configured") {
		t.Errorf("none: %+v", r)
	}
	home, _ = hookHome(t, `{"Stop": [{"matcher": "(", "hooks": []}]}`)
	if r := luagent(t, "", []string{"LUAGENT_HOME=" + home}, "hooks", "list"); r.code != 1 || !strings.Contains(r.stderr, "hooks.Stop[0].hooks: must be a list of one or more") {
		t.Errorf("a bad file: %+v", r)
	}
}

// A PermissionRequest hook answers where a person would be asked: in
// `ask` without --yes (nobody to ask) its allow runs the write; its exit 2
// denies another tool with stderr to the model.
func TestHookPermissionRequest(t *testing.T) {
	allow, _ := json.Marshal(`cat >/dev/null; echo '{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}}'`)
	home, notes := hookHome(t, `{"PermissionRequest": [{"matcher": "mcp__srv__write", "hooks": [{"type": "command", "command": `+string(allow)+`}]}]}`)
	r := luagent(t, "", []string{"LUAGENT_HOME=" + home}, "ask", "call write with text=hi")
	if b, _ := os.ReadFile(notes); r.code != 0 || string(b) != "hi\n" {
		t.Errorf("allow: exit %d, notes %q\nstdout: %s\nstderr: %s", r.code, b, r.stdout, r.stderr)
	}
	home, notes = hookHome(t, `{"PermissionRequest": [{"hooks": [{"type": "command", "command": "echo 'writes need a ticket' >&2; exit 2"}]}]}`)
	r = luagent(t, "", []string{"LUAGENT_HOME=" + home}, "ask", "--yes", "call write with text=hi")
	if b, _ := os.ReadFile(notes); len(b) != 0 || !strings.Contains(r.stdout, "PermissionRequest hook: writes need a ticket") {
		t.Errorf("deny: notes %q\nstdout: %s\nstderr: %s", b, r.stdout, r.stderr)
	}
}

// In chat on a terminal: one session id in every event of the session,
// a PreToolUse hook's block shown and given to the model, and SessionEnd
// when the person leaves (Ctrl-D), its message printed.
func TestTTYChatHooks(t *testing.T) {
	logf := filepath.Join(t.TempDir(), "events.jsonl")
	rec, _ := json.Marshal("cat >> " + logf + "; echo >> " + logf)
	block, _ := json.Marshal("cat >> " + logf + "; echo >> " + logf + "; echo 'no echoes in chat' >&2; exit 2")
	bye, _ := json.Marshal("cat >> " + logf + "; echo >> " + logf + `; echo '{"systemMessage": "bye from the hook"}'`)
	home, _ := hookHome(t, `{"SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": `+string(rec)+`}]}],
	  "UserPromptSubmit": [{"hooks": [{"type": "command", "command": `+string(rec)+`}]}],
	  "PreToolUse": [{"matcher": "mcp__srv__echo", "hooks": [{"type": "command", "command": `+string(block)+`}]}],
	  "SessionEnd": [{"hooks": [{"type": "command", "command": `+string(bye)+`}]}]}`)
	tt := startTTY(t, home, "chat")
	m := tt.wait(0, "luagent chat — model mock", "[1/1 server ready]")
	tt.send("please echo hi\r")
	m = tt.wait(m, "PreToolUse hook: no echoes in chat", "> ")
	tt.send("\x04")
	tt.wait(m, `SessionEnd hook`, "bye from the hook")
	tt.exited()
	b, _ := os.ReadFile(logf)
	var events []string
	ids := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var ev struct{ SessionID, HookEventName, Reason string }
		var raw map[string]any
		if err := json.Unmarshal([]byte(line), &raw); err != nil {
			t.Fatalf("%v: %q", err, line)
		}
		ev.SessionID, _ = raw["session_id"].(string)
		ev.HookEventName, _ = raw["hook_event_name"].(string)
		ev.Reason, _ = raw["reason"].(string)
		ids[ev.SessionID] = true
		events = append(events, strings.TrimSpace(ev.HookEventName+" "+ev.Reason))
	}
	if strings.Join(events, ",") != "SessionStart,UserPromptSubmit,PreToolUse,SessionEnd prompt_input_exit" || len(ids) != 1 {
		t.Errorf("events %q, ids %v", events, ids)
	}
}

// Chat runs the Notification hooks where it rings the terminal (an
// approval waits), with the session's id: the id of the saved session.
func TestTTYChatNotificationHook(t *testing.T) {
	logf := filepath.Join(t.TempDir(), "events.jsonl")
	rec, _ := json.Marshal("cat >> " + logf + "; echo >> " + logf)
	home, _ := hookHome(t, `{"Notification": [{"hooks": [{"type": "command", "command": `+string(rec)+`}]}]}`)
	tt := startTTY(t, home, "chat")
	m := tt.wait(0, "luagent chat — model mock", "[1/1 server ready]")
	tt.send("please write text=hi\r")
	m = tt.wait(m, "allow? [y/a/n]")
	waitFile(t, logf, `"notification_type":"permission_prompt"`)
	tt.send("n\r")
	m = tt.wait(m, "> ")
	tt.send("\x04")
	tt.exited()
	b, _ := os.ReadFile(logf)
	var ev map[string]any
	if err := json.Unmarshal([]byte(strings.SplitN(string(b), "\n", 2)[0]), &ev); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	id, _ := ev["session_id"].(string)
	if ev["hook_event_name"] != "Notification" || !strings.Contains(ev["message"].(string), "allow") {
		t.Errorf("event %v", ev)
	}
	if _, err := os.Stat(filepath.Join(home, "sessions", id+".jsonl")); err != nil || id == "" {
		t.Errorf("session_id %q is not the saved session's: %v", id, err)
	}
	if p, _ := ev["transcript_path"].(string); p != filepath.Join(home, "sessions", id+".jsonl") {
		t.Errorf("transcript_path %q", p)
	}
}

// One id names an ask's session everywhere: the hooks' session_id and
// transcript_path, stream-json's session_id, and the saved session file;
// ask -c continues it under the same id.
func TestAskOneSessionID(t *testing.T) {
	logf := filepath.Join(t.TempDir(), "events.jsonl")
	rec, _ := json.Marshal("cat >> " + logf + "; echo >> " + logf)
	home, _ := hookHome(t, `{"SessionStart": [{"hooks": [{"type": "command", "command": `+string(rec)+`}]}]}`)
	env := []string{"LUAGENT_HOME=" + home}
	ids := func(r result) (hook, stream string) {
		t.Helper()
		b, _ := os.ReadFile(logf)
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		var ev map[string]any
		json.Unmarshal([]byte(lines[len(lines)-1]), &ev)
		hook, _ = ev["session_id"].(string)
		if p, _ := ev["transcript_path"].(string); p != filepath.Join(home, "sessions", hook+".jsonl") {
			t.Errorf("transcript_path %q (session %q)", p, hook)
		}
		var first map[string]any
		json.Unmarshal([]byte(strings.SplitN(r.stdout, "\n", 2)[0]), &first)
		stream, _ = first["session_id"].(string)
		return
	}
	r := luagent(t, "", env, "ask", "--output-format", "stream-json", "hello")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	hook, stream := ids(r)
	if hook == "" || hook != stream {
		t.Fatalf("hook session_id %q, stream-json's %q", hook, stream)
	}
	if _, err := os.Stat(filepath.Join(home, "sessions", hook+".jsonl")); err != nil {
		t.Fatalf("no session file for %s: %v", hook, err)
	}
	r = luagent(t, "", env, "ask", "-c", "--output-format", "stream-json", "again")
	if h2, s2 := ids(r); r.code != 0 || h2 != hook || s2 != hook {
		t.Errorf("ask -c: exit %d, hook %q, stream %q, want %q\n%s", r.code, h2, s2, hook, r.stderr)
	}
}

// A project's .luagent/config.json hooks are commands whoever wrote the
// repository chose: they run only once the folder is trusted, with
// CLAUDE_PROJECT_DIR the project's folder; hooks list says which file
// they come from, or that they are not run.
func TestProjectHooksNeedTrust(t *testing.T) {
	home, _ := hookHome(t, `{}`)
	env := []string{"LUAGENT_HOME=" + home}
	repo := t.TempDir()
	os.Mkdir(filepath.Join(repo, ".git"), 0o755)
	sub := filepath.Join(repo, "src")
	os.Mkdir(sub, 0o755)
	logf := filepath.Join(t.TempDir(), "ran.txt")
	cmd, _ := json.Marshal(`echo "ran in $CLAUDE_PROJECT_DIR" >> ` + logf)
	os.Mkdir(filepath.Join(repo, ".luagent"), 0o755)
	writeFile(t, filepath.Join(repo, ".luagent"), "config.json", `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": `+string(cmd)+`}]}]}}`)

	r := luagentIn(t, sub, "", env, "ask", "hello")
	if r.code != 0 || !strings.Contains(r.stderr, "hooks") {
		t.Fatalf("untrusted: exit %d, stderr %q: want a line saying the project's hooks were ignored", r.code, r.stderr)
	}
	if _, err := os.Stat(logf); err == nil {
		t.Fatal("a project hook ran in a folder not trusted")
	}
	if r := luagentIn(t, sub, "", env, "hooks", "list"); !strings.Contains(r.stdout, "not trusted") {
		t.Errorf("hooks list, untrusted:\n%s", r.stdout)
	}
	if r := luagentIn(t, sub, "", env, "trust", repo); r.code != 0 {
		t.Fatalf("trust: %d %s", r.code, r.stderr)
	}
	if r := luagentIn(t, sub, "", env, "ask", "hello"); r.code != 0 {
		t.Fatalf("trusted: exit %d: %s", r.code, r.stderr)
	}
	b, _ := os.ReadFile(logf)
	if got := strings.TrimSpace(string(b)); got != "ran in "+repo {
		t.Errorf("the hook wrote %q, want %q", got, "ran in "+repo)
	}
	if r := luagentIn(t, sub, "", env, "hooks", "list"); !strings.Contains(r.stdout, filepath.Join(repo, ".luagent", "config.json")) || strings.Contains(r.stdout, "not trusted") {
		t.Errorf("hooks list, trusted:\n%s", r.stdout)
	}
}
