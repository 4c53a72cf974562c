package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/luagent/luagent/runtime/sessionid"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/testkit"
)

// luagent ask --output-format json|stream-json and --input-format
// stream-json, read by testdata/stream_consumer.py: a wrapper written
// from Claude Code's headless documentation, as one of its users has.

type streamSummary struct {
	SessionID string `json:"session_id"`
	Init      struct {
		Model          string   `json:"model"`
		Tools          []string `json:"tools"`
		PermissionMode string   `json:"permissionMode"`
		Cwd            string   `json:"cwd"`
		MCPServers     []struct {
			Name, Status string
		} `json:"mcp_servers"`
	} `json:"init"`
	ToolUses []struct {
		ID, Name string
		Input    map[string]any
	} `json:"tool_uses"`
	ToolResults []struct {
		ToolUseID string `json:"tool_use_id"`
		IsError   bool   `json:"is_error"`
		Text      string `json:"text"`
	} `json:"tool_results"`
	Texts   []string `json:"texts"`
	Results []struct {
		Subtype           string `json:"subtype"`
		IsError           bool   `json:"is_error"`
		Result            string `json:"result"`
		NumTurns          int    `json:"num_turns"`
		SessionID         string `json:"session_id"`
		PermissionDenials []struct {
			ToolName  string         `json:"tool_name"`
			ToolUseID string         `json:"tool_use_id"`
			ToolInput map[string]any `json:"tool_input"`
		} `json:"permission_denials"`
		Usage struct {
			InputTokens  int `json:"input_tokens"`
			OutputTokens int `json:"output_tokens"`
		} `json:"usage"`
	} `json:"results"`
}

// consume runs the consumer on a run's stdout and returns its summary; a
// violation of the documented shapes fails the test.
func consume(t *testing.T, r result, args ...string) streamSummary {
	t.Helper()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not on PATH: the stream-json consumer cannot run here")
	}
	script, _ := filepath.Abs(filepath.Join("testdata", "stream_consumer.py"))
	cmd := exec.Command(python, append([]string{script}, args...)...)
	cmd.Stdin = strings.NewReader(r.stdout)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("the consumer refused the output: %v %s\nexit %d\nstdout:\n%s\nstderr:\n%s", err, errb.String(), r.code, r.stdout, r.stderr)
	}
	var s streamSummary
	if err := json.Unmarshal(out.Bytes(), &s); err != nil {
		t.Fatalf("consumer summary: %v: %s", err, out.String())
	}
	return s
}

// noisyHome is askHome with an init.lua that prints to stdout, as a
// user's may: in the JSON modes that goes to stderr.
func noisyHome(t *testing.T) (home, notes string) {
	home, notes = askHome(t)
	writeFile(t, home, "init.lua", `print("init noise")`)
	return home, notes
}

