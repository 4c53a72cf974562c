package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// acpPeer drives `luagent acp` over pipes with raw JSON lines, as an
// editor does: it answers the agent's permission questions with choice
// and records every line the agent wrote.
type acpPeer struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     io.WriteCloser
	lines  chan map[string]any
	errw   *logWatch
	choice string // the optionId a permission question is answered with
	asked  []map[string]any
	nextID int
	// client answers the agent's other requests (fs/*, terminal/*):
	// a result, or nil for a method-not-found error.
	client func(method string, params map[string]any) any
	calls  []string // the methods of the agent's requests, in order
}

func startACP(t *testing.T, home string, args ...string) *acpPeer {
	t.Helper()
	return startACPEnv(t, home, nil, args...)
}

// startACPEnv is startACP with env added to the environment.
func startACPEnv(t *testing.T, home string, env []string, args ...string) *acpPeer {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"acp"}, args...)...)
	cmd.Env = append(append(os.Environ(), "LUAGENT_HOME="+home, "LUAGENT_MODEL=", "OPENAI_API_KEY=", "ANTHROPIC_API_KEY="), env...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &acpPeer{t: t, cmd: cmd, in: in, lines: make(chan map[string]any, 1024), errw: newLogWatch(), choice: "allow_once", nextID: 100}
	cmd.Stderr = p.errw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(p.lines)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				m = map[string]any{"notjson": sc.Text()}
			}
			p.lines <- m
		}
	}()
	t.Cleanup(func() {
		in.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Errorf("luagent acp did not end after stdin closed; stderr:\n%s", p.errw.String())
		}
	})
	return p
}

func (p *acpPeer) raw(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatal(err)
	}
}

func (p *acpPeer) send(v any) {
	p.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		p.t.Fatal(err)
	}
	p.raw(string(b))
}

// request sends a request with a fresh id and returns the id.
func (p *acpPeer) request(method string, params any) int {
	p.nextID++
	p.send(map[string]any{"jsonrpc": "2.0", "id": p.nextID, "method": method, "params": params})
	return p.nextID
}

// next is the next line the agent wrote; permission questions are
// answered on the way (and returned too).
func (p *acpPeer) next() map[string]any {
	p.t.Helper()
	select {
	case m, ok := <-p.lines:
		if !ok {
			p.t.Fatalf("luagent acp closed stdout; stderr:\n%s", p.errw.String())
		}
		if method, ok := m["method"].(string); ok && m["id"] != nil {
			p.calls = append(p.calls, method)
		}
		if method, _ := m["method"].(string); m["id"] != nil && method != "session/request_permission" && method != "" {
			params, _ := m["params"].(map[string]any)
			var res any
			if p.client != nil {
				res = p.client(method, params)
			}
			if res == nil {
				p.send(map[string]any{"jsonrpc": "2.0", "id": m["id"], "error": map[string]any{"code": -32601, "message": "no " + method}})
			} else {
				p.send(map[string]any{"jsonrpc": "2.0", "id": m["id"], "result": res})
			}
		}
		if m["method"] == "session/request_permission" && p.choice == "hold" {
			p.asked = append(p.asked, m)
		} else if m["method"] == "session/request_permission" {
			p.asked = append(p.asked, m)
			outcome := map[string]any{"outcome": "selected", "optionId": p.choice}
			if p.choice == "" {
				outcome = map[string]any{"outcome": "cancelled"}
			}
			p.send(map[string]any{"jsonrpc": "2.0", "id": m["id"], "result": map[string]any{"outcome": outcome}})
		}
		return m
	case <-time.After(30 * time.Second):
		p.t.Fatalf("no line from luagent acp in 30s; stderr:\n%s", p.errw.String())
	}
	return nil
}

// response reads lines up to the response to id, returning it and the
// lines before it.
func (p *acpPeer) response(id int) (map[string]any, []map[string]any) {
	p.t.Helper()
	var before []map[string]any
	for {
		m := p.next()
		if n, ok := m["id"].(float64); ok && int(n) == id && m["method"] == nil {
			return m, before
		}
		before = append(before, m)
	}
}

// result is the response's result, failing the test on an error.
func (p *acpPeer) result(id int) (map[string]any, []map[string]any) {
	p.t.Helper()
	m, before := p.response(id)
	r, ok := m["result"].(map[string]any)
	if !ok {
		p.t.Fatalf("response %d: %v; stderr:\n%s", id, m, p.errw.String())
	}
	return r, before
}

func (p *acpPeer) initialize(caps map[string]any) map[string]any {
	p.t.Helper()
	r, _ := p.result(p.request("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": caps}))
	return r
}

func (p *acpPeer) newSession(cwd string) string {
	p.t.Helper()
	r, _ := p.result(p.request("session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}}))
	id, _ := r["sessionId"].(string)
	if id == "" {
		p.t.Fatalf("session/new: %v", r)
	}
	return id
}

func (p *acpPeer) prompt(sid, text string) int {
	return p.request("session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": text}}})
}

