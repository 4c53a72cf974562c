package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/testkit"
)

// wireMethods are the methods a fake server logged (-log FILE), in order.
func wireMethods(t *testing.T, log string) []string {
	t.Helper()
	f, err := os.Open(log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var m struct {
			Method string `json:"method"`
		}
		if json.Unmarshal(sc.Bytes(), &m) == nil && m.Method != "" {
			out = append(out, m.Method)
		}
	}
	return out
}

// traceKinds reads a --trace file: each event's kind, method and message.
func traceEvents(t *testing.T, file string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var e map[string]any
		if json.Unmarshal([]byte(line), &e) != nil {
			t.Fatalf("not JSON: %q", line)
		}
		out = append(out, e)
	}
	return out
}

// A legacy server with "logLevel" in its entry is asked once per
// connection (logging/setLevel), not once by the hub and again by the
// client's restore.
func TestLogLevelSentOncePerConnection(t *testing.T) {
	fake := testkit.Build(t, "runtime/testkit/servers/fake")
	home := t.TempDir()
	log := filepath.Join(home, "wire.log")
	writeCatalog(t, home, map[string]any{"f": map[string]any{"command": fake, "args": []string{"-era", "legacy", "-log", log}, "logLevel": "info"}})
	for _, args := range [][]string{{"mcp", "tools", "f"}, {"mcp", "call", "f", "echo", "message=hi"}} {
		os.Remove(log)
		r := luagent(t, "", []string{"LUAGENT_HOME=" + home}, args...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
		}
		n := 0
		for _, m := range wireMethods(t, log) {
			if m == "logging/setLevel" {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%v: logging/setLevel sent %d times: %v", args, n, wireMethods(t, log))
		}
	}
}
