package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/testkit"
)

// The tests here drive ACP agents with the official ACP TypeScript SDK's
// client connection (@agentclientprotocol/sdk, pinned in
// scripts/acpclient) through scripts/acpclient/drive.mjs, which prints one
// JSON transcript per run (scripts/acpclient/README.md).

type acpError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

type acpUpdate struct {
	SessionUpdate string          `json:"sessionUpdate"`
	Content       json.RawMessage `json:"content"`
	ToolCallID    string          `json:"toolCallId"`
	Title         string          `json:"title"`
	Kind          string          `json:"kind"`
	Status        string          `json:"status"`
	Locations     []struct {
		Path string `json:"path"`
	} `json:"locations"`
	RawInput json.RawMessage `json:"rawInput"`
	raw      json.RawMessage // the whole update
}

func (u *acpUpdate) UnmarshalJSON(b []byte) error {
	type plain acpUpdate
	if err := json.Unmarshal(b, (*plain)(u)); err != nil {
		return err
	}
	u.raw = append(json.RawMessage(nil), b...)
	return nil
}

type acpPermission struct {
	ToolCall struct {
		ToolCallID string `json:"toolCallId"`
		Title      string `json:"title"`
		Kind       string `json:"kind"`
	} `json:"toolCall"`
	Options []struct {
		OptionID string `json:"optionId"`
		Name     string `json:"name"`
		Kind     string `json:"kind"`
	} `json:"options"`
	Held   bool   `json:"held"`
	Answer string `json:"answer"`
}

type acpOp struct {
	Op          string          `json:"op"`
	OK          bool            `json:"ok"`
	Result      json.RawMessage `json:"result"`
	Error       *acpError       `json:"error"`
	Updates     []acpUpdate     `json:"updates"`
	Text        string          `json:"text"`
	Permissions []acpPermission `json:"permissions"`
	CancelSent  bool            `json:"cancelSent"`
	// elicitation/create requests, with the answer given.
	Elicitations []struct {
		Mode            string          `json:"mode"`
		Message         string          `json:"message"`
		RequestedSchema json.RawMessage `json:"requestedSchema"`
		ToolCallID      string          `json:"toolCallId"`
		Answer          json.RawMessage `json:"answer"`
	} `json:"elicitations"`
}

// String shows the op as JSON, for failure messages.
func (o acpOp) String() string {
	b, _ := json.Marshal(o)
	return string(b)
}

// stopReason is a prompt op's stopReason ("" when it failed).
func (o acpOp) stopReason() string {
	var r struct {
		StopReason string `json:"stopReason"`
	}
	json.Unmarshal(o.Result, &r)
	return r.StopReason
}

// kinds lists the op's sessionUpdate kinds, tool calls with their status.
func (o acpOp) kinds() []string {
	var ks []string
	for _, u := range o.Updates {
		k := u.SessionUpdate
		if u.Status != "" {
			k += ":" + u.Status
		}
		ks = append(ks, k)
	}
	return ks
}

type acpTranscript struct {
	Root string  `json:"root"`
	Ops  []acpOp `json:"ops"`
	Raw  []struct {
		ID    json.RawMessage `json:"id"`
		Error *acpError       `json:"error"`
	} `json:"raw"`
	FS []struct {
		Method string `json:"method"`
		Path   string `json:"path"`
	} `json:"fs"`
	Terminals []struct {
		Command  string   `json:"command"`
		Args     []string `json:"args"`
		Killed   bool     `json:"killed"`
		Released bool     `json:"released"`
	} `json:"terminals"`
	Stray      []json.RawMessage `json:"stray"`
	TimedOut   bool              `json:"timedOut"`
	AliveAtEnd bool              `json:"aliveAtEnd"`
	Exit       struct {
		Code   *int    `json:"code"`
		Signal *string `json:"signal"`
	} `json:"exit"`
	stderr string
}

// op returns the i-th op, failing the test when there are fewer.
func (tr acpTranscript) op(t *testing.T, i int) acpOp {
	t.Helper()
	if i >= len(tr.Ops) {
		t.Fatalf("the transcript has %d ops, want op %d\nstderr:\n%s", len(tr.Ops), i, tr.stderr)
	}
	return tr.Ops[i]
}

