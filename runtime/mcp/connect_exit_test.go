package mcp_test

import (
	"context"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/mcp"
	"github.com/luagent/luagent/runtime/transport"
)

// A server that exits at once fails the connect with its exit status and
// its last stderr lines, every time: whether the client's first write or
// its first read notices the exit is a race, and the answer must not
// depend on it (it once said "write |1: broken pipe" 5 runs in 6).
func TestConnectToAServerThatExits(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cmd   transport.Command
		want  []string
		runs  int
		proto string
	}{
		{"false", transport.Command{Path: "/bin/false"}, []string{`server "nope" exited with status 1`}, 20, ""},
		{"false, modern", transport.Command{Path: "/bin/false"}, []string{`server "nope" exited with status 1`}, 5, "modern"},
		{"false, auto", transport.Command{Path: "/bin/false"}, []string{`server "nope" exited with status 1`}, 5, "auto"},
		{"stderr then 3", transport.Command{Path: "/bin/sh", Args: []string{"-c", "echo starting >&2; echo 'fatal: no config file' >&2; exit 3"}},
			[]string{`server "nope" exited with status 3`, "last stderr: starting | fatal: no config file"}, 10, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for i := 0; i < tc.runs; i++ {
				mcp.ForgetEra()
				c, err := mcp.Connect(context.Background(), mcp.Options{Name: "nope", Command: tc.cmd, Protocol: tc.proto})
				if err == nil {
					c.Close()
					t.Fatal("connected to a server that exits")
				}
				if kind(err) != errs.Process {
					t.Errorf("run %d: kind %v, want process: %v", i, kind(err), err)
				}
				for _, w := range tc.want {
					if !strings.Contains(err.Error(), w) {
						t.Fatalf("run %d: %q lacks %q", i, err, w)
					}
				}
				if strings.Contains(err.Error(), "broken pipe") {
					t.Fatalf("run %d: %q", i, err)
				}
			}
		})
	}
}
