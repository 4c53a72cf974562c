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
	SessionUpdate string `json:"sessionUpdate"`
	Content       json.RawMessage
	ToolCallID    string `json:"toolCallId"`
	Title         string `json:"title"`
	Kind          string `json:"kind"`
	Status        string `json:"status"`
	Locations     []struct {
		Path string `json:"path"`
	} `json:"locations"`
	RawInput json.RawMessage `json:"rawInput"`
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
	ops := `[{"op":"initialize"},{"op":"new","as":"s1"},
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
{"op":"prompt","session":"s1","text":"hello"}]`
	tr := driveACP(t, "", ops, nil, node, fake)
	for i, o := range tr.Ops {
		want := !(i == 8 || i == 11)
		if o.OK != want {
			t.Errorf("op %d %s: ok=%v, want %v: %+v", i, o.Op, o.OK, want, o)
		}
	}
	if o := tr.op(t, 2); o.Text != "Hello, world" || o.stopReason() != "end_turn" {
		t.Errorf("hello: %+v", o)
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
	if len(tr.FS) != 3 || tr.FS[0].Method != "fs/write_text_file" { // allow_once, allow_always, the held one
		t.Errorf("fs: %+v", tr.FS)
	}
	if o := tr.op(t, 6); o.stopReason() != "cancelled" || !o.CancelSent {
		t.Errorf("cancel: %+v", o)
	}
	if o := tr.op(t, 7); o.stopReason() != "end_turn" || len(o.Permissions) != 1 || !o.Permissions[0].Held {
		t.Errorf("held: %+v", o)
	}
	if o := tr.op(t, 8); o.Error == nil || o.Error.Code != -32600 {
		t.Errorf("prompt during a prompt: %+v", o)
	}
	if o := tr.op(t, 11); o.Error == nil || o.Error.Code != -32002 {
		t.Errorf("unknown session: %+v", o)
	}
	if len(tr.Raw) != 2 || tr.Raw[0].Error.Code != -32700 || string(tr.Raw[0].ID) != "null" || tr.Raw[1].Error.Code != -32602 {
		t.Errorf("raw: %+v", tr.Raw)
	}
	if o := tr.op(t, 14); len(o.Updates) < 10 || !strings.Contains(o.Text, "Hello, world") {
		t.Errorf("load: %+v", o)
	}
	if !tr.AliveAtEnd || tr.Exit.Code == nil || *tr.Exit.Code != 0 {
		t.Errorf("the agent: alive %v, exit %+v", tr.AliveAtEnd, tr.Exit)
	}
}