// driveACP runs drive.mjs with ops (a JSON array) against the agent
// command line, the client's folder root ("" for a new one), and returns
// the transcript. The agent's stderr is in tr.stderr.
func driveACP(t *testing.T, root, ops string, env []string, agent ...string) acpTranscript {
	t.Helper()
	node, args := testkit.ACPClient(t)
	if root == "" {
		root = t.TempDir()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args = append(args, "--timeout", "60000", "--root", root, "--")
	cmd := exec.CommandContext(ctx, node, append(args, agent...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(ops)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("drive.mjs: %v\n%s\n%s", err, out, stderr.String())
	}
	var tr acpTranscript
	if err := json.Unmarshal(out, &tr); err != nil {
		t.Fatalf("transcript: %v\n%s\n%s", err, out, stderr.String())
	}
	tr.stderr = stderr.String()
	if tr.TimedOut {
		t.Fatalf("drive.mjs timed out:\n%s\n%s", out, tr.stderr)
	}
	return tr
}

// The driver itself, against a tiny agent on the SDK's own agent side
// (scripts/acpclient/testdata/fakeagent.mjs): permissions answered as
// scripted, cancel at a running tool call, a held permission while a
// second prompt is refused, errors from the agent and from raw lines, and
// load replaying the session.
func TestACPDriverFakeAgent(t *testing.T) {
	node, _ := testkit.ACPClient(t)
	fake, _ := filepath.Abs("../../scripts/acpclient/testdata/fakeagent.mjs")
	ops := `[{"op":"initialize","clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true},"terminal":true,"elicitation":{"form":{}}}},
{"op":"new","as":"s1"},
{"op":"prompt","session":"s1","text":"hello"},
{"op":"prompt","session":"s1","text":"tool","permissions":["allow_once"]},
{"op":"prompt","session":"s1","text":"tool","permissions":["allow_always"]},
{"op":"prompt","session":"s1","text":"tool","permissions":["reject_once"]},
{"op":"prompt","session":"s1","text":"slow","cancelOn":"in_progress"},
{"op":"prompt","session":"s1","text":"tool","background":true,"until":"permission","permissions":["hold"],"as":"a"},
{"op":"prompt","session":"s1","text":"hello"},
{"op":"answer","choice":"allow_once"},
{"op":"await"},
{"op":"prompt","session":"nope","text":"hello"},
{"op":"raw","line":"{this is not json"},
{"op":"raw","line":{"jsonrpc":"2.0","id":"raw-1","method":"session/prompt","params":{"sessionId":"$s1"}}},
{"op":"load","session":"s1"},
{"op":"prompt","session":"s1","text":"hello"},
{"op":"writeFile","path":"notes.txt","content":"one\ntwo\nthree\n"},
{"op":"prompt","session":"s1","text":"read"},
{"op":"prompt","session":"s1","text":"term"},
{"op":"prompt","session":"s1","text":"elicit","elicitations":[{"action":"accept","content":{"name":"Ada"}}]},
{"op":"prompt","session":"s1","text":"elicit"}]`
	tr := driveACP(t, "", ops, nil, node, fake)
	for i, o := range tr.Ops {
		want := !(i == 8 || i == 11)
		if o.OK != want {
			t.Errorf("op %d %s: ok=%v, want %v: %+v", i, o.Op, o.OK, want, o)
		}
	}
	if o := tr.op(t, 2); o.Text != "Hello, world" || o.stopReason() != "end_turn" {
		t.Errorf("hello: %s", o)
	}
	for i, want := range map[int]string{3: "completed", 4: "completed", 5: "failed"} {
		o := tr.op(t, i)
		if got := strings.Join(o.kinds(), " "); got != "tool_call:pending tool_call_update:"+want+" agent_message_chunk" {
			t.Errorf("op %d: updates %s", i, got)
		}
		if len(o.Permissions) != 1 || len(o.Permissions[0].Options) != 3 {
			t.Errorf("op %d: permissions %+v", i, o.Permissions)
		}
	}
	if len(tr.FS) != 5 || tr.FS[0].Method != "fs/write_text_file" || tr.FS[4].Path != "/etc/hostname" { // allow_once, allow_always, the held one; two reads
		t.Errorf("fs: %+v", tr.FS)
	}
	if o := tr.op(t, 6); o.stopReason() != "cancelled" || !o.CancelSent {
		t.Errorf("cancel: %s", o)
	}
	if o := tr.op(t, 7); o.stopReason() != "end_turn" || len(o.Permissions) != 1 || !o.Permissions[0].Held {
		t.Errorf("held: %s", o)
	}
	if o := tr.op(t, 8); o.Error == nil || o.Error.Code != -32600 {
		t.Errorf("prompt during a prompt: %s", o)
	}
	if o := tr.op(t, 11); o.Error == nil || o.Error.Code != -32002 {
		t.Errorf("unknown session: %s", o)
	}
	if len(tr.Raw) != 2 || tr.Raw[0].Error.Code != -32700 || string(tr.Raw[0].ID) != "null" || tr.Raw[1].Error.Code != -32602 {
		t.Errorf("raw: %+v", tr.Raw)
	}
	if o := tr.op(t, 14); len(o.Updates) < 10 || !strings.Contains(o.Text, "Hello, world") {
		t.Errorf("load: %s", o)
	}
	if o := tr.op(t, 17); o.Text != "read: two outside: -32602" {
		t.Errorf("fs/read_text_file: %q", o.Text)
	}
	if o := tr.op(t, 18); o.Text != "terminal: from-terminal exit 3" {
		t.Errorf("terminal: %q", o.Text)
	}
	for i, want := range map[int]string{19: "elicit: accept Ada", 20: "elicit: decline"} {
		if o := tr.op(t, i); o.Text != want || len(o.Elicitations) != 1 || o.Elicitations[0].Message != "Your name?" {
			t.Errorf("elicitation: %s", o)
		}
	}
	if !tr.AliveAtEnd || tr.Exit.Code == nil || *tr.Exit.Code != 0 {
		t.Errorf("the agent: alive %v, exit %+v", tr.AliveAtEnd, tr.Exit)
	}
}

// acpEnv is a fresh LUAGENT_HOME (and no LUA_PATH) for one luagent acp.
func acpEnv(home string) []string {
	return []string{"LUAGENT_HOME=" + home, "LUA_PATH=", "LUAGENT_MODEL="}
}

// acpServers is the session/new mcpServers value naming the Go SDK test
// server (tools echo, add, slow, ...) over stdio, as "t".
func acpServers(t *testing.T) string {
	cmd, args := testkit.GoSDKServer(t, "legacy")
	b, _ := json.Marshal([]map[string]any{{"name": "t", "command": cmd, "args": args, "env": []any{}}})
	return string(b)
}

// toolCalls returns the op's tool_call updates and the last status each
// tool call reached.
func (o acpOp) toolCalls() (calls []acpUpdate, last map[string]string) {
	last = map[string]string{}
	for _, u := range o.Updates {
		switch u.SessionUpdate {
		case "tool_call":
			calls = append(calls, u)
			last[u.ToolCallID] = u.Status
		case "tool_call_update":
			if u.Status != "" {
				last[u.ToolCallID] = u.Status
			}
		}
	}
	return calls, last
}

// `luagent acp` driven by the ACP TypeScript SDK's client through one
// scripted session with the mock model: initialize, session/new with a
// client-passed MCP server, a prompt answered in text chunks, tool calls
// that ask permission (allowed once, allowed always, then asked no more,
// rejected), and a prompt cancelled while its slow tool runs.
func TestACPSDKScriptedSession(t *testing.T) {
	home := t.TempDir()
	ops := `[{"op":"initialize"},
{"op":"new","as":"s1","mcpServers":` + acpServers(t) + `},
{"op":"prompt","session":"s1","text":"hello there"},
{"op":"prompt","session":"s1","text":"call echo with message=once","permissions":["allow_once"]},
{"op":"prompt","session":"s1","text":"call echo with message=always","permissions":["allow_always"]},
{"op":"prompt","session":"s1","text":"call echo with message=again"},
{"op":"prompt","session":"s1","text":"add a=2 b=3","permissions":["reject_once"]},
{"op":"prompt","session":"s1","text":"call slow with seconds=60","permissions":["allow_once"],"cancelOn":"in_progress"},
{"op":"prompt","session":"s1","text":"call echo with message=after"},
{"op":"setMode","session":"s1","modeId":"bypassPermissions"},
{"op":"prompt","session":"s1","text":"add a=2 b=3"}]`
	tr := driveACP(t, "", ops, acpEnv(home), bin, "acp", "--model", "mock")
	for i, o := range tr.Ops {
		if !o.OK {
			t.Errorf("op %d %s failed: %+v", i, o.Op, o.Error)
		}
	}
	var init struct {
		ProtocolVersion   int `json:"protocolVersion"`
		AgentCapabilities struct {
			LoadSession        bool `json:"loadSession"`
			PromptCapabilities struct {
				EmbeddedContext bool `json:"embeddedContext"`
			} `json:"promptCapabilities"`
			MCPCapabilities struct {
				HTTP bool `json:"http"`
			} `json:"mcpCapabilities"`
		} `json:"agentCapabilities"`
	}
	json.Unmarshal(tr.op(t, 0).Result, &init)
	if init.ProtocolVersion != 1 || !init.AgentCapabilities.LoadSession || !init.AgentCapabilities.MCPCapabilities.HTTP {
		t.Errorf("initialize: %s", tr.op(t, 0).Result)
	}
	// With tools offered the mock model always calls one: here a
	// read-only meta-tool, which runs unasked, then it answers in text.
	o := tr.op(t, 2)
	calls, last := o.toolCalls()
	if o.stopReason() != "end_turn" || !strings.Contains(o.Text, "The tool returned") || len(o.Permissions) != 0 ||
		len(calls) != 1 || calls[0].Kind != "read" || last[calls[0].ToolCallID] != "completed" {
		t.Errorf("a prompt calling a read-only tool: %s", o)
	}
	// allow once: asked with the three options, the call completes and
	// the model quotes its result.
	o = tr.op(t, 3)
	calls, last = o.toolCalls()
	if len(o.Permissions) != 1 || len(calls) != 1 || last[calls[0].ToolCallID] != "completed" || !strings.Contains(o.Text, "once") {
		t.Errorf("allow once: %s\n%s", strings.Join(o.kinds(), " "), o)
	} else {
		kinds := map[string]bool{}
		for _, opt := range o.Permissions[0].Options {
			kinds[opt.Kind] = true
		}
		if !kinds["allow_once"] || !kinds["allow_always"] || !kinds["reject_once"] {
			t.Errorf("permission options: %+v", o.Permissions[0].Options)
		}
		if calls[0].Title == "" || calls[0].Kind == "" || o.Permissions[0].ToolCall.ToolCallID != calls[0].ToolCallID {
			t.Errorf("tool call: %+v, permission %+v", calls[0], o.Permissions[0].ToolCall)
		}
	}
	// allow always: asked once, then the same tool runs unasked.
	for i, asked := range map[int]int{4: 1, 5: 0} {
		o := tr.op(t, i)
		calls, last := o.toolCalls()
		if len(o.Permissions) != asked || len(calls) != 1 || last[calls[0].ToolCallID] != "completed" {
			t.Errorf("op %d (allow always): asked %d times, want %d: %s", i, len(o.Permissions), asked, strings.Join(o.kinds(), " "))
		}
	}
	// reject: the call fails and the turn still ends normally.
	o = tr.op(t, 6)
	calls, last = o.toolCalls()
	if len(o.Permissions) != 1 || len(calls) != 1 || last[calls[0].ToolCallID] != "failed" || o.stopReason() != "end_turn" {
		t.Errorf("reject: %s\n%s", strings.Join(o.kinds(), " "), o)
	}
	// cancel while the slow tool runs: stopReason cancelled, the call
	// does not end completed.
	o = tr.op(t, 7)
	calls, last = o.toolCalls()
	if !o.CancelSent || o.stopReason() != "cancelled" || len(calls) != 1 || last[calls[0].ToolCallID] == "completed" {
		t.Errorf("cancel: sent %v, %s\n%s", o.CancelSent, strings.Join(o.kinds(), " "), o)
	}
	// the session goes on after the cancel (echo is allowed always now).
	if o := tr.op(t, 8); o.stopReason() != "end_turn" || !strings.Contains(o.Text, "after") || len(o.Permissions) != 0 {
		t.Errorf("after the cancel: %s", o)
	}
	// "allow always" is a saved allow rule (config.json's permissions).
	if cfg, err := os.ReadFile(filepath.Join(home, "config.json")); err != nil || !strings.Contains(string(cfg), "echo") {
		t.Errorf("no saved allow rule for echo in config.json (%v):\n%s", err, cfg)
	}
	// set_mode bypassPermissions: what would ask runs unasked.
	if o := tr.op(t, 10); o.stopReason() != "end_turn" || len(o.Permissions) != 0 || !strings.Contains(o.Text, `"5"`) {
		t.Errorf("after set_mode bypassPermissions: %s", o)
	}
	if !tr.AliveAtEnd || tr.Exit.Code == nil || *tr.Exit.Code != 0 {
		t.Errorf("luagent acp: alive %v, exit %+v\n%s", tr.AliveAtEnd, tr.Exit, tr.stderr)
	}
}

// The client's file system and terminal, offered at initialize, are
// tools of the session: reading runs unasked (read-only), writing and
// running a command ask first, and each goes through the client
// (fs/read_text_file, fs/write_text_file, terminal/create).
func TestACPSDKClientTools(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "notes.txt", "first line\nsecond line\n")
	ops := `[{"op":"initialize"},{"op":"new","as":"s1"},
{"op":"prompt","session":"s1","text":"read the text file path=notes.txt"},
{"op":"prompt","session":"s1","text":"write the text file path=out.txt content=written-by-luagent","permissions":["allow_once"]},
{"op":"prompt","session":"s1","text":"run command command=sh args='[\"-c\",\"echo from-the-terminal\"]'","permissions":["allow_once"]},
{"op":"readFile","path":"out.txt"}]`
	tr := driveACP(t, root, ops, acpEnv(t.TempDir()), bin, "acp", "--model", "mock")
	for i, o := range tr.Ops {
		if !o.OK {
			t.Errorf("op %d %s failed: %s", i, o.Op, o)
		}
	}
	if o := tr.op(t, 2); len(o.Permissions) != 0 || !strings.Contains(o.Text, "second line") {
		t.Errorf("read_text_file: %s", o)
	}
	if o := tr.op(t, 3); len(o.Permissions) != 1 || o.stopReason() != "end_turn" {
		t.Errorf("write_text_file: %s", o)
	}
	if o := tr.op(t, 4); len(o.Permissions) != 1 || !strings.Contains(o.Text, "from-the-terminal") {
		t.Errorf("run_command: %s", o)
	}
	var file struct {
		Content string `json:"content"`
	}
	json.Unmarshal(tr.op(t, 5).Result, &file)
	if file.Content != "written-by-luagent" {
		t.Errorf("out.txt holds %q", file.Content)
	}
	var methods []string
	for _, f := range tr.FS {
		methods = append(methods, f.Method)
	}
	if strings.Join(methods, " ") != "fs/read_text_file fs/write_text_file" {
		t.Errorf("fs requests: %v", methods)
	}
	if len(tr.Terminals) != 1 || tr.Terminals[0].Command != "sh" {
		t.Errorf("terminals: %+v", tr.Terminals)
	}
	// The run_command tool call shows the editor's terminal.
	shown := false
	for _, u := range tr.op(t, 4).Updates {
		var blocks []struct {
			Type       string `json:"type"`
			TerminalID string `json:"terminalId"`
		}
		json.Unmarshal(u.Content, &blocks)
		for _, b := range blocks {
			shown = shown || (b.Type == "terminal" && b.TerminalID == "term-1")
		}
	}
	if !shown {
		t.Errorf("no terminal content block for term-1: %s", tr.op(t, 4))
	}
}

// session/load in a new luagent acp process resumes a saved session: its
// history comes back as session/update notifications (the user's words,
// the answer, the tool call) before the load answers, and the next prompt
// continues it.
func TestACPSDKLoadSession(t *testing.T) {
	home := t.TempDir()
	root := t.TempDir()
	servers := acpServers(t)
	first := driveACP(t, root, `[{"op":"initialize"},{"op":"new","as":"s1","mcpServers":`+servers+`},
{"op":"prompt","session":"s1","text":"call echo with message=remembered","permissions":["allow_once"]}]`,
		acpEnv(home), bin, "acp", "--model", "mock")
	var created struct {
		SessionID string `json:"sessionId"`
	}
	json.Unmarshal(first.op(t, 1).Result, &created)
	if created.SessionID == "" || first.op(t, 2).stopReason() != "end_turn" {
		t.Fatalf("first run: %+v\n%s", first.Ops, first.stderr)
	}
	ops := `[{"op":"initialize"},
{"op":"load","sessionId":"` + created.SessionID + `","as":"s1","mcpServers":` + servers + `},
{"op":"prompt","session":"s1","text":"hello again"}]`
	tr := driveACP(t, root, ops, acpEnv(home), bin, "acp", "--model", "mock")
	load := tr.op(t, 1)
	if !load.OK {
		t.Fatalf("session/load: %+v\n%s", load.Error, tr.stderr)
	}
	kinds := strings.Join(load.kinds(), " ")
	var user string
	for _, u := range load.Updates {
		if u.SessionUpdate == "user_message_chunk" {
			user += string(u.Content)
		}
	}
	if !strings.Contains(user, "remembered") || !strings.Contains(kinds, "tool_call") || !strings.Contains(load.Text, "remembered") {
		t.Errorf("replayed: %s\nuser %s\ntext %q", kinds, user, load.Text)
	}
	if o := tr.op(t, 2); !o.OK || o.stopReason() != "end_turn" || !strings.Contains(o.Text, "The tool returned") {
		t.Errorf("prompt after load: %s", o)
	}
	if len(tr.Stray) != 0 {
		t.Errorf("updates outside any request: %s", tr.Stray)
	}
}

// Bad input gets clear JSON-RPC errors through the SDK and luagent acp
// keeps serving: an unknown session id, a prompt while one runs (held at
// its permission question), a line that is not JSON, a prompt without its
// prompt, an unknown method; afterwards the held prompt still completes
// and a new prompt works.
func TestACPSDKBadInput(t *testing.T) {
	home := t.TempDir()
	ops := `[{"op":"initialize"},
{"op":"new","as":"s1","mcpServers":` + acpServers(t) + `},
{"op":"prompt","session":"nope-no-such-session","text":"hello"},
{"op":"prompt","session":"s1","text":"call echo with message=held","background":true,"until":"permission","permissions":["hold"],"as":"held"},
{"op":"prompt","session":"s1","text":"a second prompt"},
{"op":"raw","line":"{this is not json"},
{"op":"raw","line":{"jsonrpc":"2.0","id":"raw-1","method":"session/prompt","params":{"sessionId":"$s1"}}},
{"op":"raw","line":{"jsonrpc":"2.0","id":"raw-2","method":"no/such/method","params":{}}},
{"op":"answer","choice":"allow_once"},
{"op":"await"},
{"op":"prompt","session":"s1","text":"still here"},
{"op":"raw","line":"[{\"jsonrpc\":\"2.0\",\"id\":\"raw-3\",\"method\":\"session/new\",\"params\":{}}]"},
{"op":"raw","line":{"jsonrpc":"1.0","id":"raw-4","method":"session/new"}},
{"op":"raw","line":{"jsonrpc":"2.0","method":"session/cancel","params":{}},"expect":0},
{"op":"raw","line":{"jsonrpc":"2.0","id":"raw-5","result":{}},"expect":0},
{"op":"prompt","session":"s1","text":"and still here"}]`
	tr := driveACP(t, "", ops, acpEnv(home), bin, "acp", "--model", "mock")
	if o := tr.op(t, 2); o.OK || o.Error == nil || (o.Error.Code != -32602 && o.Error.Code != -32002) || !strings.Contains(o.Error.Message+string(o.Error.Data), "nope-no-such-session") {
		t.Errorf("unknown session: %+v", o.Error)
	}
	if o := tr.op(t, 3); !o.OK || o.stopReason() != "end_turn" || len(o.Permissions) != 1 || !o.Permissions[0].Held || !strings.Contains(o.Text, "held") {
		t.Errorf("the held prompt: %s", o)
	}
	if o := tr.op(t, 4); o.OK || o.Error == nil || o.Error.Code != -32600 || !strings.Contains(o.Error.Message, "already") {
		t.Errorf("prompt during a prompt: %+v", o.Error)
	}
	// Replies to raw lines, in order: not JSON, a prompt without its
	// prompt, an unknown method, a batch (ACP has none), a wrong jsonrpc
	// version; a bad notification and a stray response get none.
	if len(tr.Raw) != 5 {
		t.Fatalf("raw replies: %+v\n%s", tr.Raw, tr.stderr)
	}
	for i, want := range []struct {
		id   string
		code int
	}{{"null", -32700}, {`"raw-1"`, -32602}, {`"raw-2"`, -32601}, {"null", -32600}, {`"raw-4"`, -32600}} {
		r := tr.Raw[i]
		if string(r.ID) != want.id || r.Error == nil || r.Error.Code != want.code || r.Error.Message == "" {
			t.Errorf("raw reply %d: id %s, error %+v; want id %s, code %d", i, r.ID, r.Error, want.id, want.code)
		}
	}
	for _, i := range []int{10, 15} {
		if o := tr.op(t, i); !o.OK || o.stopReason() != "end_turn" || !strings.Contains(o.Text, "The tool returned") {
			t.Errorf("op %d, after the bad input: %s", i, o)
		}
	}
	if !tr.AliveAtEnd || tr.Exit.Code == nil || *tr.Exit.Code != 0 {
		t.Errorf("luagent acp: alive %v, exit %+v\n%s", tr.AliveAtEnd, tr.Exit, tr.stderr)
	}
}

// A model whose key is missing: initialize names the way to
// authenticate, session/new fails with ACP's auth_required (-32000)
// naming the variable to set, authenticate says the same, an unknown
// auth method is invalid params; luagent acp keeps running.
func TestACPSDKAuthRequired(t *testing.T) {
	ops := `[{"op":"initialize"},{"op":"new","as":"s1"},
{"op":"authenticate","methodId":"env-api-key"},
{"op":"authenticate","methodId":"no-such-method"},
{"op":"request","method":"session/new","params":{"cwd":"relative/path","mcpServers":[]}}]`
	env := append(acpEnv(t.TempDir()), "ANTHROPIC_API_KEY=")
	tr := driveACP(t, "", ops, env, bin, "acp", "--model", "anthropic:claude-sonnet-4-5")
	var init struct {
		AuthMethods []struct {
			ID string `json:"id"`
		} `json:"authMethods"`
	}
	json.Unmarshal(tr.op(t, 0).Result, &init)
	if len(init.AuthMethods) == 0 || init.AuthMethods[0].ID != "env-api-key" {
		t.Errorf("initialize's authMethods: %s", tr.op(t, 0).Result)
	}
	for _, i := range []int{1, 2} {
		if o := tr.op(t, i); o.OK || o.Error == nil || o.Error.Code != -32000 || !strings.Contains(o.Error.Message, "ANTHROPIC_API_KEY") {
			t.Errorf("op %d %s: %s", i, o.Op, o)
		}
	}
	for _, i := range []int{3, 4} {
		if o := tr.op(t, i); o.OK || o.Error == nil || o.Error.Code != -32602 {
			t.Errorf("op %d %s: %s", i, o.Op, o)
		}
	}
	if !tr.AliveAtEnd || tr.Exit.Code == nil || *tr.Exit.Code != 0 {
		t.Errorf("luagent acp: alive %v, exit %+v\n%s", tr.AliveAtEnd, tr.Exit, tr.stderr)
	}
}

// Two sessions of one luagent acp run their prompts at the same time,
// each with its own updates and permission question; a prompt cancelled
// while its permission question is open (the client answers it
// "cancelled", as ACP asks) stops with stopReason cancelled and its tool
// does not run; session/load of an id never saved is a clear error.
func TestACPSDKConcurrentAndCancelAtPermission(t *testing.T) {
	servers := acpServers(t)
	ops := `[{"op":"initialize"},
{"op":"new","as":"s1","mcpServers":` + servers + `},
{"op":"new","as":"s2","mcpServers":` + servers + `},
{"op":"prompt","session":"s1","text":"call echo with message=one","permissions":["allow_once"],"background":true,"as":"a"},
{"op":"prompt","session":"s2","text":"call echo with message=two","permissions":["allow_once"],"background":true,"as":"b"},
{"op":"await"},
{"op":"prompt","session":"s1","text":"call echo with message=never","cancelOn":"permission"},
{"op":"load","sessionId":"no-such-saved-session"},
{"op":"prompt","session":"s1","text":"call echo with message=later","permissions":["allow_once"]}]`
	tr := driveACP(t, "", ops, acpEnv(t.TempDir()), bin, "acp", "--model", "mock")
	for i, want := range map[int]string{3: `"one"`, 4: `"two"`, 8: `"later"`} {
		o := tr.op(t, i)
		if !o.OK || o.stopReason() != "end_turn" || len(o.Permissions) != 1 || !strings.Contains(o.Text, want) {
			t.Errorf("op %d: want %s: %s", i, want, o)
		}
	}
	o := tr.op(t, 6)
	calls, last := o.toolCalls()
	if !o.CancelSent || o.stopReason() != "cancelled" || len(o.Permissions) != 1 || o.Permissions[0].Answer != "cancelled" ||
		len(calls) != 1 || last[calls[0].ToolCallID] == "completed" || strings.Contains(o.Text, "never") {
		t.Errorf("cancel at the permission question: %s", o)
	}
	if o := tr.op(t, 7); o.OK || o.Error == nil || (o.Error.Code != -32602 && o.Error.Code != -32002) || !strings.Contains(o.Error.Message, "no-such-saved-session") {
		t.Errorf("session/load of an unknown id: %s", o)
	}
	if !tr.AliveAtEnd || tr.Exit.Code == nil || *tr.Exit.Code != 0 {
		t.Errorf("luagent acp: alive %v, exit %+v\n%s", tr.AliveAtEnd, tr.Exit, tr.stderr)
	}
}

// luagent acp --agent FILE serves that agent: its own Lua tool (read-only,
// so unasked) answers through the editor's session.
func TestACPSDKAgentFile(t *testing.T) {
	agentFile, _ := filepath.Abs("../../examples/agent.lua")
	ops := `[{"op":"initialize"},{"op":"new"},
{"op":"prompt","text":"count the words text='one two three four'"}]`
	tr := driveACP(t, "", ops, acpEnv(t.TempDir()), bin, "acp", "--agent", agentFile)
	o := tr.op(t, 2)
	calls, last := o.toolCalls()
	if !o.OK || o.stopReason() != "end_turn" || len(o.Permissions) != 0 || len(calls) != 1 ||
		calls[0].Title != "word_count" || last[calls[0].ToolCallID] != "completed" || o.Text != `The tool returned: "4"` {
		t.Errorf("the agent file's tool: %s\n%s", o, tr.stderr)
	}
}

// An MCP server's form elicitation reaches an editor that takes
// elicitation/create (clientCapabilities.elicitation.form) as it is, and
// the editor's answer goes back to the server (accepted: the Go SDK test
// server's ask tool greets the name; declined: it says so). An editor
// without it: the form is declined and stderr says why.
func TestACPSDKElicitation(t *testing.T) {
	servers := acpServers(t)
	ops := `[{"op":"initialize","clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true},"terminal":true,"elicitation":{"form":{}}}},
{"op":"new","as":"s1","mcpServers":` + servers + `},
{"op":"prompt","session":"s1","text":"call ask elicit a name","permissions":["allow_once"],"elicitations":[{"action":"accept","content":{"name":"Ada"}}]},
{"op":"prompt","session":"s1","text":"call ask elicit a name","permissions":["allow_once"],"elicitations":["decline"]}]`
	tr := driveACP(t, "", ops, acpEnv(t.TempDir()), bin, "acp", "--model", "mock")
	for i, want := range map[int]string{2: "hello Ada", 3: "elicitation decline"} {
		o := tr.op(t, i)
		if !o.OK || !strings.Contains(o.Text, want) || len(o.Elicitations) != 1 || o.Elicitations[0].Mode != "form" ||
			o.Elicitations[0].Message == "" || !strings.Contains(string(o.Elicitations[0].RequestedSchema), `"name"`) {
			t.Errorf("op %d: want %q: %s", i, want, o)
		}
	}
	without := driveACP(t, "", `[{"op":"initialize"},{"op":"new","as":"s1","mcpServers":`+servers+`},
{"op":"prompt","session":"s1","text":"call ask elicit a name","permissions":["allow_once"]}]`, acpEnv(t.TempDir()), bin, "acp", "--model", "mock")
	if o := without.op(t, 2); !o.OK || !strings.Contains(o.Text, "elicitation decline") || len(o.Elicitations) != 0 ||
		!strings.Contains(without.stderr, "declined") {
		t.Errorf("without elicitation/create: %s\nstderr: %s", o, without.stderr)
	}
}

// Prompt content: a resource link and an embedded text resource are part
// of the prompt (as saved in the session file); an image, which
// initialize's promptCapabilities do not offer, and an empty prompt are
// invalid params naming why.
func TestACPSDKPromptContent(t *testing.T) {
	home := t.TempDir()
	ops := `[{"op":"initialize"},{"op":"new","as":"s1"},
{"op":"prompt","session":"s1","prompt":[{"type":"text","text":"summarise these"},
  {"type":"resource_link","uri":"file:///tmp/a.txt","name":"a.txt"},
  {"type":"resource","resource":{"uri":"file:///tmp/b.txt","mimeType":"text/plain","text":"bee content"}}]},
{"op":"prompt","session":"s1","prompt":[{"type":"text","text":"look"},{"type":"image","mimeType":"image/png","data":"iVBORw0KGgo="}]},
{"op":"prompt","session":"s1","prompt":[]}]`
	tr := driveACP(t, "", ops, acpEnv(home), bin, "acp", "--model", "mock")
	if o := tr.op(t, 2); !o.OK || o.stopReason() != "end_turn" {
		t.Errorf("text, resource_link and resource: %s", o)
	}
	if o := tr.op(t, 3); o.OK || o.Error == nil || o.Error.Code != -32602 || !strings.Contains(o.Error.Message, "image") {
		t.Errorf("an image: %s", o)
	}
	if o := tr.op(t, 4); o.OK || o.Error == nil || o.Error.Code != -32602 || !strings.Contains(o.Error.Message, "empty") {
		t.Errorf("an empty prompt: %s", o)
	}
	files, _ := filepath.Glob(filepath.Join(home, "sessions", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("session files: %v", files)
	}
	saved, _ := os.ReadFile(files[0])
	for _, want := range []string{`[a.txt](file:///tmp/a.txt)`, `<resource uri=\"file:///tmp/b.txt\">`, "bee content"} {
		if !strings.Contains(string(saved), want) {
			t.Errorf("the saved prompt lacks %s:\n%s", want, saved)
		}
	}
}

// An MCP server the editor passes over Streamable HTTP (initialize says
// mcpCapabilities.http) is used like a stdio one; an SSE one, not offered,
// is invalid params. In acceptEdits mode a file edit runs unasked while a
// command is still asked about.
func TestACPSDKHTTPServerAndAcceptEdits(t *testing.T) {
	url := testkit.GoSDKHTTP(t, "legacy", false)
	httpServers, _ := json.Marshal([]map[string]any{{"type": "http", "name": "h", "url": url, "headers": []any{}}})
	sseServers, _ := json.Marshal([]map[string]any{{"type": "sse", "name": "s", "url": url, "headers": []any{}}})
	ops := `[{"op":"initialize"},
{"op":"new","as":"s1","mcpServers":` + string(httpServers) + `},
{"op":"prompt","session":"s1","text":"call echo with message=over-http","permissions":["allow_once"]},
{"op":"new","as":"s2","mcpServers":` + string(sseServers) + `},
{"op":"new","as":"s3"},
{"op":"setMode","session":"s3","modeId":"acceptEdits"},
{"op":"prompt","session":"s3","text":"write the text file path=edit.txt content=unasked"},
{"op":"prompt","session":"s3","text":"run command command=true","permissions":["reject_once"]},
{"op":"readFile","path":"edit.txt"}]`
	tr := driveACP(t, "", ops, acpEnv(t.TempDir()), bin, "acp", "--model", "mock")
	o := tr.op(t, 2)
	calls, last := o.toolCalls()
	if !o.OK || len(calls) != 1 || last[calls[0].ToolCallID] != "completed" || !strings.Contains(o.Text, "over-http") {
		t.Errorf("echo over HTTP: %s\n%s", o, tr.stderr)
	}
	if o := tr.op(t, 3); o.OK || o.Error == nil || o.Error.Code != -32602 || !strings.Contains(o.Error.Message, "sse") {
		t.Errorf("an SSE server: %s", o)
	}
	if o := tr.op(t, 6); !o.OK || len(o.Permissions) != 0 || o.stopReason() != "end_turn" {
		t.Errorf("an edit in acceptEdits: %s", o)
	}
	if o := tr.op(t, 7); !o.OK || len(o.Permissions) != 1 {
		t.Errorf("a command in acceptEdits: %s", o)
	}
	var file struct {
		Content string `json:"content"`
	}
	json.Unmarshal(tr.op(t, 8).Result, &file)
	if file.Content != "unasked" {
		t.Errorf("edit.txt holds %q", file.Content)
	}
}

// session/cancel while a command runs in the editor's terminal: the turn
// stops (stopReason cancelled) and luagent kills and releases the
// terminal; the session goes on.
func TestACPSDKCancelTerminal(t *testing.T) {
	ops := `[{"op":"initialize"},{"op":"new"},
{"op":"prompt","text":"run command command=sleep args='[\"60\"]'","permissions":["allow_once"],"cancelOn":"terminal"},
{"op":"prompt","text":"run command command=true","permissions":["allow_once"]}]`
	tr := driveACP(t, "", ops, acpEnv(t.TempDir()), bin, "acp", "--model", "mock")
	if o := tr.op(t, 2); !o.CancelSent || o.stopReason() != "cancelled" {
		t.Errorf("cancelled command: %s", o)
	}
	if o := tr.op(t, 3); !o.OK || o.stopReason() != "end_turn" {
		t.Errorf("after the cancel: %s", o)
	}
	if len(tr.Terminals) != 2 || tr.Terminals[0].Command != "sleep" || !tr.Terminals[0].Killed || !tr.Terminals[0].Released || !tr.Terminals[1].Released {
		t.Errorf("terminals: %+v", tr.Terminals)
	}
}

// A cancel that comes while the editor is still creating the terminal (at
// the call's in_progress, before terminal/create is answered) still kills
// and releases it; and a command's tool call keeps its terminal in the
// content of its last update, as the editor replaces content each update.
func TestACPSDKCancelWhileCreatingTerminal(t *testing.T) {
	ops := `[{"op":"initialize"},{"op":"new"},
{"op":"prompt","text":"run command command=sleep args='[\"60\"]'","permissions":["allow_once"],"cancelOn":"in_progress"},
{"op":"prompt","text":"run command command=true","permissions":["allow_once"]}]`
	tr := driveACP(t, "", ops, acpEnv(t.TempDir()), bin, "acp", "--model", "mock")
	if o := tr.op(t, 2); !o.CancelSent || o.stopReason() != "cancelled" {
		t.Errorf("cancelled command: %s", o)
	}
	for _, term := range tr.Terminals {
		if term.Command == "sleep" && (!term.Killed || !term.Released) {
			t.Errorf("a terminal left running in the editor: %+v", term)
		}
	}
	o := tr.op(t, 3)
	if !o.OK || o.stopReason() != "end_turn" {
		t.Fatalf("after the cancel: %s", o)
	}
	var last *acpUpdate
	for i, u := range o.Updates {
		if u.SessionUpdate == "tool_call_update" && u.Status == "completed" {
			last = &o.Updates[i]
		}
	}
	if last == nil || !strings.Contains(string(last.Content), `"type":"terminal"`) {
		t.Errorf("the completed update drops the terminal: %+v", last)
	}
}

// Command files are the editor's slash commands: once the session is open
// an available_commands_update lists them (name, description, input
// hint), and a prompt "/NAME args" runs the command's prompt.
func TestACPSDKSlashCommands(t *testing.T) {
	home := t.TempDir()
	writeFile(t, home, "commands/greet.md", "---\ndescription: Greet someone\nargument-hint: NAME\n---\ncall echo with message=$1\n")
	ops := `[{"op":"initialize"},
{"op":"new","as":"s1","mcpServers":` + acpServers(t) + `},
{"op":"wait","session":"s1","update":"available_commands_update"},
{"op":"prompt","session":"s1","text":"/greet Ada","permissions":["allow_once"]}]`
	tr := driveACP(t, "", ops, acpEnv(home), bin, "acp", "--model", "mock")
	if o := tr.op(t, 2); !o.OK {
		t.Fatalf("no available_commands_update: %s\n%s", o, tr.stderr)
	}
	var listed struct {
		AvailableCommands []struct {
			Name        string `json:"name"`
			Description string `json:"description"`
			Input       struct {
				Hint string `json:"hint"`
			} `json:"input"`
		} `json:"availableCommands"`
	}
	for _, u := range tr.op(t, 1).Updates {
		if u.SessionUpdate == "available_commands_update" {
			json.Unmarshal(u.raw, &listed)
		}
	}
	if c := listed.AvailableCommands; len(c) != 1 || c[0].Name != "greet" || !strings.Contains(c[0].Description, "Greet someone") || c[0].Input.Hint != "NAME" {
		t.Errorf("available commands: %+v (updates of session/new: %v)", c, tr.op(t, 1).kinds())
	}
	o := tr.op(t, 3)
	calls, _ := o.toolCalls()
	if !o.OK || len(calls) != 1 || string(calls[0].RawInput) != `{"message":"Ada"}` || o.Text != `The tool returned: "Ada"` {
		t.Errorf("/greet Ada: %s", o)
	}
}

// session/load of a session open on this connection: refused while its
// prompt runs (that prompt still completes), else the session is closed
// and loaded again, replaying both turns, and goes on.
func TestACPSDKReloadOpenSession(t *testing.T) {
	servers := acpServers(t)
	ops := `[{"op":"initialize"},
{"op":"new","as":"s1","mcpServers":` + servers + `},
{"op":"prompt","session":"s1","text":"call echo with message=first","permissions":["allow_once"]},
{"op":"prompt","session":"s1","text":"call echo with message=held","background":true,"until":"permission","permissions":["hold"]},
{"op":"load","session":"s1","mcpServers":` + servers + `},
{"op":"answer","choice":"allow_once"},
{"op":"await"},
{"op":"load","session":"s1","mcpServers":` + servers + `},
{"op":"prompt","session":"s1","text":"call echo with message=after-reload","permissions":["allow_once"]}]`
	tr := driveACP(t, "", ops, acpEnv(t.TempDir()), bin, "acp", "--model", "mock")
	if o := tr.op(t, 3); !o.OK || o.Text != `The tool returned: "held"` {
		t.Errorf("the prompt running during the refused load: %s", o)
	}
	if o := tr.op(t, 4); o.OK || o.Error == nil || o.Error.Code != -32600 || !strings.Contains(o.Error.Message, "running a prompt") || len(o.Updates) != 0 {
		t.Errorf("load during a prompt: %s", o)
	}
	o := tr.op(t, 7)
	var users int
	for _, u := range o.Updates {
		if u.SessionUpdate == "user_message_chunk" {
			users++
		}
	}
	if !o.OK || users != 2 || !strings.Contains(o.Text, `"first"`) || !strings.Contains(o.Text, `"held"`) {
		t.Errorf("reload: %d user messages, %s", users, o)
	}
	if o := tr.op(t, 8); !o.OK || o.Text != `The tool returned: "after-reload"` {
		t.Errorf("after the reload: %s", o)
	}
}
