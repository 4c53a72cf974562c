package mcp_test

import (
	"bufio"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/luagent/luagent/runtime/testkit"
)

// startServer runs `luagent serve [args] script` for the raw-wire tests.
func startServer(t *testing.T, script string, args ...string) *wireServer {
	t.Helper()
	bin := testkit.Build(t, "cmd/luagent")
	cmd := exec.Command(bin, append(append([]string{"serve"}, args...), script)...)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Process.Kill(); cmd.Wait() })
	return &wireServer{t: t, in: in, out: bufio.NewReader(out), cmd: cmd}
}

// A null argument is reported with the type the schema wants, not the
// validator's Go internals, as a tool error the model can act on.
func TestNullArgumentMessage(t *testing.T) {
	server, _ := filepath.Abs("testdata/servers/careless.lua")
	w := startServer(t, server)
	w.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"typed","arguments":{"a":null},` + envelope + `}}`)
	m := w.recv()
	var res struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(m["result"], &res); err != nil || len(res.Content) != 1 {
		t.Fatalf("answer %s %s", m["result"], m["error"])
	}
	if want := "invalid arguments for tool typed: argument a is null, want an integer"; !res.IsError || res.Content[0].Text != want {
		t.Errorf("got isError=%v %q, want isError and %q", res.IsError, res.Content[0].Text, want)
	}
}
