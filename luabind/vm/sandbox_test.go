package vm_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/luagent/luagent/luabind/vm"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/stdlib"
	lua "github.com/yuin/gopher-lua"
)

// testLimits are the issue's: each escape stopped under a 1 s limit and a
// 64 MiB ceiling.
var testLimits = vm.Limits{Time: time.Second, MemoryBytes: 64 << 20}

func runSandbox(t *testing.T, lim vm.Limits, src string) ([]lua.LValue, error) {
	t.Helper()
	s := vm.NewSandbox(vm.SandboxOptions{Limits: lim, Embedded: stdlib.FS})
	defer s.Close()
	start := time.Now()
	out, err := s.Run(context.Background(), []byte(src), "snippet")
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v, want under 2s", d)
	}
	return out, err
}

func TestSandboxLimitsStopEscapes(t *testing.T) {
	cases := []struct {
		name, src string
		kind      errs.Kind
		want      string
		lim       vm.Limits // when set, instead of testLimits
	}{
		{"infinite loop", `while true do end`, errs.Limit, "snippet:1: instruction limit of 1000000 reached", vm.Limits{Time: time.Second, Instructions: 1e6}},
		{"concat doubling", "local s = string.rep('x', 1024 * 1024)\nwhile true do s = s .. s end", errs.Limit, "snippet:2: string of 33554432 bytes from '..' is over the limit of 16 MiB", vm.Limits{}},
		{"concat in a table", "local t, s = {}, string.rep('x', 1024 * 1024)\nfor i = 1, 1e6 do t[i] = s .. i end", errs.Limit, "snippet:2: memory limit of 64 MiB reached", vm.Limits{}},
		{"byte of 16 MB", `local s = string.rep("x", 16 * 1024 * 1024) local t = {s:byte(1, -1)} return #t`, errs.Limit, "snippet:1: string.byte: 16777216 results, over the limit of 8000", vm.Limits{}},
		{"rep kept", `local t = {} for i = 1, 1e6 do t[#t + 1] = string.rep(tostring(i), 4 * 1024 * 1024) end`, errs.Limit, "memory limit of 16 MiB reached by string.rep", vm.Limits{Time: time.Second, MemoryBytes: 16 << 20}},
		{"table growth", `local t = {} local i = 0 while true do i = i + 1 t[i] = i end`, errs.Limit, "memory limit of 1 MiB reached by a table assignment", vm.Limits{Time: time.Second, MemoryBytes: 1 << 20}},
		{"hash growth", `local t = {} local i = 0 while true do i = i + 1 t["k" .. i] = true end`, errs.Limit, "memory limit of 1 MiB", vm.Limits{Time: time.Second, MemoryBytes: 1 << 20}},
		{"rawset growth", `local t = {} local i = 0 while true do i = i + 1 rawset(t, -i, i) end`, errs.Limit, "memory limit of 1 MiB reached by rawset", vm.Limits{Time: time.Second, MemoryBytes: 1 << 20}},
		{"table.insert growth", `local t = {} while true do table.insert(t, 1) end`, errs.Limit, "memory limit of 1 MiB reached by table.insert", vm.Limits{Time: time.Second, MemoryBytes: 1 << 20}},
		{"constructors", `local t = {} local i = 0 while true do i = i + 1 t[i] = {1, 2, 3, 4, 5, 6, 7, 8} end`, errs.Limit, "memory limit of 1 MiB", vm.Limits{Time: time.Second, MemoryBytes: 1 << 20}},
		{"format of many large strings", `local s = string.rep("x", 16 * 1024 * 1024) local t = {} for i = 1, 100 do t[i] = s end return string.format(string.rep("%s", 100), unpack(t))`, errs.Limit, "string.format: result would be", vm.Limits{}},
		{"gsub kept", `local s, t = string.rep("x", 4 * 1024 * 1024), {} for i = 1, 1e6 do t[i] = s:gsub("^", "y") end`, errs.Limit, "memory limit of 16 MiB reached by string.gsub", vm.Limits{Time: time.Second, MemoryBytes: 16 << 20}},
		{"upper kept", `local s, t = string.rep("X", 4 * 1024 * 1024), {} for i = 1, 1e6 do t[i] = s:upper() end`, errs.Limit, "by string.upper", vm.Limits{Time: time.Second, MemoryBytes: 16 << 20}},
		{"reverse kept", `local s, t = string.rep("x", 4 * 1024 * 1024), {} for i = 1, 1e6 do t[i] = s:reverse() end`, errs.Limit, "by string.reverse", vm.Limits{Time: time.Second, MemoryBytes: 16 << 20}},
		{"table.concat kept", `local s, t, u = string.rep("x", 4 * 1024 * 1024), {}, {} for i = 1, 4 do u[i] = s end for i = 1, 1e6 do t[i] = table.concat(u) end`, errs.Limit, "by table.concat", vm.Limits{Time: time.Second, MemoryBytes: 16 << 20}},
		{"nested coroutine.wrap recursion", `local function r() coroutine.wrap(r)() end r()`, errs.Limit, "reached by coroutine.wrap", vm.Limits{}},
		{"many coroutines", `local t = {} for i = 1, 1e6 do t[i] = coroutine.create(function() end) end`, errs.Limit, "coroutine", vm.Limits{}},
		{"loop inside a coroutine", `coroutine.wrap(function() while true do end end)()`, errs.Limit, "instruction limit", vm.Limits{Time: time.Second, Instructions: 1e6}},
		{"load of a concat", `local f = loadstring("local s = string.rep('x', 2^20) while true do s = s .. s end") f()`, errs.Limit, "from '..' is over the limit of 16 MiB", vm.Limits{}},
		{"load with a reader", `local done local f = load(function() if done then return nil end done = true return "local s, t = string.rep('x', 2^20), {} for i = 1, 1e6 do t[i] = s .. i end" end) f()`, errs.Limit, "memory limit of 64 MiB reached by '..'", vm.Limits{}},
		{"closure chain", `local prev while true do local p = prev prev = function() return p end end`, errs.Limit, "memory limit of 1 MiB reached by a function", vm.Limits{Time: time.Second, MemoryBytes: 1 << 20}},
		{"pcall does not swallow a limit", `while true do pcall(function() while true do end end) end`, errs.Limit, "instruction limit", vm.Limits{Time: time.Second, Instructions: 1e6}},
		{"pcall does not reset the meter", `local s = string.rep("x", 2^20) while true do pcall(function() local t = {} while true do t[#t+1] = s .. "y" end end) end`, errs.Limit, "memory limit", vm.Limits{}},
		{"error with a looping __tostring", `error(setmetatable({}, {__tostring = function() while true do end end}))`, errs.Runtime, "(error object is a table value)", vm.Limits{}},
		{"error table message", `error({message = "plain"})`, errs.Runtime, "plain", vm.Limits{}},
		{"os.date of a long format", `return os.date(string.rep("%c", 1e6))`, errs.Limit, "os.date: a format of 2000000 bytes is over the sandbox's limit of 4096", vm.Limits{}},
		{"time limit", `while true do end`, errs.Timeout, "time limit of 1s exceeded", vm.Limits{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lim := testLimits
			if c.lim != (vm.Limits{}) {
				lim = c.lim
			}
			if c.kind == errs.Timeout {
				lim.Instructions = 1 << 60
			}
			_, err := runSandbox(t, lim, c.src)
			var e *errs.Error
			if !errors.As(err, &e) || e.Kind != c.kind || !strings.Contains(e.Msg, c.want) {
				t.Fatalf("error %#v, want kind %v with %q", err, c.kind, c.want)
			}
		})
	}
}