// updates are the session/update notifications' updates among lines.
func updates(lines []map[string]any) []map[string]any {
	var out []map[string]any
	for _, m := range lines {
		if m["method"] == "session/update" {
			params, _ := m["params"].(map[string]any)
			if u, ok := params["update"].(map[string]any); ok {
				out = append(out, u)
			}
		}
	}
	return out
}

// kinds is the updates' sessionUpdate values, with a tool call's status.
func kinds(us []map[string]any) string {
	var parts []string
	for _, u := range us {
		k, _ := u["sessionUpdate"].(string)
		if st, ok := u["status"].(string); ok {
			k += ":" + st
		}
		if len(parts) > 0 && parts[len(parts)-1] == k && strings.HasSuffix(k, "_chunk") {
			continue
		}
		parts = append(parts, k)
	}
	return strings.Join(parts, " ")
}

func chunkText(us []map[string]any, kind string) string {
	var b strings.Builder
	for _, u := range us {
		if u["sessionUpdate"] == kind {
			c, _ := u["content"].(map[string]any)
			s, _ := c["text"].(string)
			b.WriteString(s)
		}
	}
	return b.String()
}

// A scripted session over the catalog's server with the mock model: a
// read-only tool runs unasked, a writing one asks the editor, a rejected
// one does not run, and the turns end with end_turn.
func TestACPSession(t *testing.T) {
	home, notes := askHome(t)
	cwd := t.TempDir()
	p := startACP(t, home)
	init := p.initialize(map[string]any{})
	if init["protocolVersion"] != float64(1) {
		t.Fatalf("initialize: %v", init)
	}
	caps, _ := init["agentCapabilities"].(map[string]any)
	if caps["loadSession"] != true {
		t.Errorf("agentCapabilities: %v", caps)
	}
	sid := p.newSession(cwd)

	// echo is read-only: no question.
	r, before := p.result(p.prompt(sid, "call echo with message=hi"))
	us := updates(before)
	if r["stopReason"] != "end_turn" || len(p.asked) != 0 {
		t.Fatalf("echo: %v, asked %v, updates %v", r, p.asked, us)
	}
	if got := kinds(us); got != "tool_call:pending tool_call_update:in_progress tool_call_update:completed agent_message_chunk" {
		t.Errorf("echo updates: %s", got)
	}
	if us[0]["kind"] != "read" || us[0]["title"] != "srv: echo" {
		t.Errorf("tool_call: %v", us[0])
	}
	if txt := chunkText(us, "agent_message_chunk"); !strings.Contains(txt, "pong:hi") {
		t.Errorf("answer: %q", txt)
	}

	// write asks; allowed once, it runs.
	r, before = p.result(p.prompt(sid, "call write with text=first"))
	if r["stopReason"] != "end_turn" || len(p.asked) != 1 {
		t.Fatalf("write: %v, asked %d", r, len(p.asked))
	}
	q := p.asked[0]["params"].(map[string]any)
	if q["sessionId"] != sid || len(q["options"].([]any)) != 3 {
		t.Errorf("permission question: %v", q)
	}
	if tc := q["toolCall"].(map[string]any); tc["title"] != "srv: write" || tc["kind"] != "edit" {
		t.Errorf("permission question's tool call: %v", tc)
	}
	// The mock numbers its calls from 1 each turn: the session's ids stay
	// unique, and the question names the call it is about.
	if us := updates(before); len(us) == 0 || us[0]["toolCallId"] == "mock_call_1" || us[0]["toolCallId"] != q["toolCall"].(map[string]any)["toolCallId"] {
		t.Errorf("tool call ids: %v, asked about %v", us, q["toolCall"])
	}
	if b, _ := os.ReadFile(notes); string(b) != "first\n" {
		t.Errorf("notes: %q", b)
	}

	// Rejected: it does not run; the tool call failed.
	p.choice = "reject_once"
	r, before = p.result(p.prompt(sid, "call write with text=second"))
	us = updates(before)
	if r["stopReason"] != "end_turn" || len(p.asked) != 2 || !strings.Contains(kinds(us), "tool_call_update:failed") {
		t.Fatalf("rejected write: %v, asked %d, %s", r, len(p.asked), kinds(us))
	}
	if b, _ := os.ReadFile(notes); string(b) != "first\n" {
		t.Errorf("notes after a rejection: %q", b)
	}

	// Allowed always: saved as a rule, the next call is not asked.
	p.choice = "allow_always"
	p.result(p.prompt(sid, "call write with text=third"))
	p.result(p.prompt(sid, "call write with text=fourth"))
	if len(p.asked) != 3 {
		t.Errorf("after allow_always: %d questions", len(p.asked))
	}
	if b, _ := os.ReadFile(notes); string(b) != "first\nthird\nfourth\n" {
		t.Errorf("notes: %q", b)
	}
	if cfg, _ := os.ReadFile(home + "/config.json"); !strings.Contains(string(cfg), "srv__write") {
		t.Errorf("config.json has no allow rule: %s", cfg)
	}

	// bypassPermissions: nothing asked.
	p.result(p.request("session/set_mode", map[string]any{"sessionId": sid, "modeId": "bypassPermissions"}))
	m, _ := p.response(p.request("session/set_mode", map[string]any{"sessionId": sid, "modeId": "nope"}))
	if e, _ := m["error"].(map[string]any); e == nil || e["code"] != float64(-32602) {
		t.Errorf("unknown mode: %v", m)
	}
}

