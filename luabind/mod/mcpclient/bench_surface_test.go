package mcpclient_test

import (
	"context"
	"testing"

	"github.com/luagent/luagent/luabind/host"
	"github.com/luagent/luagent/runtime/testkit"
	lua "github.com/yuin/gopher-lua"
)

// The client surface's own cost from Lua, per call, against the fake
// server (runtime/testkit/servers/fake, legacy era): what the Lua wrappers and
// gopher-luar add or save where values cross (conn:info, hub:status,
// hub:tools are answered locally; conn:read and conn:tools are a round
// trip through the generic waiter). Run with -benchmem on this tree and on
// the one before issue 16's binding change, in one session.
func benchSurface(b *testing.B, body string) {
	fake := testkit.Build(b, "runtime/testkit/servers/fake")
	h := host.New(host.Config{Home: b.TempDir(), Clean: true})
	defer h.Close()
	fn, err := h.Load([]byte(`
local n, fake = ...
local c = mcp.connect{ name = "fake", command = fake, args = { "-era", "legacy" } }
local hub = mcp.hub{ servers = { fake = { command = fake, args = { "-era", "legacy" } } }, wait = true }
local run = function(c, hub) `+body+` end
run(c, hub)
bench_start()
for _ = 1, n do run(c, hub) end
bench_stop()
c:close()
hub:close()`), "bench.lua")
	if err != nil {
		b.Fatal(err)
	}
	h.L.SetGlobal("bench_start", h.L.NewFunction(func(*lua.LState) int { b.ResetTimer(); return 0 }))
	h.L.SetGlobal("bench_stop", h.L.NewFunction(func(*lua.LState) int { b.StopTimer(); return 0 }))
	b.ReportAllocs()
	t := h.RunTask(context.Background(), fn, []lua.LValue{lua.LNumber(b.N), lua.LString(fake)}, "bench")
	if f := t.Failure(); f != nil {
		b.Fatal(f.Message)
	}
}

func BenchmarkSurfaceConnInfo(b *testing.B) { benchSurface(b, `assert(c:info().era == "legacy")`) }
func BenchmarkSurfaceHubStatus(b *testing.B) {
	benchSurface(b, `assert(hub:status()[1].status == "ready")`)
}
func BenchmarkSurfaceHubTools(b *testing.B) { benchSurface(b, `assert(#hub:tools() > 10)`) }
func BenchmarkSurfaceConnRead(b *testing.B) {
	benchSurface(b, `assert(c:read("test://items/1").contents[1].text == "content of test://items/1")`)
}
func BenchmarkSurfaceConnTools(b *testing.B) { benchSurface(b, `assert(#c:tools() > 10)`) }
