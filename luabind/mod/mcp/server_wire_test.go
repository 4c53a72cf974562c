package mcp_test

import (
	"bufio"
	"encoding/json"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// wireServer is a Lua server driven with raw JSON lines, for the faults a
// well-behaved client never produces.
type wireServer struct {
	t   *testing.T
	in  io.WriteCloser
	out *bufio.Reader
	cmd *exec.Cmd
}

func startWire(t *testing.T, args ...string) *wireServer {
	t.Helper()
	server, _ := filepath.Abs("testdata/servers/everything.lua")
	return startServer(t, server, args...)
}

func (w *wireServer) send(line string) {
	w.t.Helper()
	if _, err := io.WriteString(w.in, line+"\n"); err != nil {
		w.t.Fatal(err)
	}
}

// recv reads the next message that is not a notification.
func (w *wireServer) recv() map[string]json.RawMessage {
	w.t.Helper()
	done := make(chan map[string]json.RawMessage, 1)
	go func() {
		for {
			line, err := w.out.ReadBytes('\n')
			if err != nil {
				done <- nil
				return
			}
			var m map[string]json.RawMessage
			if json.Unmarshal(line, &m) != nil {
				continue
			}
			if _, isReq := m["method"]; isReq {
				continue
			}
			done <- m
			return
		}
	}()
	select {
	case m := <-done:
		if m == nil {
			w.t.Fatal("the server closed its output")
		}
		return m
	case <-time.After(10 * time.Second):
		w.t.Fatal("no answer")
	}
	return nil
}

func errCode(t *testing.T, m map[string]json.RawMessage) int {
	t.Helper()
	var e struct {
		Code int `json:"code"`
	}
	if json.Unmarshal(m["error"], &e) != nil || m["error"] == nil {
		t.Fatalf("expected an error, got %s", m["result"])
	}
	return e.Code
}

const envelope = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`

func TestServerWireFaults(t *testing.T) {
	w := startWire(t)
	// A malformed message gets a parse error with a null id, and the server
	// goes on.
	w.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list",`)
	if m := w.recv(); errCode(t, m) != -32700 || string(m["id"]) != "null" {
		t.Errorf("malformed: %s %s", m["id"], m["error"])
	}
	// Unknown methods, in both eras.
	w.send(`{"jsonrpc":"2.0","id":2,"method":"no/such","params":{` + envelope + `}}`)
	if c := errCode(t, w.recv()); c != -32601 {
		t.Errorf("unknown modern method: %d", c)
	}
	// Missing required _meta keys.
	w.send(`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`)
	if c := errCode(t, w.recv()); c != -32602 {
		t.Errorf("missing clientCapabilities: %d", c)
	}
	// An unsupported version names the supported ones.
	w.send(`{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	m := w.recv()
	if c := errCode(t, m); c != -32022 || !strings.Contains(string(m["error"]), `"supported":["2026-07-28"`) || !strings.Contains(string(m["error"]), `"requested":"1900-01-01"`) {
		t.Errorf("unsupported version: %s", m["error"])
	}
	// A request without the envelope before initialize is refused, and does
	// not lock the era: initialize still works afterwards.
	w.send(`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`)
	if c := errCode(t, w.recv()); c != -32600 {
		t.Errorf("before initialize: %d", c)
	}
	// initialize goes to the legacy path even with modern _meta.
	w.send(`{"jsonrpc":"2.0","id":6,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"},` + envelope + `}}`)
	if m := w.recv(); !strings.Contains(string(m["result"]), `"protocolVersion":"2025-06-18"`) {
		t.Errorf("initialize: %s", m["result"])
	}
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	w.send(`{"jsonrpc":"2.0","id":7,"method":"no/such"}`)
	if c := errCode(t, w.recv()); c != -32601 {
		t.Errorf("unknown legacy method: %d", c)
	}
	// Modern requests are still served statelessly beside the session.
	w.send(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo","arguments":{"message":"both"},` + envelope + `}}`)
	if m := w.recv(); !strings.Contains(string(m["result"]), `"resultType":"complete"`) || !strings.Contains(string(m["result"]), `"text":"both"`) {
		t.Errorf("modern beside legacy: %s", m["result"])
	}
}

func TestServerRequestState(t *testing.T) {
	w := startWire(t)
	w.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask_twice","arguments":{},` + envelope + `}}`)
	m := w.recv()
	var first struct {
		ResultType    string                     `json:"resultType"`
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
		RequestState  string                     `json:"requestState"`
	}
	json.Unmarshal(m["result"], &first)
	if first.ResultType != "input_required" || len(first.InputRequests) != 1 || first.RequestState == "" {
		t.Fatalf("first round: %s", m["result"])
	}
	var key string
	for k := range first.InputRequests {
		key = k
	}
	answer := `{"` + key + `":{"action":"accept","content":{"name":"Ada"}}}`
	state, _ := json.Marshal(first.RequestState)

	// Second round: the state carries the first answer.
	w.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask_twice","arguments":{},"inputResponses":` + answer + `,"requestState":` + string(state) + `,` + envelope + `}}`)
	var second struct {
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
		RequestState  string                     `json:"requestState"`
	}
	json.Unmarshal(w.recv()["result"], &second)
	if len(second.InputRequests) != 1 || second.RequestState == "" {
		t.Fatalf("second round did not ask again")
	}
	var key2 string
	for k := range second.InputRequests {
		key2 = k
	}
	state2, _ := json.Marshal(second.RequestState)

	// A tampered state is refused with a clear error.
	tampered := []byte(second.RequestState)
	tampered[3] ^= 1
	bad, _ := json.Marshal(string(tampered))
	w.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask_twice","arguments":{},"inputResponses":{"` + key2 + `":{"action":"accept","content":{"colour":"red"}}},"requestState":` + string(bad) + `,` + envelope + `}}`)
	m = w.recv()
	if c := errCode(t, m); c != -32602 || !strings.Contains(string(m["error"]), "requestState is not valid") {
		t.Errorf("tampered state: %s", m["error"])
	}
	// A state made for another tool is refused too.
	w.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"sample","arguments":{},"requestState":` + string(state2) + `,` + envelope + `}}`)
	if c := errCode(t, w.recv()); c != -32602 {
		t.Errorf("state for another tool accepted: %d", c)
	}
	// The genuine state completes the call.
	w.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"ask_twice","arguments":{},"inputResponses":{"` + key2 + `":{"action":"accept","content":{"colour":"red"}}},"requestState":` + string(state2) + `,` + envelope + `}}`)
	if m := w.recv(); !strings.Contains(string(m["result"]), "hello Ada, who likes red") {
		t.Errorf("final round: %s", m["result"])
	}
}

func TestServerStateKeySharedByReplicas(t *testing.T) {
	// Two processes with the same LUAGENT_STATE_KEY accept each other's state;
	// a third with another key does not.
	t.Setenv("LUAGENT_STATE_KEY", "shared-secret")
	a, b := startWire(t), startWire(t)
	a.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask_twice","arguments":{},` + envelope + `}}`)
	var first struct {
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
		RequestState  string                     `json:"requestState"`
	}
	json.Unmarshal(a.recv()["result"], &first)
	var key string
	for k := range first.InputRequests {
		key = k
	}
	state, _ := json.Marshal(first.RequestState)
	retry := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask_twice","arguments":{},"inputResponses":{"` + key + `":{"action":"accept","content":{"name":"Ada"}}},"requestState":` + string(state) + `,` + envelope + `}}`
	b.send(retry)
	if m := b.recv(); !strings.Contains(string(m["result"]), "input_required") {
		t.Errorf("a replica with the same key refused the state: %s %s", m["result"], m["error"])
	}
	t.Setenv("LUAGENT_STATE_KEY", "another-secret")
	c := startWire(t)
	c.send(retry)
	if code := errCode(t, c.recv()); code != -32602 {
		t.Errorf("a replica with another key accepted the state")
	}
}
