package sched_test

import (
	"context"
	"testing"

	"github.com/luagent/luagent/luabind/host"
	"github.com/luagent/luagent/luabind/sched"
	lua "github.com/yuin/gopher-lua"
)

func benchHost(b *testing.B) *host.Host {
	h := host.New(host.Config{Home: b.TempDir(), Clean: true})
	b.Cleanup(h.Close)
	return h
}

func compile(b *testing.B, h *host.Host, src string) *lua.LFunction {
	fn, err := h.Load([]byte(src), "bench")
	if err != nil {
		b.Fatal(err)
	}
	return fn
}

// BenchmarkTaskSpawn measures a task from Spawn to completion, loop
// overhead included: spawn, start on a pooled coroutine, run, finish.
func BenchmarkTaskSpawn(b *testing.B) {
	h := benchHost(b)
	fn := compile(b, h, "return 1")
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		h.Loop.Spawn(fn, nil, sched.SpawnOptions{})
		if i%256 == 255 {
			h.Loop.Run(ctx, sched.UntilIdle)
		}
	}
	h.Loop.Run(ctx, sched.UntilIdle)
}

// BenchmarkTaskSpawnFromLua is task.spawn + await from a Lua loop.
func BenchmarkTaskSpawnFromLua(b *testing.B) {
	h := benchHost(b)
	fn := compile(b, h, `local n = ... local f = function() return 1 end
for i = 1, n do task.spawn(f):await() end`)
	b.ReportAllocs()
	b.ResetTimer()
	h.RunTask(context.Background(), fn, []lua.LValue{lua.LNumber(b.N)}, "bench")
}

// BenchmarkResumeYield is one wait that completes at once (task.yield): a
// yield, a trip through the inbox and a resume.
func BenchmarkResumeYield(b *testing.B) {
	h := benchHost(b)
	fn := compile(b, h, `local n = ... for i = 1, n do task.yield() end`)
	b.ReportAllocs()
	b.ResetTimer()
	t := h.RunTask(context.Background(), fn, []lua.LValue{lua.LNumber(b.N)}, "bench")
	if t.Failure() != nil {
		b.Fatal(t.Failure())
	}
}

// BenchmarkGoToLuaCall is a protected call from Go into a Lua function.
func BenchmarkGoToLuaCall(b *testing.B) {
	h := benchHost(b)
	L := h.L
	if err := L.DoString("function id(x) return x end"); err != nil {
		b.Fatal(err)
	}
	fn := L.GetGlobal("id")
	p := lua.P{Fn: fn, NRet: 1, Protect: true}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := L.CallByParam(p, lua.LNumber(1)); err != nil {
			b.Fatal(err)
		}
		L.Pop(1)
	}
}

// BenchmarkLuaToGoCall is a Lua loop calling a Go function, minus nothing:
// compare with BenchmarkLuaEmptyLoop for the call's own cost.
func BenchmarkLuaToGoCall(b *testing.B) {
	h := benchHost(b)
	L := h.L
	L.SetGlobal("gofn", L.NewFunction(func(L *lua.LState) int { return 0 }))
	fn := compile(b, h, "local n = ... local f = gofn for i = 1, n do f() end")
	b.ReportAllocs()
	b.ResetTimer()
	if err := L.CallByParam(lua.P{Fn: fn, Protect: true}, lua.LNumber(b.N)); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkLuaEmptyLoop is the loop of BenchmarkLuaToGoCall without the call.
func BenchmarkLuaEmptyLoop(b *testing.B) {
	h := benchHost(b)
	fn := compile(b, h, "local n = ... local x = 0 for i = 1, n do x = i end")
	b.ResetTimer()
	if err := h.L.CallByParam(lua.P{Fn: fn, Protect: true}, lua.LNumber(b.N)); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkLuaToGoCallInTask is BenchmarkLuaToGoCall inside a task, whose
// coroutine carries a context the VM checks before every instruction.
func BenchmarkLuaToGoCallInTask(b *testing.B) {
	h := benchHost(b)
	h.L.SetGlobal("gofn", h.L.NewFunction(func(L *lua.LState) int { return 0 }))
	fn := compile(b, h, "local n = ... local f = gofn for i = 1, n do f() end")
	b.ReportAllocs()
	b.ResetTimer()
	h.RunTask(context.Background(), fn, []lua.LValue{lua.LNumber(b.N)}, "bench")
}

// BenchmarkCall measures a Go goroutine calling Lua and waiting for the
// answer (Loop.Call): the hand-over to the loop, the task, and back.
func BenchmarkCall(b *testing.B) {
	h := benchHost(b)
	fn := compile(b, h, "return 1")
	ctx, stop := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { defer close(ran); h.Loop.Run(ctx, sched.UntilStopped) }()
	c := sched.Call{Name: "bench", Func: func(*lua.LState) (*lua.LFunction, []lua.LValue, error) { return fn, nil, nil }}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := h.Loop.Call(ctx, c); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	stop()
	<-ran
}