// session/load replays a saved session's conversation.
func TestACPLoad(t *testing.T) {
	home, _ := askHome(t)
	cwd := t.TempDir()
	p := startACP(t, home)
	p.initialize(map[string]any{})
	sid := p.newSession(cwd)
	p.result(p.prompt(sid, "call echo with message=remember"))
	p.in.Close()
	p.cmd.Wait()

	p2 := startACP(t, home)
	p2.initialize(map[string]any{})
	r, before := p2.result(p2.request("session/load", map[string]any{"sessionId": sid, "cwd": cwd, "mcpServers": []any{}}))
	us := updates(before)
	if got := kinds(us); got != "user_message_chunk tool_call:pending tool_call_update:completed agent_message_chunk" {
		t.Errorf("replay: %s", got)
	}
	if chunkText(us, "user_message_chunk") != "call echo with message=remember" {
		t.Errorf("replayed prompt: %q", chunkText(us, "user_message_chunk"))
	}
	if _, ok := r["modes"]; !ok {
		t.Errorf("load result: %v", r)
	}
	r, before = p2.result(p2.prompt(sid, "call echo with message=again"))
	if r["stopReason"] != "end_turn" {
		t.Errorf("prompt after load: %v", r)
	}
	// Loaded again on the same connection: the open one is closed first.
	_, before = p2.result(p2.request("session/load", map[string]any{"sessionId": sid, "cwd": cwd, "mcpServers": []any{}}))
	if got := chunkText(updates(before), "user_message_chunk"); got != "call echo with message=remembercall echo with message=again" {
		t.Errorf("second replay: %q", got)
	}
	if r, _ := p2.result(p2.prompt(sid, "call echo with message=third")); r["stopReason"] != "end_turn" {
		t.Errorf("prompt after the second load: %v", r)
	}
	m, _ := p2.response(p2.request("session/load", map[string]any{"sessionId": "no-such-session", "cwd": cwd, "mcpServers": []any{}}))
	if e, _ := m["error"].(map[string]any); e == nil || e["code"] != float64(-32602) {
		t.Errorf("unknown session: %v", m)
	}
}

// session/cancel ends the turn at once with stopReason cancelled, in
// the model's request or in a tool call; a prompt during a prompt is
// refused, and the session goes on.
func TestACPCancel(t *testing.T) {
	for _, tc := range []struct{ name, agent string }{
		{"model", `return agent.new{ hub = false, model = function(req)
  if #req.messages > 1 then return { text = "again" } end
  io.stderr:write("thinking\n"); task.sleep(30); return { text = "late" }
end }`},
		{"tool", `return agent.new{ hub = false, model = "mock",
  tools = { { name = "wait", description = "Wait a while", input = {}, annotations = { readOnlyHint = true },
    handler = function() io.stderr:write("thinking\n"); task.sleep(30); return "late" end } } }`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			slow := writeFile(t, t.TempDir(), "slow.lua", tc.agent)
			p := startACP(t, t.TempDir(), "--agent", slow)
			p.initialize(map[string]any{})
			sid := p.newSession(t.TempDir())
			id := p.prompt(sid, "wait")
			if !p.errw.waitFor("thinking") {
				t.Fatalf("the turn did not start: %s", p.errw.String())
			}
			m, _ := p.response(p.prompt(sid, "again"))
			if e, _ := m["error"].(map[string]any); e == nil || e["code"] != float64(-32600) || !strings.Contains(e["message"].(string), "already running") {
				t.Errorf("prompt during a prompt: %v", m)
			}
			start := time.Now()
			p.send(map[string]any{"jsonrpc": "2.0", "method": "session/cancel", "params": map[string]any{"sessionId": sid}})
			r, _ := p.result(id)
			if r["stopReason"] != "cancelled" || time.Since(start) > 15*time.Second {
				t.Errorf("cancelled turn: %v after %v", r, time.Since(start))
			}
			if tc.name == "model" {
				if r, _ := p.result(p.prompt(sid, "and now")); r["stopReason"] != "end_turn" {
					t.Errorf("after the cancel: %v", r)
				}
			}
		})
	}
}

// A turn that reaches the agent's max_turns ends with max_turn_requests.
func TestACPMaxTurns(t *testing.T) {
	file := writeFile(t, t.TempDir(), "turns.lua", `return agent.new{ model = "mock", max_turns = 1, hub = false,
  tools = { { name = "count", description = "Count words", input = { text = "string" }, annotations = { readOnlyHint = true },
    handler = function(a) return "3" end } } }`)
	p := startACP(t, t.TempDir(), "--agent", file)
	p.initialize(map[string]any{})
	sid := p.newSession(t.TempDir())
	if r, _ := p.result(p.prompt(sid, "count text=a")); r["stopReason"] != "max_turn_requests" {
		t.Errorf("stopReason: %v", r)
	}
}

