package vm_test

import (
	"context"
	"testing"

	"github.com/luagent/luagent/luabind/vm"
	"github.com/luagent/luagent/stdlib"
	lua "github.com/yuin/gopher-lua"
)

// go test ./luabind/vm -run '^$' -bench Sandbox -benchmem (scripts/bench/BENCHMARKS.md).

// unlimited keeps the limits out of the way of b.N iterations.
var unlimited = vm.Limits{Time: 1 << 50, Instructions: 1 << 60, MemoryBytes: 1 << 50}

// A fresh sandboxed state: what each code-mode run pays before its code.
func BenchmarkSandboxNew(b *testing.B) {
	for b.Loop() {
		vm.NewSandbox(vm.SandboxOptions{Embedded: stdlib.FS}).Close()
	}
}

// A fresh state, a small snippet compiled and run under the limits.
func BenchmarkSandboxNewAndRun(b *testing.B) {
	src := []byte(`local t = {} for i = 1, 10 do t[#t + 1] = "item " .. i end return table.concat(t, ", ")`)
	for b.Loop() {
		s := vm.NewSandbox(vm.SandboxOptions{})
		if _, err := s.Run(context.Background(), src, "snippet"); err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

// One call of a Go function (a tool binding's cost, the tool excluded)
// from a snippet, per call.
func BenchmarkSandboxGoCall(b *testing.B) {
	s := vm.NewSandbox(vm.SandboxOptions{Limits: unlimited})
	defer s.Close()
	s.L.SetGlobal("tool", s.L.NewFunction(func(L *lua.LState) int {
		L.Push(L.Get(1))
		return 1
	}))
	fn, err := s.Load([]byte(`local n = ... local r for i = 1, n do r = tool({query = "x" .. i}) end return r`), "snippet")
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	if _, err := s.Call(context.Background(), fn, lua.LNumber(b.N)); err != nil {
		b.Fatal(err)
	}
}

// The VM's cost of the budget: a numeric loop under the sandbox's budget
// context, against a plain cancellable context (what a task has), per
// iteration.
func BenchmarkSandboxLoop(b *testing.B) {
	src := `local n = ... local x = 0 for i = 1, n do x = x + i end return x`
	b.Run("budget", func(b *testing.B) {
		s := vm.NewSandbox(vm.SandboxOptions{Limits: unlimited})
		defer s.Close()
		fn, _ := s.Load([]byte(src), "loop")
		b.ResetTimer()
		if _, err := s.Call(context.Background(), fn, lua.LNumber(b.N)); err != nil {
			b.Fatal(err)
		}
	})
	b.Run("context", func(b *testing.B) {
		L := vm.New(vm.Options{})
		defer L.Close()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		L.SetContext(ctx)
		fn, _ := vm.LoadChunk(L, []byte(src), "loop")
		b.ResetTimer()
		L.Push(fn)
		L.Push(lua.LNumber(b.N))
		if err := L.PCall(1, 1, nil); err != nil {
			b.Fatal(err)
		}
	})
}

// Metered '..' and t[k] = v against the VM's own, per operation.
func BenchmarkSandboxConcatAndSet(b *testing.B) {
	src := `local n = ... local t = {} for i = 1, n do t[i % 64] = "k" .. i end return t`
	b.Run("sandbox", func(b *testing.B) {
		s := vm.NewSandbox(vm.SandboxOptions{Limits: unlimited})
		defer s.Close()
		fn, _ := s.Load([]byte(src), "cs")
		b.ResetTimer()
		if _, err := s.Call(context.Background(), fn, lua.LNumber(b.N)); err != nil {
			b.Fatal(err)
		}
	})
	b.Run("full", func(b *testing.B) {
		L := vm.New(vm.Options{})
		defer L.Close()
		fn, _ := vm.LoadChunk(L, []byte(src), "cs")
		b.ResetTimer()
		L.Push(fn)
		L.Push(lua.LNumber(b.N))
		if err := L.PCall(1, 1, nil); err != nil {
			b.Fatal(err)
		}
	})
}