// stream-json: the init line names the model, the tools and the servers;
// the model's tool_use and the tool's tool_result follow as they happen;
// the result ends it. stdout holds nothing else, whatever -v and
// init.lua print.
func TestAskStreamJSON(t *testing.T) {
	home, _ := noisyHome(t)
	r := luagent(t, "", []string{"LUAGENT_HOME=" + home}, "-v", "ask", "--output-format", "stream-json", "call echo with message=hi")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	s := consume(t, r, "--results", "1")
	if !sessionid.Valid(s.SessionID) {
		t.Errorf("session_id %q is not a session id", s.SessionID)
	}
	wd, _ := os.Getwd()
	if s.Init.Model != "mock" || !slices.Contains(s.Init.Tools, "srv__echo") || !slices.Contains(s.Init.Tools, "srv__write") ||
		len(s.Init.MCPServers) != 1 || s.Init.MCPServers[0].Name != "srv" || s.Init.MCPServers[0].Status != "connected" ||
		s.Init.PermissionMode != "default" || s.Init.Cwd != wd {
		t.Errorf("init: %+v", s.Init)
	}
	if len(s.ToolUses) != 1 || s.ToolUses[0].Name != "srv__echo" || s.ToolUses[0].Input["message"] != "hi" {
		t.Errorf("tool uses: %+v", s.ToolUses)
	}
	if len(s.ToolResults) != 1 || s.ToolResults[0].Text != "pong:hi" || s.ToolResults[0].IsError || s.ToolResults[0].ToolUseID != s.ToolUses[0].ID {
		t.Errorf("tool results: %+v", s.ToolResults)
	}
	res := s.Results[0]
	if res.Subtype != "success" || res.IsError || !strings.Contains(res.Result, "pong:hi") || res.NumTurns != 2 ||
		res.Usage.InputTokens == 0 || res.Usage.OutputTokens == 0 || len(res.PermissionDenials) != 0 {
		t.Errorf("result: %+v", res)
	}
	if len(s.Texts) != 1 || s.Texts[0] != res.Result {
		t.Errorf("texts %q, result %q", s.Texts, res.Result)
	}
	// The noise went to stderr: init.lua's print, -v's protocol trace,
	// the tool activity.
	for _, want := range []string{"init noise", "srv › echo", "tools/call"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
}

// json: stdout is the one result object; with --yes a mutating tool runs
// (permissionMode says bypassPermissions in stream-json).
func TestAskOutputJSON(t *testing.T) {
	home, notes := noisyHome(t)
	env := []string{"LUAGENT_HOME=" + home}
	r := luagent(t, "", env, "ask", "--output-format", "json", "--yes", "please write text=hello")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	s := consume(t, r, "--format", "json")
	if res := s.Results[0]; res.Subtype != "success" || res.IsError || !strings.Contains(res.Result, "wrote hello") || !sessionid.Valid(res.SessionID) {
		t.Errorf("result: %+v", res)
	}
	if b, _ := os.ReadFile(notes); string(b) != "hello\n" {
		t.Errorf("notes: %q", b)
	}
	r = luagent(t, "", env, "ask", "--output-format", "stream-json", "--yes", "call echo with message=x")
	if s := consume(t, r, "--results", "1"); s.Init.PermissionMode != "bypassPermissions" {
		t.Errorf("--yes: permissionMode %q", s.Init.PermissionMode)
	}
	// text is today's output; --json is today's transcript, beside it
	// (init.lua's print is theirs too, as before).
	quiet, _ := askHome(t)
	env = []string{"LUAGENT_HOME=" + quiet}
	r = luagent(t, "", env, "ask", "--output-format", "text", "call echo with message=plain")
	if r.code != 0 || strings.TrimSpace(r.stdout) != `The tool returned: "pong:plain"` {
		t.Errorf("text: exit %d %q", r.code, r.stdout)
	}
	r = luagent(t, "", env, "ask", "--json", "call echo with message=tr")
	var tr struct{ End string }
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &tr) != nil || tr.End != "answer" {
		t.Errorf("--json: exit %d %q", r.code, r.stdout)
	}
}

// --input-format stream-json: one turn per user message on stdin, in one
// session, a result after each. A call the policy would ask about is
// denied, nobody asked (the next message is not read as an answer), and
// the result lists it in permission_denials.
func TestAskStreamJSONInput(t *testing.T) {
	home, notes := noisyHome(t)
	in := `{"type":"user","message":{"role":"user","content":"call echo with message=one"}}
{"type":"user","message":{"role":"user","content":[{"type":"text","text":"please write text=two"}]},"parent_tool_use_id":null,"session_id":""}

{"type":"user","message":{"role":"user","content":"call echo with message=three"}}
`
	r := luagent(t, in, []string{"LUAGENT_HOME=" + home}, "ask", "--output-format", "stream-json", "--input-format", "stream-json")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	s := consume(t, r, "--results", "3")
	for i, want := range []string{"pong:one", "denied", "pong:three"} {
		res := s.Results[i]
		if res.Subtype != "success" || res.IsError || !strings.Contains(res.Result, want) || res.SessionID != s.SessionID {
			t.Errorf("result %d: %+v, want %q", i+1, res, want)
		}
	}
	d := s.Results[1].PermissionDenials
	if len(d) != 1 || d[0].ToolName != "srv__write" || d[0].ToolInput["text"] != "two" || len(s.Results[0].PermissionDenials) != 0 {
		t.Errorf("permission denials: %+v", d)
	}
	if _, err := os.Stat(notes); err == nil {
		t.Errorf("the denied write ran")
	}
	if len(s.ToolUses) != 3 || len(s.ToolResults) != 3 || !s.ToolResults[1].IsError {
		t.Errorf("tool uses %+v results %+v", s.ToolUses, s.ToolResults)
	}
}

