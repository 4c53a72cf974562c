package host_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/luagent/luagent/luabind/host"
	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/luabind/vm"
	"github.com/luagent/luagent/runtime/errs"
)

// runSandboxed runs src in a sandboxed host under a 1 s limit and a 64 MiB
// ceiling and fails the test if it takes more than 2 s.
func runSandboxed(t *testing.T, cfg host.Config, src string) (*sched.Failure, string) {
	t.Helper()
	cfg.Profile = vm.Sandbox
	cfg.TimeLimit = time.Second
	if cfg.Limits == (vm.Limits{}) {
		sandboxLimits(&cfg)
	}
	h, out := newHost(t, cfg)
	fn, err := h.Load([]byte(src), "snippet")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan *sched.Failure, 1)
	start := time.Now()
	go func() { done <- h.RunTask(context.Background(), fn, nil, "snippet").Failure() }()
	select {
	case f := <-done:
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("took %v, want under 2s", d)
		}
		return f, out.String()
	case <-time.After(3 * time.Second):
		t.Fatalf("still running after 3s")
	}
	return nil, ""
}

func TestSandboxEscapesAreStopped(t *testing.T) {
	cases := []struct {
		name, src string
		kind      errs.Kind
		want      string // in the message
	}{
		{"tostring of the error loops", `error(setmetatable({}, {__tostring = function() while true do end end}))`, errs.Runtime, "(error object is a table value)"},
		{"spawned tasks share the budget", `while true do task.spawn(function() while true do end end) end`, errs.Limit, "limit"},
		{"nested coroutine.wrap recursion", `local function r() coroutine.wrap(r)() end r()`, errs.Limit, "coroutine"},
		{"concat doubling", `local s = string.rep("x", 1024 * 1024) while true do s = s .. s end`, errs.Limit, "from '..' is over the limit of 16 MiB"},
		{"byte of 16 MB", `local s = string.rep("x", 16 * 1024 * 1024) local t = {s:byte(1, -1)} return #t`, errs.Limit, "string.byte"},
		{"rep kept in a table", `local t = {} for i = 1, 1e6 do t[i] = string.rep("x", 8 * 1024 * 1024) .. i end`, errs.Limit, "memory limit of 64 MiB"},
		{"table growth", `local t = {} local i = 0 while true do i = i + 1 t[i] = i end`, errs.Limit, "memory limit of 1 MiB reached by a table assignment"},
		{"format of many large strings", `local s = string.rep("x", 16 * 1024 * 1024) return string.format(string.rep("%s", 100), unpack((function() local t = {} for i = 1, 100 do t[i] = s end return t end)()))`, errs.Limit, "string.format"},
		{"infinite loop", `while true do end`, errs.Limit, "instruction"},
		{"json.encode of a repeated string", `local s, t = string.rep("x", 8 * 1024 * 1024), {} for i = 1, 100 do t[i] = s end return json.encode(t)`, errs.Limit, "json.encode: result would be 83886"},
		{"json.decode kept", `local s, t = "[" .. string.rep("1,", 128 * 1024) .. "1]", {} for i = 1, 1e6 do t[i] = json.decode(s) end`, errs.Limit, "memory limit of 1 MiB reached by json.decode"},
		// The script allocates a few bytes a turn; mcp.lua, building each
		// tool, the rest.
		{"tools registered in a loop", `local s, def = mcp.server{name = "x"}, {input = {a = "string", b = "number?"}, handler = function() end} local i = 0 while true do i = i + 1 def.name = "t" .. i s:tool(def) end`, errs.Limit, "memory limit of 1 MiB"},
		{"json.decode of a large input", `return json.decode("[" .. string.rep("1,", 2 * 1024 * 1024) .. "1]")`, errs.Limit, "json.decode: input of 4194307 bytes is over the sandbox's limit of 2097152"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := host.Config{}
			if strings.Contains(c.want, "1 MiB") {
				// Growing a table a slot at a time is slow under -race on a
				// loaded machine: a small ceiling shows the meter all the same.
				cfg.Limits = vm.Limits{Time: time.Second, MemoryBytes: 1 << 20}
			}
			f, _ := runSandboxed(t, cfg, c.src)
			if f == nil {
				t.Fatalf("no failure")
			}
			if f.Kind != c.kind || !strings.Contains(f.Message, c.want) {
				t.Fatalf("failure %v %q, want kind %v and %q", f.Kind, f.Message, c.kind, c.want)
			}
			if c.kind == errs.Limit && !strings.HasPrefix(f.Message, "snippet:1: ") {
				t.Errorf("message %q does not say where (snippet:line)", f.Message)
			}
		})
	}
}

