package vm_test

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/luagent/luagent/luabind/vm"
	"github.com/luagent/luagent/runtime/errs"
	lua "github.com/yuin/gopher-lua"
)

func run(t *testing.T, L *lua.LState, src string) (string, error) {
	t.Helper()
	fn, err := L.LoadString(src)
	if err != nil {
		t.Fatalf("compile %q: %v", src, err)
	}
	err = L.CallByParam(lua.P{Fn: fn, NRet: 1, Protect: true})
	if err != nil {
		return "", err
	}
	v := L.Get(-1)
	L.Pop(1)
	return vm.ToString(L, v), nil
}

func TestSandboxRemovesDangerousLibraries(t *testing.T) {
	L := vm.New(vm.Options{Profile: vm.Sandbox, Embedded: fstest.MapFS{"safe.lua": {Data: []byte("return 'embedded ok'")}}})
	defer L.Close()
	for _, expr := range []string{"io", "os.execute", "os.exit", "os.getenv", "os.remove", "os.rename", "os.tmpname",
		"loadfile", "dofile", "debug", "package.loadlib", "collectgarbage", "newproxy", "module", "channel"} {
		if got, err := run(t, L, "return type("+expr+")"); err != nil || got != "nil" {
			t.Errorf("sandbox: %s is %s (%v), want nil", expr, got, err)
		}
	}
	for _, expr := range []string{"os.time", "os.date", "os.clock", "string.format", "table.concat", "load", "pcall", "require"} {
		if got, err := run(t, L, "return type("+expr+")"); err != nil || got != "function" {
			t.Errorf("sandbox: %s is %s (%v), want function", expr, got, err)
		}
	}
	if _, err := run(t, L, "return string.rep('x', 17 * 2^20)"); err == nil || !strings.Contains(err.Error(), "over the limit of 16777216") {
		t.Errorf("sandbox string.rep cap: %v", err)
	}
	if got, err := run(t, L, "return #string.rep('x', 2^20)"); err != nil || got != "1048576" {
		t.Errorf("sandbox string.rep below the cap: %q %v", got, err)
	}
	if got, err := run(t, L, "return require('safe')"); err != nil || got != "embedded ok" {
		t.Errorf("embedded require in the sandbox: %q %v", got, err)
	}
	// No filesystem search at all, whatever package.path says.
	if _, err := run(t, L, "package.path = '/etc/?'; return require('passwd')"); err == nil {
		t.Error("the sandbox read a module from the filesystem")
	}
	if got, _ := run(t, L, "return package.path"); got != "/etc/?" && got != "" {
		t.Errorf("package.path %q", got)
	}
}

func TestFullProfileHasTheStandardLibrary(t *testing.T) {
	var out bytes.Buffer
	L := vm.New(vm.Options{Stdout: &out})
	defer L.Close()
	for _, expr := range []string{"io.open", "os.execute", "os.getenv", "debug.traceback", "loadfile", "dofile"} {
		if got, err := run(t, L, "return type("+expr+")"); err != nil || got != "function" {
			t.Errorf("full: %s is %s (%v)", expr, got, err)
		}
	}
	run(t, L, "print('a', 1, nil, true, 1/0)")
	if out.String() != "a\t1\tnil\ttrue\tinf\n" {
		t.Errorf("print wrote %q", out.String())
	}
}

func TestExitGoesThroughTheHost(t *testing.T) {
	code := -1
	L := vm.New(vm.Options{Exit: func(c int) { code = c }})
	defer L.Close()
	run(t, L, "os.exit(7)")
	if code != 7 {
		t.Errorf("exit code %d", code)
	}
	run(t, L, "os.exit(false)")
	if code != 1 {
		t.Errorf("os.exit(false) gave %d", code)
	}
}

func TestSparseIndexDoesNotAllocateGigabytes(t *testing.T) {
	L := vm.New(vm.Options{})
	defer L.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if _, err := run(t, L, "local t = {} t[6e7] = true t[2^40] = 1 return t[6e7]"); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if grew := int64(after.TotalAlloc - before.TotalAlloc); grew > 64<<20 {
		t.Errorf("t[6e7] = true allocated %d MiB", grew>>20)
	}
}

func TestLargeConcatAndUnpack(t *testing.T) {
	L := vm.New(vm.Options{})
	defer L.Close()
	got, err := run(t, L, `
local t = {}
for i = 1, 100000 do t[i] = "x" end
local s = table.concat(t)
local n = select('#', unpack(t, 1, 5000))
return #s .. " " .. n`)
	if err != nil || got != "100000 5000" {
		t.Errorf("got %q, %v", got, err)
	}
}

func TestSetmetatableOnlyOnTables(t *testing.T) {
	L := vm.New(vm.Options{})
	defer L.Close()
	if _, err := run(t, L, `setmetatable("s", {})`); err == nil {
		t.Error("setmetatable on a string must fail (it would change every string)")
	}
	if _, err := run(t, L, `local t = setmetatable({}, {__metatable = "locked"}) setmetatable(t, {})`); err == nil ||
		!strings.Contains(err.Error(), "protected metatable") {
		t.Errorf("protected metatable: %v", err)
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		src        string
		incomplete bool
		msg        string
	}{
		{"function f()", true, "x.lua: "},
		{"x = [[abc", true, "unterminated"},
		{"t = {1,2", true, "at end of input"},
		{"x = )", false, "x.lua:1: syntax error near ')'"},
		{"#!/usr/bin/env luagent\nx = = 1", false, "x.lua:2:"},
		{"goto nowhere", false, "nowhere"},
	}
	for _, tt := range tests {
		_, err := vm.Compile([]byte(tt.src), "x.lua")
		if err == nil {
			t.Errorf("%q compiled", tt.src)
			continue
		}
		if vm.Incomplete(err) != tt.incomplete {
			t.Errorf("%q: Incomplete = %v", tt.src, !tt.incomplete)
		}
		if !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%q: %q lacks %q", tt.src, err.Error(), tt.msg)
		}
		if errs.KindOf(err) != errs.Syntax {
			t.Errorf("%q: kind %v", tt.src, errs.KindOf(err))
		}
	}
	if p, err := vm.Compile([]byte("#!shebang\nreturn 1"), "s.lua"); err != nil || p == nil {
		t.Errorf("shebang line: %v", err)
	}
}

func TestErrorLevels(t *testing.T) {
	L := vm.New(vm.Options{})
	defer L.Close()
	_, err := run(t, L, `
local function lib(x) if not x then error("x is required", 2) end end
local function user()
  lib(nil)  -- line 4: error level 2 blames this line
end
user()`)
	if err == nil || !strings.Contains(err.Error(), ":4: x is required") {
		t.Errorf("error level 2: %v", err)
	}
}

func TestSearchPath(t *testing.T) {
	got := vm.SearchPath("/s", "/h", "/x/?.lua;;/y/?.lua")
	want := []string{"/s/?.lua", "/s/?/init.lua", "/h/lua/?.lua", "/h/lua/?/init.lua", "/x/?.lua", "/y/?.lua"}
	if strings.Join(got, ";") != strings.Join(want, ";") {
		t.Errorf("SearchPath = %v\nwant %v", got, want)
	}
}