// A malformed input line is an error result saying what is wrong; the
// lines after it are still read, nothing crashes, and the exit is 1.
func TestAskStreamJSONBadInput(t *testing.T) {
	home, _ := askHome(t)
	in := "not json\n" +
		`{"type":"user"}` + "\n" +
		`{"type":"control_request","request_id":"1","request":{"subtype":"interrupt"}}` + "\n" +
		`{"type":"user","message":{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":""}}]}}` + "\n" +
		`{"type":"user","message":{"role":"user","content":"call echo with message=ok"}}` + "\n" +
		`{"type":"user","message":`
	r := luagent(t, in, []string{"LUAGENT_HOME=" + home}, "ask", "--output-format", "stream-json", "--input-format", "stream-json")
	noGoStack(t, r.stderr)
	if r.code != 1 {
		t.Errorf("exit %d, want 1\nstderr: %s", r.code, r.stderr)
	}
	s := consume(t, r, "--results", "6")
	for i, want := range []string{"line 1: not a JSON object", `line 2: a user message needs "message"`, `line 3: only "type":"user" messages are read, not "control_request"`,
		`line 4: content block 1 is "image"`, "pong:ok", "line 6: not a JSON object"} {
		res := s.Results[i]
		bad := i != 4
		if res.IsError != bad || !strings.Contains(res.Result, want) || (bad && res.Subtype != "error_during_execution") {
			t.Errorf("result %d: %+v, want %q", i+1, res, want)
		}
	}
	if !strings.Contains(r.stderr, "line 1: not a JSON object") {
		t.Errorf("stderr does not say so: %s", r.stderr)
	}
}

