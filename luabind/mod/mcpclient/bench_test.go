package mcpclient_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/luagent/luagent/luabind/host"
	"github.com/luagent/luagent/runtime/cputime"
	rmcp "github.com/luagent/luagent/runtime/mcp"
	"github.com/luagent/luagent/runtime/testkit"
	"github.com/luagent/luagent/runtime/transport"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	lua "github.com/yuin/gopher-lua"
)

// Sequential tools/call round trips against one echo server (the Go SDK
// v1.8.0 test server, modern era for every client), comparing luagent's
// client from Lua and from Go with the Go SDK's client in the same run.
// Besides ns/op, each reports the client process's CPU per call (the
// server is another process, so its CPU is not counted).

// echoServer is the server all clients call: runtime/testkit/servers/echo, which
// answers with as little work as it can, so the clients' own costs show;
// BENCH_SERVER=gosdk picks the Go SDK test server instead.
func echoServer(b *testing.B) (string, []string) {
	switch os.Getenv("BENCH_SERVER") {
	case "gosdk":
		return testkit.GoSDKServer(b, "modern")
	case "lua":
		return testkit.Build(b, "cmd/luagent"), []string{"serve", filepath.Join(testkit.Root(), "examples", "echo.lua")}
	}
	return testkit.Build(b, "runtime/testkit/servers/echo"), nil
}

func report(b *testing.B, start time.Time, cpu0 time.Duration) {
	elapsed := time.Since(start)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "calls/s")
	b.ReportMetric(float64((cputime.Self()-cpu0).Microseconds())/float64(b.N), "client-cpu-µs/call")
}

func BenchmarkEchoCallGoSDKClient(b *testing.B) {
	cmd, args := echoServer(b)
	ctx := context.Background()
	client := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "0"}, nil)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: exec.Command(cmd, args...)}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	params := &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "hi"}}
	if _, err := cs.CallTool(ctx, params); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	start, cpu0 := time.Now(), cputime.Self()
	for i := 0; i < b.N; i++ {
		res, err := cs.CallTool(ctx, params)
		if err != nil || res.IsError {
			b.Fatal(err)
		}
	}
	report(b, start, cpu0)
}

func BenchmarkEchoCallLuagentGo(b *testing.B) {
	cmd, args := echoServer(b)
	ctx := context.Background()
	rmcp.ForgetEra()
	c, err := rmcp.Connect(ctx, rmcp.Options{Name: "bench", Command: transport.Command{Path: cmd, Args: args}})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	argsJSON := json.RawMessage(`{"message":"hi"}`)
	if _, err := c.CallToolRaw(ctx, "echo", argsJSON, rmcp.CallOptions{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	start, cpu0 := time.Now(), cputime.Self()
	for i := 0; i < b.N; i++ {
		if _, err := c.CallToolRaw(ctx, "echo", argsJSON, rmcp.CallOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	report(b, start, cpu0)
}

func BenchmarkEchoCallLuagentLua(b *testing.B) {
	// As the luagent binary runs a script (cmd/luagent: one Lua state,
	// one P); the Go clients keep the test process's.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	cmd, args := echoServer(b)
	h := host.New(host.Config{Home: b.TempDir(), Clean: true})
	defer h.Close()
	fn, err := h.Load([]byte(`
local n, cmd, args = ...
local c = mcp.connect{ name = "bench", command = cmd, args = args }
c:call("echo", { message = "hi" })
bench_start()
for i = 1, n do
  local r = c:call("echo", { message = "hi" })
  if r.content[1].text ~= "hi" then error("bad echo") end
end
bench_stop()
c:close()`), "bench.lua")
	if err != nil {
		b.Fatal(err)
	}
	luaArgs := h.L.CreateTable(len(args), 0)
	for i, a := range args {
		luaArgs.RawSetInt(i+1, lua.LString(a))
	}
	var start time.Time
	var cpu0 time.Duration
	h.L.SetGlobal("bench_start", h.L.NewFunction(func(*lua.LState) int {
		b.ResetTimer()
		start, cpu0 = time.Now(), cputime.Self()
		return 0
	}))
	h.L.SetGlobal("bench_stop", h.L.NewFunction(func(*lua.LState) int {
		b.StopTimer()
		report(b, start, cpu0)
		return 0
	}))
	b.ReportAllocs()
	t := h.RunTask(context.Background(), fn, []lua.LValue{lua.LNumber(b.N), lua.LString(cmd), luaArgs}, "bench")
	if f := t.Failure(); f != nil {
		b.Fatal(f.Message)
	}
}