// The client's file system and terminal are the agent's tools: reading
// runs unasked, writing and running a command are asked about first.
func TestACPClientTools(t *testing.T) {
	cwd := t.TempDir()
	p := startACP(t, t.TempDir(), "--model", "mock")
	var wrote map[string]any
	p.client = func(method string, params map[string]any) any {
		switch method {
		case "fs/read_text_file":
			return map[string]any{"content": "text of " + params["path"].(string)}
		case "fs/write_text_file":
			wrote = params
			return map[string]any{}
		case "terminal/create":
			if params["command"] != "make" || params["cwd"] != cwd {
				t.Errorf("terminal/create: %v", params)
			}
			return map[string]any{"terminalId": "t1"}
		case "terminal/wait_for_exit":
			return map[string]any{"exitCode": 2}
		case "terminal/output":
			return map[string]any{"output": "make: nothing to do", "truncated": false}
		case "terminal/release":
			return map[string]any{}
		}
		return nil
	}
	p.initialize(map[string]any{"fs": map[string]any{"readTextFile": true, "writeTextFile": true}, "terminal": true})
	sid := p.newSession(cwd)

	_, before := p.result(p.prompt(sid, "read_text_file path=notes.txt"))
	if txt := chunkText(updates(before), "agent_message_chunk"); !strings.Contains(txt, "text of "+cwd+"/notes.txt") || len(p.asked) != 0 {
		t.Errorf("read: %q, asked %d", txt, len(p.asked))
	}
	if us := updates(before); len(us) == 0 || us[0]["kind"] != "read" {
		t.Errorf("read's tool call: %v", us)
	}
	p.result(p.prompt(sid, "write_text_file path=out.txt content=hello"))
	if len(p.asked) != 1 || wrote["path"] != cwd+"/out.txt" || wrote["content"] != "hello" {
		t.Errorf("write: asked %d, wrote %v", len(p.asked), wrote)
	}
	_, before = p.result(p.prompt(sid, "run_command command=make"))
	us := updates(before)
	if len(p.asked) != 2 || !strings.Contains(kinds(us), "tool_call_update:failed") {
		t.Errorf("run_command: asked %d, %s", len(p.asked), kinds(us))
	}
	if !strings.Contains(fmt.Sprint(us), "terminalId:t1") {
		t.Errorf("no terminal in the tool call: %v", us)
	}
	if got := strings.Join(p.calls, " "); !strings.Contains(got, "terminal/create terminal/wait_for_exit terminal/output terminal/release") {
		t.Errorf("requests: %s", got)
	}
}

// Without the provider's key, session/new says auth is required and
// names the variable; authenticate says the same; the agent goes on.
func TestACPAuth(t *testing.T) {
	p := startACP(t, t.TempDir(), "--model", "openai:gpt-4.1-mini")
	init := p.initialize(map[string]any{})
	if ms, _ := init["authMethods"].([]any); len(ms) != 1 {
		t.Errorf("authMethods: %v", init)
	}
	m, _ := p.response(p.request("session/new", map[string]any{"cwd": t.TempDir(), "mcpServers": []any{}}))
	e, _ := m["error"].(map[string]any)
	if e == nil || e["code"] != float64(-32000) || !strings.Contains(e["message"].(string), "OPENAI_API_KEY") {
		t.Errorf("session/new: %v", m)
	}
	m, _ = p.response(p.request("authenticate", map[string]any{"methodId": "env-api-key"}))
	if e, _ := m["error"].(map[string]any); e == nil || e["code"] != float64(-32000) {
		t.Errorf("authenticate: %v", m)
	}
	if strings.Contains(p.errw.String(), "panic") {
		t.Errorf("stderr: %s", p.errw.String())
	}
}

// The MCP servers the client passes are connected beside the catalog's.
func TestACPClientMCPServers(t *testing.T) {
	home, _ := askHome(t)
	editorEcho(t, startACP(t, home))
}

// editorEcho opens a session with an MCP server the editor passes (echo2)
// and has the model call its tool.
func editorEcho(t *testing.T, p *acpPeer) {
	t.Helper()
	srv := writeFile(t, t.TempDir(), "echo2.lua", metaEchoServer)
	p.initialize(map[string]any{})
	r, _ := p.result(p.request("session/new", map[string]any{"cwd": t.TempDir(), "mcpServers": []any{
		map[string]any{"name": "echo2", "command": bin, "args": []string{"serve", srv}, "env": []any{}}}}))
	sid, _ := r["sessionId"].(string)
	r, before := p.result(p.prompt(sid, "call echo2__echo with message=from-the-editor"))
	us := updates(before)
	if r["stopReason"] != "end_turn" || len(us) == 0 || us[0]["title"] != "echo2: echo" ||
		!strings.Contains(chunkText(us, "agent_message_chunk"), "from-the-editor") {
		t.Errorf("%v: %s %v", r, kinds(us), us)
	}
}