// Failures end with an error result too, and a nonzero exit: a model that
// cannot be made, a server not in the catalog, no prompt, the turns
// running out. Usage mistakes with the flags themselves are usage errors.
func TestAskStreamJSONErrors(t *testing.T) {
	home, _ := askHome(t)
	agentFile := writeFile(t, t.TempDir(), "turns.lua", `return agent.new{ model = "mock", max_turns = 1, hub = false,
  tools = { { name = "count", description = "Count words", input = { text = "string" }, annotations = { readOnlyHint = true },
    handler = function(a) return "3" end } } }`)
	for _, tc := range []struct {
		name    string
		args    []string
		code    int
		subtype string
		want    string
	}{
		{"bad model", []string{"--model", "nosuch:model", "hi"}, 1, "error_during_execution", "nosuch"},
		{"no server", []string{"--server", "nope", "hi"}, 2, "error_during_execution", `no server "nope"`},
		{"no prompt", nil, 2, "error_during_execution", "ask needs a prompt"},
		{"max turns", []string{"--agent", agentFile, "count text=a b c"}, 1, "error_max_turns", "max_turns 1"},
	} {
		for _, format := range []string{"stream-json", "json"} {
			r := luagent(t, "", []string{"LUAGENT_HOME=" + home}, append([]string{"ask", "--output-format", format}, tc.args...)...)
			if r.code != tc.code {
				t.Errorf("%s %s: exit %d, want %d\nstdout: %s\nstderr: %s", tc.name, format, r.code, tc.code, r.stdout, r.stderr)
			}
			args := []string{"--format", format}
			if format == "stream-json" {
				args = append(args, "--results", "1")
			}
			s := consume(t, r, args...)
			res := s.Results[0]
			if !res.IsError || res.Subtype != tc.subtype || !strings.Contains(res.Result, tc.want) {
				t.Errorf("%s %s: %+v, want %s %q", tc.name, format, res, tc.subtype, tc.want)
			}
			noGoStack(t, r.stderr)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--output-format", "yaml", "hi"}, "--output-format must be text, json or stream-json"},
		{[]string{"--input-format", "xml", "hi"}, "--input-format must be text or stream-json"},
		{[]string{"--input-format", "stream-json"}, "--input-format stream-json needs --output-format stream-json"},
		{[]string{"--output-format", "stream-json", "--input-format", "stream-json", "hi"}, "reads its prompts from stdin"},
		{[]string{"--output-format", "json", "--json", "hi"}, "--json is the transcript"},
	} {
		r := luagent(t, "", []string{"LUAGENT_HOME=" + home}, append([]string{"ask"}, tc.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) || r.stdout != "" {
			t.Errorf("%v: exit %d\nstdout: %s\nstderr: %s\nwant %q", tc.args, r.code, r.stdout, r.stderr, tc.want)
		}
	}
}

// An agent file that writes to stdout every way it can (print, io.write,
// a child process) leaves the JSON alone: all of it goes to stderr.
func TestAskStreamJSONStdoutIsOurs(t *testing.T) {
	agentFile := writeFile(t, t.TempDir(), "noisy.lua", `print("print noise")
io.write("io.write noise\n")
io.stdout:write("io.stdout noise\n")
os.execute("echo child noise")
return agent.new{ model = "mock", hub = false }`)
	r := luagent(t, "", nil, "ask", "--output-format", "stream-json", "--agent", agentFile, "hi")
	s := consume(t, r, "--results", "1")
	if r.code != 0 || s.Results[0].Result != "mock: hi" {
		t.Errorf("exit %d: %+v", r.code, s.Results)
	}
	for _, want := range []string{"print noise", "io.write noise", "io.stdout noise", "child noise"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
}

// Ctrl-C ends a headless ask at once, exit 130: mid-turn the turn's
// result says it was cancelled; waiting for the next input line (stdin
// still open) it ends without waiting for the line.
func TestAskStreamJSONInterrupted(t *testing.T) {
	home, _ := askHome(t)
	dir := t.TempDir()
	slow := writeFile(t, dir, "slow.lua", `return agent.new{ hub = false, model = function()
  io.stderr:write("thinking\n"); task.sleep(30); return { text = "late" }
end }`)
	quick := writeFile(t, dir, "quick.lua", `return agent.new{ hub = false, model = function() return { text = "quick" } end }`)
	for _, tc := range []struct {
		name, input string
		args        []string
		results     int
	}{
		{"mid-turn", "", []string{"--agent", slow, "be slow"}, 1},
		{"waiting for input", `{"type":"user","message":{"role":"user","content":"hi"}}` + "\n", []string{"--agent", quick, "--input-format", "stream-json"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, append([]string{"ask", "--output-format", "stream-json"}, tc.args...)...)
			cmd.Env = append(os.Environ(), "LUAGENT_HOME="+home)
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			out, errw := newLogWatch(), newLogWatch()
			cmd.Stdout, cmd.Stderr = out, errw
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			io.WriteString(stdin, tc.input)
			var ready bool
			if tc.input == "" {
				ready = errw.waitFor("thinking")
			} else {
				ready = out.waitFor(`"type":"result"`)
			}
			if !ready {
				cmd.Process.Kill()
				t.Fatalf("not started:\nstdout: %s\nstderr: %s", out, errw)
			}
			cmd.Process.Signal(syscall.SIGINT)
			done := make(chan struct{})
			go func() { cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatalf("still running 20 s after SIGINT:\nstdout: %s\nstderr: %s", out, errw)
			}
			if code := cmd.ProcessState.ExitCode(); code != 130 {
				t.Errorf("exit %d, want 130", code)
			}
			s := consume(t, result{stdout: out.String(), stderr: errw.String()}, "--results", fmt.Sprint(tc.results))
			res := s.Results[len(s.Results)-1]
			if tc.input == "" && (!res.IsError || !strings.Contains(res.Result, "interrupted by SIGINT")) {
				t.Errorf("result: %+v", res)
			}
			if tc.input != "" && (res.IsError || res.Result != "quick") {
				t.Errorf("result: %+v", res)
			}
		})
	}
}

// The messages of one stream-json input are turns of one conversation:
// the model sees the earlier ones.
func TestAskStreamJSONInputIsOneConversation(t *testing.T) {
	agentFile := writeFile(t, t.TempDir(), "count.lua", `return agent.new{ hub = false, model = function(req)
  return { text = "messages: " .. #req.messages }
end }`)
	in := strings.Repeat(`{"type":"user","message":{"role":"user","content":"again"}}`+"\n", 3)
	r := luagent(t, in, nil, "ask", "--output-format", "stream-json", "--input-format", "stream-json", "--agent", agentFile)
	s := consume(t, r, "--results", "3")
	for i, want := range []string{"messages: 1", "messages: 3", "messages: 5"} {
		if s.Results[i].Result != want {
			t.Errorf("turn %d: %q, want %q", i+1, s.Results[i].Result, want)
		}
	}
}

// Every kind of line ask prints type-checks as the Claude Agent SDK's own
// message types: scripts/sdktypes/check.mjs, @anthropic-ai/claude-agent-sdk's
// sdk.d.ts and tsc (make peers installs them; nothing runs the SDK).
func TestAskStreamJSONAgentSDKTypes(t *testing.T) {
	dir := filepath.Join(testkit.RepoRoot(t), "scripts", "sdktypes")
	node, err := exec.LookPath("node")
	if _, serr := os.Stat(filepath.Join(dir, "node_modules", "typescript", "package.json")); serr != nil || err != nil {
		msg := "scripts/sdktypes is not installed (or node is not on PATH)"
		if os.Getenv(testkit.SkipEnv) == "1" {
			t.Skipf("%s (%s=1)", msg, testkit.SkipEnv)
		}
		t.Fatalf("%s: run `make peers` (or set %s=1 to skip)", msg, testkit.SkipEnv)
	}
	home, _ := askHome(t)
	env := []string{"LUAGENT_HOME=" + home}
	input := `{"type":"user","message":{"role":"user","content":"call echo with message=one"}}
{"type":"user","message":{"role":"user","content":[{"type":"text","text":"please write text=two"}]}}
not json
`
	var files []string
	for i, run := range []struct {
		stdin string
		args  []string
	}{
		{"", []string{"--output-format", "stream-json", "please write text=denied"}},
		{"", []string{"--output-format", "stream-json", "--yes", "please write text=allowed"}},
		{"", []string{"--output-format", "stream-json", "--model", "nosuch:model", "hi"}},
		{"", []string{"--output-format", "stream-json", "--server", "nope", "hi"}},
		{input, []string{"--output-format", "stream-json", "--input-format", "stream-json"}},
		{"", []string{"--output-format", "json", "call echo with message=json"}},
		{"", []string{"--output-format", "json", "--model", "nosuch:model", "hi"}},
	} {
		r := luagent(t, run.stdin, env, append([]string{"ask"}, run.args...)...)
		if r.stdout == "" {
			t.Fatalf("%v: no output (exit %d): %s", run.args, r.code, r.stderr)
		}
		files = append(files, writeFile(t, t.TempDir(), fmt.Sprintf("run%d.jsonl", i), r.stdout))
	}
	cmd := exec.Command(node, append([]string{filepath.Join(dir, "check.mjs")}, files...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the Agent SDK's types refuse ask's output: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}

// A provider's key never reaches stdout, whatever carries it: masked on
// every line.
func TestAskStreamJSONMasksKeys(t *testing.T) {
	agentFile := writeFile(t, t.TempDir(), "leaky.lua", `return agent.new{ hub = false, model = function()
  return { text = "the key is " .. env.get("OPENAI_API_KEY") }
end }`)
	for _, format := range []string{"stream-json", "json"} {
		r := luagent(t, "", []string{"OPENAI_API_KEY=sk-test-SECRET-1234"}, "ask", "--output-format", format, "--agent", agentFile, "hi")
		if r.code != 0 || strings.Contains(r.stdout+r.stderr, "SECRET") || !strings.Contains(r.stdout, "the key is <secret>") {
			t.Errorf("%s: exit %d\nstdout: %s\nstderr: %s", format, r.code, r.stdout, r.stderr)
		}
	}
}