func TestSandboxTimeLimitNamesWhere(t *testing.T) {
	_, err := runSandbox(t, vm.Limits{Time: 100 * time.Millisecond, Instructions: 1 << 60}, "local x = 0\nwhile true do x = x + 1 end")
	if !errs.Is(err, errs.Timeout) || !strings.Contains(err.Error(), "snippet:2: time limit of 100ms exceeded") {
		t.Fatalf("error %v", err)
	}
}

func TestSandboxCancelledByTheCaller(t *testing.T) {
	s := vm.NewSandbox(vm.SandboxOptions{Limits: vm.Limits{Instructions: 1 << 60}})
	defer s.Close()
	ctx, cancel := context.WithCancelCause(context.Background())
	time.AfterFunc(50*time.Millisecond, func() { cancel(errs.New(errs.Cancelled, "", "turn cancelled")) })
	_, err := s.Run(ctx, []byte("while true do end"), "snippet")
	if !errs.Is(err, errs.Cancelled) || !strings.Contains(err.Error(), "turn cancelled") {
		t.Fatalf("error %v", err)
	}
}

// The rewritten chunk behaves as the original.
func TestSandboxCompiledChunkSemantics(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"concat", `return "a" .. 1 .. "b" .. 2.5`, "a1b2.5"},
		{"concat metamethod", `local m = setmetatable({}, {__concat = function(a, b) return "M" end}) return (m .. "x") .. ("x" .. m)`, "MM"},
		{"concat error", `local ok, e = pcall(function() return "a" .. nil end) return e`, "snippet:1: attempt to concatenate a nil value"},
		{"varargs and returns", `local a, b = ... return tostring(a) .. tostring(b) .. select("#", ...)`, "nilnil0"},
		{"indexed assignment", `local t = {} t[1], t.x, t["y" .. 1] = 1, 2, 3 return t[1] .. t.x .. t.y1`, "123"},
		{"multiple assignment with a call", `local function f() return 1, 2 end local t = {} local x t[1], x = f() return t[1] .. x`, "12"},
		{"swap", `local t = {1, 2} t[1], t[2] = t[2], t[1] return t[1] .. t[2]`, "21"},
		{"newindex", `local log = {} local t = setmetatable({}, {__newindex = function(t, k, v) log[#log + 1] = k end}) t[5] = 1 return log[1] .. tostring(rawget(t, 5))`, "5nil"},
		{"constructor with a call", `local function f() return 1, 2, 3 end local t = {f()} return #t .. #{f(), f()} .. #{x = 1, f()}`, "343"},
		{"nested functions", `local function mk(p) return function(s) return p .. s end end return mk("a")("b")`, "ab"},
		{"method definition", `local o = {n = "o"} function o:name() return self.n .. "!" end return o:name()`, "o!"},
		{"numeric for", `local s = "" for i = 1, 3 do s = s .. i end return s`, "123"},
		{"coroutines", `local co = coroutine.wrap(function(a) local b = coroutine.yield(a .. "1") return b .. "3" end) return co("x") .. co("2")`, "x123"},
		{"load", `return loadstring("return ... .. '!'")("hi")`, "hi!"},
		{"load of bytecode refused", `local f, e = loadstring("\27Lua") return tostring(f) .. " " .. e`, "nil [string \"\x1bLua\"]: binary chunks cannot be loaded in the sandbox; pass Lua source"},
		{"inspect", `return require("inspect")({a = "b" .. "c"})`, `{ a = "bc" }`},
		{"metered built-ins", `return os.date("!%Y", 0) .. ("ab"):rep(2, "-") .. ("Ab"):upper() .. ("x"):byte() .. string.format("%5.1f|%s", 1.25, setmetatable({}, {__tostring = function() return "T" end})) .. table.concat({1, 2}, ",") .. ("abc"):reverse() .. ("aXa"):gsub("a", "b")`, "1970ab-abAB120  1.2|T1,2cbabXb"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := runSandbox(t, vm.Limits{}, c.src)
			if err != nil {
				t.Fatal(err)
			}
			if len(out) == 0 || lua.LVAsString(out[0]) != c.want {
				t.Fatalf("got %v, want %q", out, c.want)
			}
		})
	}
}