// Bad input gets JSON-RPC errors, and the agent goes on.
func TestACPBadInput(t *testing.T) {
	home, _ := askHome(t)
	p := startACP(t, home)
	p.initialize(map[string]any{})
	code := func(m map[string]any) float64 {
		e, _ := m["error"].(map[string]any)
		c, _ := e["code"].(float64)
		return c
	}
	for _, tc := range []struct {
		name, line string
		id         any
		code       float64
	}{
		{"not JSON", `{"jsonrpc":"2.0","id":1,"method":`, nil, -32700},
		{"not an object", `[1,2]`, nil, -32600},
		{"no jsonrpc", `{"id":7,"method":"initialize","params":{}}`, float64(7), -32600},
		{"unknown method", `{"jsonrpc":"2.0","id":8,"method":"session/fly","params":{}}`, float64(8), -32601},
		{"unknown session", `{"jsonrpc":"2.0","id":9,"method":"session/prompt","params":{"sessionId":"nope","prompt":[{"type":"text","text":"hi"}]}}`, float64(9), -32602},
		{"params not an object", `{"jsonrpc":"2.0","id":10,"method":"session/new","params":[1]}`, float64(10), -32602},
		{"relative cwd", `{"jsonrpc":"2.0","id":11,"method":"session/new","params":{"cwd":"rel","mcpServers":[]}}`, float64(11), -32602},
		{"sse server", `{"jsonrpc":"2.0","id":12,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[{"type":"sse","name":"x","url":"http://127.0.0.1:1","headers":[]}]}}`, float64(12), -32602},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p.t = t
			p.raw(tc.line)
			m := p.next()
			if m["id"] != tc.id || code(m) != tc.code {
				t.Errorf("%s: %v", tc.line, m)
			}
		})
	}
	p.t = t
	// A line over the limit is dropped, and answered by its id.
	big := fmt.Sprintf(`{"jsonrpc":"2.0","id":13,"method":"session/new","params":{"cwd":"/tmp","x":"%s"}}`, strings.Repeat("a", 9<<20))
	p.raw(big)
	if m := p.next(); m["id"] != float64(13) || code(m) != -32600 {
		t.Errorf("over the limit: %v", m)
	}
	// Nothing lost: the agent still answers.
	sid := p.newSession(t.TempDir())
	r, _ := p.result(p.prompt(sid, "call echo with message=still"))
	if r["stopReason"] != "end_turn" {
		t.Errorf("after bad input: %v", r)
	}
}

