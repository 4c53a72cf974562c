// Package luatest runs Lua test files as Go subtests. A test file registers
// cases with test(name, fn); each case runs as a task (so it may wait) in a
// fresh host, under a time limit, and becomes a subtest named after it.
//
//	-- stdlib/inspect_test.lua
//	test("nested tables print inline", function()
//	  expect.eq(inspect({1, {a = 1}}), "{ 1, { a = 1 } }")
//	end)
//
// Assertions live in the global expect table: eq (deep), ne, truthy, falsy,
// match, error (fn must raise; the error is returned) and fail.
package luatest

import (
	"context"
	_ "embed"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/luagent/luagent/luabind/host"
	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/runtime/testkit"
	lua "github.com/yuin/gopher-lua"
)

//go:embed expect.lua
var expectSrc []byte

// Timeout bounds each case.
var Timeout = 20 * time.Second

// Options adjust the host a file runs in.
type Options struct {
	// Setup runs after the host is built, before the file loads: add
	// modules or globals here.
	Setup func(t *testing.T, h *host.Host)
	// Config is the host configuration; Home defaults to a temp folder and
	// Clean to true.
	Config host.Config
}

// RunDir runs every *_test.lua file in dir (not recursive) as a subtest.
func RunDir(t *testing.T, dir string, o Options) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*_test.lua"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no *_test.lua files in %s", dir)
	}
	sort.Strings(files)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) { RunFile(t, f, o) })
	}
}

type testCase struct {
	name string
	fn   *lua.LFunction
}

// RunFile loads one test file, then runs each registered case as a subtest.
func RunFile(t *testing.T, path string, o Options) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	h, out := newHost(t, path, o)
	var cases []testCase
	h.L.SetGlobal("test", h.L.NewFunction(func(L *lua.LState) int {
		cases = append(cases, testCase{name: L.CheckString(1), fn: L.CheckFunction(2)})
		return 0
	}))
	fn, err := h.Load(src, path)
	if err != nil {
		t.Fatalf("%v", err)
	}
	ctx := context.Background()
	if task := h.RunTask(ctx, fn, nil, "load"); task.Failure() != nil {
		t.Fatalf("loading %s: %s\n%s\noutput:\n%s", path, task.Failure().Message, task.Failure().Traceback, out)
	}
	if len(cases) == 0 {
		t.Fatalf("%s registers no test cases", path)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out.Reset()
			task := runCase(ctx, h, c)
			if f := task.Failure(); f != nil {
				t.Errorf("%s\n%s", f.Message, f.Traceback)
				if out.Len() > 0 {
					t.Logf("output:\n%s", out)
				}
			}
		})
	}
}

func runCase(ctx context.Context, h *host.Host, c testCase) *sched.Task {
	t := h.Loop.Spawn(c.fn, nil, sched.SpawnOptions{Name: c.name, Timeout: Timeout,
		TimeoutMsg: "test case timed out after " + Timeout.String()})
	t.OnDone(func(*sched.Task) { h.Loop.Stop() })
	h.Loop.Run(ctx, sched.UntilStopped)
	return t
}

func newHost(t *testing.T, path string, o Options) (*host.Host, *testkit.Buffer) {
	cfg := o.Config
	out := &testkit.Buffer{}
	if cfg.Home == "" {
		cfg.Home = t.TempDir()
		cfg.Clean = true
	}
	if cfg.ScriptDir == "" {
		cfg.ScriptDir = filepath.Dir(path)
	}
	if cfg.Stdout == nil {
		cfg.Stdout = out
	}
	if cfg.Stderr == nil {
		cfg.Stderr = out
	}
	if cfg.Exit == nil {
		cfg.Exit = func(code int) { t.Errorf("os.exit(%d) called in a test", code) }
	}
	h := host.New(cfg)
	t.Cleanup(h.Close)
	fn, err := h.Load(expectSrc, "expect.lua")
	if err != nil {
		t.Fatal(err)
	}
	if err := h.L.CallByParam(lua.P{Fn: fn, NRet: 1, Protect: true}); err != nil {
		t.Fatal(err)
	}
	h.L.SetGlobal("expect", h.L.Get(-1))
	h.L.Pop(1)
	h.L.SetGlobal("output", h.L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString(out.String()))
		return 1
	}))
	if o.Setup != nil {
		o.Setup(t, h)
	}
	return h, out
}