func TestSandboxAbsentFunctions(t *testing.T) {
	out, err := runSandbox(t, vm.Limits{}, `
local names = {}
for _, n in ipairs{"io", "debug", "dofile", "loadfile", "collectgarbage", "getfenv", "setfenv", "newproxy", "module", "channel"} do
	if _G[n] ~= nil then names[#names + 1] = n end
end
for _, n in ipairs{"execute", "exit", "getenv", "remove", "rename", "tmpname", "setenv"} do
	if os[n] ~= nil then names[#names + 1] = "os." .. n end
end
if string.dump then names[#names + 1] = "string.dump" end
if package.loadlib then names[#names + 1] = "package.loadlib" end
return table.concat(names, " ")`)
	if err != nil || lua.LVAsString(out[0]) != "" {
		t.Fatalf("present: %v %v", out, err)
	}
}

// Rebinding the string metatable or a module table in one state reaches
// no other state.
func TestSandboxStatesShareNothing(t *testing.T) {
	a := vm.NewSandbox(vm.SandboxOptions{Embedded: stdlib.FS})
	defer a.Close()
	b := vm.NewSandbox(vm.SandboxOptions{Embedded: stdlib.FS})
	defer b.Close()
	full := vm.New(vm.Options{Embedded: stdlib.FS})
	defer full.Close()
	_, err := a.Run(context.Background(), []byte(`
getmetatable("").__index.upper = function() return "pwned" end
rawset(string, "lower", function() return "pwned" end)
rawset(table, "concat", nil)
require("inspect")
rawset(package.loaded, "inspect", function() return "pwned" end)
math.floor = nil
return ("a"):upper()`), "a")
	if err != nil {
		t.Fatal(err)
	}
	src := `return ("a"):upper() .. ("B"):lower() .. table.concat({"c"}) .. math.floor(1.5) .. require("inspect")("d")`
	out, err := b.Run(context.Background(), []byte(src), "b")
	if err != nil || lua.LVAsString(out[0]) != `Abc1"d"` {
		t.Fatalf("other sandbox: %v %v", out, err)
	}
	if err := full.DoString(src); err != nil {
		t.Fatalf("full state: %v", err)
	}
}
