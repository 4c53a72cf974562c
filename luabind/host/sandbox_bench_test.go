package host_test

import (
	"context"
	"io"
	"testing"

	"github.com/luagent/luagent/luabind/host"
	"github.com/luagent/luagent/luabind/vm"
)

// A sandboxed host (state, loop, json, inspect, task, log, mcp.server) built,
// a snippet run as a task under its budget, and closed: what a code-mode run
// built on host.New would pay before its tools.
// go test ./luabind/host -run '^$' -bench SandboxHost -benchmem
func BenchmarkSandboxHostNewAndRun(b *testing.B) {
	src := []byte(`return json.encode({n = #inspect({1, 2, 3})})`)
	for b.Loop() {
		h := host.New(host.Config{Profile: vm.Sandbox, Clean: true, Stdout: io.Discard, Stderr: io.Discard})
		fn, err := h.Load(src, "snippet")
		if err != nil {
			b.Fatal(err)
		}
		if f := h.RunTask(context.Background(), fn, nil, "snippet").Failure(); f != nil {
			b.Fatal(f.Message)
		}
		h.Close()
	}
}