func TestSandboxHasNoEnvironmentProcessesOrFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "mod.lua"), []byte("return 1"), 0o600); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(dir, "ran")
	env := func(name string) (string, bool) {
		if name == "SECRET" {
			return "s3cret", true
		}
		return "", false
	}
	cases := []struct{ name, src string }{
		{"env", `return env.get("SECRET")`},
		{"require env", `return require("env").get("SECRET")`},
		{"mcp.connect", `return mcp.connect{name = "x", command = "sh", args = {"-c", "touch ` + marker + `"}}`},
		{"require mcp", `return require("mcp").connect{name = "x", command = "sh", args = {"-c", "touch ` + marker + `"}}`},
		{"agent", `return agent.new{}`},
		{"io", `return io.open("` + filepath.Join(dir, "mod.lua") + `"):read("*a")`},
		{"os.execute", `return os.execute("touch ` + marker + `")`},
		{"os.getenv", `return os.getenv("SECRET")`},
		{"require of a file", `return require("mod")`},
		{"loadfile", `return loadfile("` + filepath.Join(dir, "mod.lua") + `")()`},
		{"load of bytecode", `return assert(loadstring("\27Lua\81\0\1\4\8\4\8\0"))()`},
		{"load of bytecode from a reader", `local once = false return assert(load(function() if once then return nil end once = true return "\27Lua\81\0\1\4\8\4\8\0" end))()`},
		{"debug", `return debug.getinfo(1)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, out := runSandboxed(t, host.Config{ScriptDir: dir, Env: env}, c.src)
			if f == nil {
				t.Fatalf("ran: %s", out)
			}
			if strings.Contains(f.Message, "s3cret") || strings.Contains(out, "s3cret") {
				t.Fatalf("secret leaked: %s", f.Message)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatalf("a program ran")
			}
		})
	}
}

func sandboxLimits(cfg *host.Config) {
	cfg.Limits = vm.Limits{Time: time.Second, MemoryBytes: 64 << 20, Instructions: 2e5}
}

func TestSandboxGrantedModulesWork(t *testing.T) {
	env := func(name string) (string, bool) { return "granted-value", name == "NAME" }
	cases := []struct {
		grants []string
		src    string
		want   string
	}{
		{nil, `print(type(env), type(agent), type(json.encode), type(inspect), type(task.spawn), type(log.info), type(mcp.server))`, "nil\tnil\tfunction\ttable\tfunction\tfunction\tfunction\n"},
		{nil, `local ok, e = pcall(mcp.connect, {name = "x", command = "sh"}) print(ok, (e:match("mcp.connect, hub, login and catalog are not granted in this sandbox %(luagent %-%-grant mcp gives them%)$")))`, "false\tmcp.connect, hub, login and catalog are not granted in this sandbox (luagent --grant mcp gives them)\n"},
		{nil, `print(pcall(function() return require("mcp._native")._client.connect end))`, "true\tnil\n"},
		{nil, `for _, m in ipairs({"mcp._client_native", "mcp._client", "mcp._catalog_native", "mcp._catalog"}) do local ok, e = pcall(require, m) print(m, ok, (tostring(e):match("not granted in this sandbox"))) end`,
			"mcp._client_native\tfalse\tnot granted in this sandbox\nmcp._client\tfalse\tnot granted in this sandbox\nmcp._catalog_native\tfalse\tnot granted in this sandbox\nmcp._catalog\tfalse\tnot granted in this sandbox\n"},
		{nil, `local ok, e = pcall(mcp.catalog, "/tmp/x.json") print(ok, (tostring(e):match("not granted in this sandbox")))`, "false\tnot granted in this sandbox\n"},
		{nil, `local s = mcp.server{name = "s"} s:tool{name = "t", handler = function() return "ok" end} print(type(s))`, "userdata\n"},
		{[]string{"env"}, `print(env.get("NAME"), type(env.set))`, "granted-value\tnil\n"},
		{[]string{"mcp"}, `print(type(mcp.connect), type(env))`, "function\tnil\n"},
		{[]string{"agent"}, `print(type(agent.new), type(mcp.connect))`, "function\tfunction\n"},
		{[]string{"json"}, `print(json.encode({a = 1}), inspect({1}))`, "{\"a\":1}\t{ 1 }\n"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.grants, ","), func(t *testing.T) {
			f, out := runSandboxed(t, host.Config{Grants: c.grants, Env: env}, c.src)
			if f != nil {
				t.Fatal(f.Message)
			}
			if out != c.want {
				t.Errorf("got %q, want %q", out, c.want)
			}
		})
	}
}

func TestCheckGrantsNamesTheValidOnes(t *testing.T) {
	if err := host.CheckGrants([]string{"env", "json", "mcp"}); err != nil {
		t.Fatal(err)
	}
	err := host.CheckGrants([]string{"io"})
	if err == nil || !strings.Contains(err.Error(), `unknown grant "io"`) || !strings.Contains(err.Error(), "env, mcp, agent") {
		t.Fatalf("error %v", err)
	}
}

// Rebinding shared metatables and module tables in a sandboxed host reaches
// neither another sandboxed host nor a full one.
func TestSandboxHostsShareNoState(t *testing.T) {
	f, _ := runSandboxed(t, host.Config{}, `
getmetatable("").__index.upper = function() return "pwned" end
rawset(string, "format", nil)
rawset(json, "encode", function() return "pwned" end)
json.decode = nil
local ok = pcall(setmetatable, json.null, {})
local ok2 = pcall(rawset, getmetatable(json.decode and json.array or {}) or {}, "x", 1)
inspect.inspect = nil
task.spawn = nil
`)
	if f != nil {
		t.Fatal(f.Message)
	}
	probe := `print(("a"):upper(), string.format("%d", 1), json.encode({1}), json.decode("[2]")[1], type(task.spawn), getmetatable(json.null))`
	want := "A\t1\t[1]\t2\tfunction\tjson.null\n"
	f, out := runSandboxed(t, host.Config{}, probe)
	if f != nil || out != want {
		t.Fatalf("another sandbox: %v %q", f, out)
	}
	h, buf := newHost(t, host.Config{})
	if code := h.Run(context.Background(), host.Script{Src: []byte(probe), Name: "full"}); code != host.ExitOK || buf.String() != want {
		t.Fatalf("a full host: exit %d %q", code, buf.String())
	}
}

// A task spawned from Go with a budget of its own (code mode's per-run
// limits) runs under that budget, not the host's.
func TestSandboxTaskWithItsOwnBudget(t *testing.T) {
	h, _ := newHost(t, host.Config{Profile: vm.Sandbox, Limits: vm.Limits{Instructions: 1 << 40, Time: time.Minute}})
	fn, err := h.Load([]byte("local n = 0\nwhile true do n = n + 1 end"), "run")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := vm.BudgetContext(context.Background(), vm.Limits{Instructions: 1000, Time: time.Second})
	defer stop()
	task := h.Loop.Spawn(fn, nil, sched.SpawnOptions{Context: ctx, Cancel: func(error) { stop() }})
	task.OnDone(func(*sched.Task) { h.Loop.Stop() })
	h.Loop.Run(context.Background(), sched.UntilStopped)
	f := task.Failure()
	if f == nil || f.Kind != errs.Limit || f.Message != "run:2: instruction limit of 1000 reached" {
		t.Fatalf("failure %+v", f)
	}
	if u := vm.UsageOf(ctx); u.Instructions != 1000 {
		t.Errorf("usage %+v", u)
	}
}

// A sandboxed script's own file compiles under the run's limits: a chunk
// that takes longer to parse than the time limit ends with kind timeout,
// soon after the limit, and one larger than the memory ceiling is refused
// before it is parsed.
func TestSandboxScriptCompileIsBudgeted(t *testing.T) {
	big := strings.Repeat("x = { 1, 2, 3, 'four', five = 5 }\n", 100_000) // 4 MB: seconds of parsing
	cases := []struct {
		name string
		lim  vm.Limits
		kind errs.Kind
	}{
		{"time", vm.Limits{Time: 50 * time.Millisecond, MemoryBytes: 1 << 30}, errs.Timeout},
		{"memory", vm.Limits{Time: time.Minute, MemoryBytes: 1 << 20}, errs.Limit},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, _ := newHost(t, host.Config{Profile: vm.Sandbox, Limits: tc.lim})
			start := time.Now()
			_, err := h.Load([]byte(big), "big.lua")
			if took := time.Since(start); took > time.Second {
				t.Errorf("compiling took %v; the limit was %v", took, tc.lim.Time)
			}
			if errs.KindOf(err) != tc.kind {
				t.Fatalf("err = %v (kind %q), want kind %q", err, errs.KindOf(err), tc.kind)
			}
		})
	}
}
