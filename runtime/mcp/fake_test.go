package mcp_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/testkit"
	"github.com/luagent/luagent/runtime/transport"
)

// fakeServer is the scripted server (runtime/testkit/servers/fake) with a wire
// log of what it received.
func fakeServer(t testing.TB, args ...string) (transport.Command, string) {
	t.Helper()
	log := filepath.Join(t.TempDir(), "wire.log")
	return transport.Command{Path: testkit.Build(t, "runtime/testkit/servers/fake"), Args: append([]string{"-log", log}, args...)}, log
}

// wire reads the lines the fake server received.
func wire(t testing.TB, log string) []map[string]json.RawMessage {
	t.Helper()
	f, err := os.Open(log)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []map[string]json.RawMessage
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var m map[string]json.RawMessage
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// methods lists the methods of the received messages ("" for responses).
func methods(msgs []map[string]json.RawMessage) []string {
	var out []string
	for _, m := range msgs {
		var s string
		json.Unmarshal(m["method"], &s)
		out = append(out, s)
	}
	return out
}

// waitWire waits until the fake server has received a message with method.
func waitWire(t testing.TB, log, method string) map[string]json.RawMessage {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		for _, m := range wire(t, log) {
			var s string
			json.Unmarshal(m["method"], &s)
			if s == method {
				return m
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the server never received %s; it got %v", method, methods(wire(t, log)))
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