// A server's elicitation reaches a client that takes elicitation/create
// as it is; without it, a form is declined.
func TestACPElicitation(t *testing.T) {
	home := t.TempDir()
	srv := writeFile(t, home, "el.lua", elicitServer)
	cfg, _ := json.Marshal(map[string]any{"version": 1, "mcpServers": map[string]any{"el": map[string]any{"command": bin, "args": []string{"serve", srv}}}})
	writeFile(t, home, "config.json", string(cfg))
	for _, tc := range []struct {
		name string
		caps map[string]any
		want string
	}{
		{"elicitation/create", map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}, `answer {"action":"accept","content":{"name":"Ann"}}`},
		{"declined", map[string]any{}, `answer {"action":"decline"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := startACP(t, home)
			var asked map[string]any
			p.client = func(method string, params map[string]any) any {
				if method == "elicitation/create" {
					asked = params
					return map[string]any{"action": "accept", "content": map[string]any{"name": "Ann"}}
				}
				return nil
			}
			p.initialize(tc.caps)
			sid := p.newSession(t.TempDir())
			_, before := p.result(p.prompt(sid, "call profile"))
			if txt := chunkText(updates(before), "agent_message_chunk"); !strings.Contains(strings.ReplaceAll(txt, `\"`, `"`), tc.want) {
				t.Errorf("answer: %q", txt)
			}
			if tc.caps["elicitation"] != nil && (asked["sessionId"] != sid || asked["mode"] != "form" || asked["requestedSchema"] == nil) {
				t.Errorf("elicitation/create: %v", asked)
			}
		})
	}
}

// A cancel while the editor is asked about a call: the turn ends
// cancelled, the call does not run, a late answer is ignored, and the
// session goes on.
func TestACPCancelDuringPermission(t *testing.T) {
	home, notes := askHome(t)
	p := startACP(t, home)
	p.initialize(map[string]any{})
	sid := p.newSession(t.TempDir())
	p.choice = "hold"
	id := p.prompt(sid, "call write with text=never")
	for len(p.asked) == 0 {
		p.next()
	}
	p.send(map[string]any{"jsonrpc": "2.0", "method": "session/cancel", "params": map[string]any{"sessionId": sid}})
	r, _ := p.result(id)
	if r["stopReason"] != "cancelled" {
		t.Errorf("stopReason: %v", r)
	}
	p.send(map[string]any{"jsonrpc": "2.0", "id": p.asked[0]["id"], "result": map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": "allow_once"}}})
	p.choice = "allow_once"
	if r, _ := p.result(p.prompt(sid, "call echo with message=after")); r["stopReason"] != "end_turn" {
		t.Errorf("after: %v", r)
	}
	if b, _ := os.ReadFile(notes); len(b) != 0 {
		t.Errorf("the cancelled call ran: %q", b)
	}
}

// Two sessions run at once: one waiting in its turn does not hold up the
// other's.
func TestACPSessionsRunTogether(t *testing.T) {
	file := writeFile(t, t.TempDir(), "two.lua", `return agent.new{ hub = false, model = function(req)
  local last = req.messages[#req.messages]
  local text = last.parts and last.parts[1] and last.parts[1].text or ""
  if text:find("wait", 1, true) then io.stderr:write("thinking\n"); task.sleep(30) end
  return { text = "answer to " .. text }
end }`)
	p := startACP(t, t.TempDir(), "--agent", file)
	p.initialize(map[string]any{})
	a, b := p.newSession(t.TempDir()), p.newSession(t.TempDir())
	if a == b {
		t.Fatalf("one id for two sessions: %s", a)
	}
	slow := p.prompt(a, "wait")
	if !p.errw.waitFor("thinking") {
		t.Fatal("the slow turn did not start")
	}
	r, before := p.result(p.prompt(b, "quick"))
	if r["stopReason"] != "end_turn" || chunkText(updates(before), "agent_message_chunk") != "answer to quick" {
		t.Errorf("the other session: %v %v", r, updates(before))
	}
	p.send(map[string]any{"jsonrpc": "2.0", "method": "session/cancel", "params": map[string]any{"sessionId": a}})
	if r, _ := p.result(slow); r["stopReason"] != "cancelled" {
		t.Errorf("the slow one: %v", r)
	}
}

// The command files are the session's slash commands, told once the
// session is open; "/NAME args" runs one.
func TestACPSlashCommands(t *testing.T) {
	home := t.TempDir()
	writeFile(t, home, "commands/review.md", "---\ndescription: Review a file\nargument-hint: FILE\n---\nReview $1 carefully.\n")
	p := startACP(t, home, "--model", "mock")
	p.initialize(map[string]any{})
	res, after := p.result(p.request("session/new", map[string]any{"cwd": t.TempDir(), "mcpServers": []any{}}))
	sid, _ := res["sessionId"].(string)
	if len(after) != 0 {
		t.Errorf("lines before session/new's answer: %v", after)
	}
	u := updates([]map[string]any{p.next()})
	if len(u) != 1 || u[0]["sessionUpdate"] != "available_commands_update" {
		t.Fatalf("after session/new: %v", u)
	}
	cmds, _ := u[0]["availableCommands"].([]any)
	if len(cmds) != 1 || fmt.Sprint(cmds[0]) != "map[description:Review a file (user) input:map[hint:FILE] name:review]" {
		t.Errorf("commands: %v", cmds)
	}
	_, before := p.result(p.prompt(sid, "/review main.go"))
	if txt := chunkText(updates(before), "agent_message_chunk"); strings.TrimSpace(txt) != "mock: Review main.go carefully." {
		t.Errorf("/review: %q", txt)
	}
}

// Without elicitation/create, a question with nothing to fill in is a
// permission question.
func TestACPElicitationAsPermission(t *testing.T) {
	home := t.TempDir()
	srv := writeFile(t, home, "ok.lua", `
local s = mcp.server{ name = "ok", version = "1.0.0" }
s:tool{ name = "proceed", description = "Ask before going on", input = {}, annotations = { readOnlyHint = true },
  handler = function(a, ctx)
    return "answer " .. json.encode(ctx:elicit{ message = "Go on?", schema = { type = "object", properties = {} } })
  end }
return s
`)
	cfg, _ := json.Marshal(map[string]any{"version": 1, "mcpServers": map[string]any{"ok": map[string]any{"command": bin, "args": []string{"serve", srv}}}})
	writeFile(t, home, "config.json", string(cfg))
	for _, tc := range []struct{ choice, want string }{
		{"accept", `answer {"action":"accept"`},
		{"decline", `answer {"action":"decline"}`},
	} {
		t.Run(tc.choice, func(t *testing.T) {
			p := startACP(t, home)
			p.choice = tc.choice
			p.initialize(map[string]any{})
			sid := p.newSession(t.TempDir())
			_, before := p.result(p.prompt(sid, "call proceed"))
			if txt := chunkText(updates(before), "agent_message_chunk"); !strings.Contains(strings.ReplaceAll(txt, `\"`, `"`), tc.want) {
				t.Errorf("answer: %q", txt)
			}
			if len(p.asked) != 1 || !strings.Contains(fmt.Sprint(p.asked[0]), "ok asks: Go on?") {
				t.Errorf("asked: %v", p.asked)
			}
		})
	}
}

// A failed turn is a JSON-RPC error saying why in one line, the
// providers' keys masked.
func TestACPTurnErrorMasked(t *testing.T) {
	const key = "sk-acp-secret-0123456789"
	file := writeFile(t, t.TempDir(), "bad.lua", `return agent.new{ hub = false, model = function()
  error({ kind = "runtime", message = "the model broke with " .. os.getenv("OPENAI_API_KEY") }, 0)
end }`)
	p := startACPEnv(t, t.TempDir(), []string{"OPENAI_API_KEY=" + key}, "--agent", file)
	p.initialize(map[string]any{})
	sid := p.newSession(t.TempDir())
	m, _ := p.response(p.prompt(sid, "hi"))
	e, _ := m["error"].(map[string]any)
	msg, _ := e["message"].(string)
	if e == nil || e["code"] != float64(-32603) || !strings.Contains(msg, "the model broke with") || strings.Contains(msg, key) {
		t.Errorf("error: %v", m)
	}
}

// An agent file that names its own servers still gets the editor's: the
// servers session/new passes join the file's list.
func TestACPClientMCPServersWithAgentServers(t *testing.T) {
	home, _ := askHome(t)
	file := writeFile(t, t.TempDir(), "own.lua", `return agent.new{ model = "mock", servers = { "srv" } }`)
	editorEcho(t, startACP(t, home, "--agent", file))
}

// An MCP server the editor passes that cannot start is said on stderr
// (the editor's agent log), and the session opens without it.
func TestACPClientMCPServerThatFails(t *testing.T) {
	home, _ := askHome(t)
	p := startACP(t, home)
	p.initialize(map[string]any{})
	r, _ := p.result(p.request("session/new", map[string]any{"cwd": t.TempDir(), "mcpServers": []any{
		map[string]any{"name": "broken", "command": filepath.Join(t.TempDir(), "no-such-server"), "args": []string{}, "env": []any{}}}}))
	if sid, _ := r["sessionId"].(string); sid == "" {
		t.Fatalf("no session: %v", r)
	}
	// stderr is another pipe than the answer's: wait for the line there.
	if !p.errw.waitFor("the editor's MCP server broken did not start") {
		t.Errorf("stderr says nothing of it:\n%s", p.errw.String())
	}
}

// A configured model's key is looked for where the configuration says
// (apiKeyEnv), not under the provider's usual variable: missing, session/new
// and authenticate name it; present, both go through with the provider's
// own variable unset.
func TestACPAuthConfiguredKeyVar(t *testing.T) {
	home := t.TempDir()
	cfg := map[string]any{"models": map[string]any{"work": map[string]any{"provider": "openai", "model": "gpt-4.1-mini", "apiKeyEnv": "WORK_OPENAI_KEY"}}}
	data, _ := json.Marshal(cfg)
	if err := os.WriteFile(filepath.Join(home, "config.json"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	p := startACPEnv(t, home, []string{"WORK_OPENAI_KEY="}, "--model", "work")
	p.initialize(map[string]any{})
	m, _ := p.response(p.request("session/new", map[string]any{"cwd": t.TempDir(), "mcpServers": []any{}}))
	if e, _ := m["error"].(map[string]any); e == nil || e["code"] != float64(-32000) || !strings.Contains(e["message"].(string), "WORK_OPENAI_KEY") {
		t.Errorf("session/new without the configured key: %v", m)
	}
	m, _ = p.response(p.request("authenticate", map[string]any{"methodId": "env-api-key"}))
	if e, _ := m["error"].(map[string]any); e == nil || !strings.Contains(fmt.Sprint(e["message"]), "WORK_OPENAI_KEY") {
		t.Errorf("authenticate without the configured key: %v", m)
	}

	p = startACPEnv(t, home, []string{"WORK_OPENAI_KEY=sk-work-test"}, "--model", "work")
	p.initialize(map[string]any{})
	if m, _ := p.response(p.request("authenticate", map[string]any{"methodId": "env-api-key"})); m["error"] != nil {
		t.Errorf("authenticate with the configured key set: %v", m)
	}
	m, _ = p.response(p.request("session/new", map[string]any{"cwd": t.TempDir(), "mcpServers": []any{}}))
	if m["error"] != nil {
		t.Errorf("session/new with the configured key set: %v", m)
	}
}

// A session's folder, not luagent's, is its project: the catalog's
// servers run there, its AGENTS.md reaches the model, and its project
// file's rules decide the calls; another session in another folder has
// none of them.
func TestACPSessionFolderIsTheProject(t *testing.T) {
	home := t.TempDir()
	srv := writeFile(t, home, "srv.lua", askServer)
	pwds := t.TempDir()
	cfg := map[string]any{"version": 1, "mcpServers": map[string]any{"srv": map[string]any{"command": "sh",
		"args": []string{"-c", `pwd -P >> "$0/pwd"; exec "$1" serve "$2" "$0/notes"`, pwds, bin, srv}}}}
	b, _ := json.Marshal(cfg)
	writeFile(t, home, "config.json", string(b))
	proj, other := t.TempDir(), t.TempDir()
	writeFile(t, proj, "AGENTS.md", "PROJECT-MEMORY-MARKER: be brief.\n")
	writeFile(t, proj, ".luagent/config.json", `{"permissions": {"deny": ["srv__echo"]}}`)
	log := &wireLog{}
	ep := openAIEndpoint(t, log)
	p := startACPEnv(t, home, openAIEnv(home, ep.URL, "sk-acp-test"), "--model", "openai:gpt-4.1-mini")
	p.initialize(map[string]any{})

	_, before := p.result(p.prompt(p.newSession(proj), "please echo hi"))
	if us := updates(before); !strings.Contains(kinds(us), "tool_call_update:failed") || !strings.Contains(fmt.Sprint(us), "denied by the rule srv__echo") {
		t.Errorf("the project's deny rule: %s\n%v", kinds(us), us)
	}
	log.mu.Lock()
	first := strings.Join(log.bodies, "\n")
	n := len(log.bodies)
	log.mu.Unlock()
	if !strings.Contains(first, "PROJECT-MEMORY-MARKER") {
		t.Error("the session folder's AGENTS.md did not reach the model")
	}

	_, before = p.result(p.prompt(p.newSession(other), "please echo hi"))
	if us := updates(before); !strings.Contains(kinds(us), "tool_call_update:completed") {
		t.Errorf("another folder, no rule: %s\n%v", kinds(us), us)
	}
	log.mu.Lock()
	second := strings.Join(log.bodies[n:], "\n")
	log.mu.Unlock()
	if strings.Contains(second, "PROJECT-MEMORY-MARKER") {
		t.Error("another folder's session got the first folder's AGENTS.md")
	}

	pb, _ := os.ReadFile(filepath.Join(pwds, "pwd"))
	want := []string{}
	for _, d := range []string{proj, other} {
		d, _ = filepath.EvalSymlinks(d)
		want = append(want, d)
	}
	if got := strings.Fields(string(pb)); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("the catalog's server ran in %q, want %q", got, want)
	}
}

// A session's command files and agent files are its folder's project's.
func TestACPSessionFolderCommandsAndAgents(t *testing.T) {
	home := t.TempDir()
	proj, other := t.TempDir(), t.TempDir()
	writeFile(t, proj, ".luagent/commands/hello.md", "---\ndescription: Say hello\n---\nHello from the project, $ARGUMENTS.\n")
	writeFile(t, proj, ".luagent/agents/helper.md", "---\nname: helper\ndescription: Delegate any task to the helper agent\nmodel: inherit\n---\nYou help.\n")
	p := startACP(t, home, "--model", "mock")
	p.initialize(map[string]any{})
	commands := func(cwd string) (string, string) {
		res, _ := p.result(p.request("session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}}))
		sid, _ := res["sessionId"].(string)
		_, before := p.result(p.prompt(sid, "/hello Ada"))
		var names []string
		for _, u := range updates(before) {
			if u["sessionUpdate"] == "available_commands_update" {
				cmds, _ := u["availableCommands"].([]any)
				for _, c := range cmds {
					m, _ := c.(map[string]any)
					names = append(names, fmt.Sprint(m["name"]))
				}
			}
		}
		_, before = p.result(p.prompt(sid, `delegate to the helper agent: prompt="hi"`))
		return strings.Join(names, ",") + " | " + chunkText(updates(before), "agent_message_chunk"), kinds(updates(before))
	}
	if got, k := commands(proj); !strings.HasPrefix(got, "hello |") || !strings.Contains(k, "tool_call") {
		t.Errorf("the project's session: commands | answer %s; updates %s", got, k)
	}
	got, k := commands(other)
	if strings.Contains(got, "hello") || strings.Contains(k, "tool_call") {
		t.Errorf("another folder's session has the project's files: %s %s", got, k)
	}
}

// A session's hooks are those of its folder's project (trusted), run there.
func TestACPSessionFolderHooks(t *testing.T) {
	home := t.TempDir()
	proj, other := t.TempDir(), t.TempDir()
	out := filepath.Join(t.TempDir(), "hooked")
	writeFile(t, proj, ".luagent/config.json", `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "pwd -P >> `+out+`"}]}]}}`)
	if r := luagentIn(t, proj, "", []string{"LUAGENT_HOME=" + home}, "trust"); r.code != 0 {
		t.Fatalf("trust: %+v", r)
	}
	p := startACP(t, home, "--model", "mock")
	p.initialize(map[string]any{})
	for _, dir := range []string{proj, other} {
		p.result(p.prompt(p.newSession(dir), "hello"))
	}
	b, _ := os.ReadFile(out)
	want, _ := filepath.EvalSymlinks(proj)
	if strings.TrimSpace(string(b)) != want {
		t.Errorf("UserPromptSubmit ran in %q, want once, in %s", strings.Fields(string(b)), want)
	}
}
