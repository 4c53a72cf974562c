package host_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/luagent/luagent/luabind/host"
	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/luabind/vm"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/testkit"
	lua "github.com/yuin/gopher-lua"
)

func newHost(t *testing.T, cfg host.Config) (*host.Host, *testkit.Buffer) {
	t.Helper()
	out := &testkit.Buffer{}
	cfg.Home = t.TempDir()
	cfg.Clean = true
	cfg.Stdout, cfg.Stderr = out, out
	h := host.New(cfg)
	t.Cleanup(h.Close)
	return h, out
}

func TestSandboxTimeLimitStopsARunawayLoop(t *testing.T) {
	h, _ := newHost(t, host.Config{Profile: vm.Sandbox, TimeLimit: 200 * time.Millisecond})
	fn, err := h.Load([]byte("while true do end"), "untrusted")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	task := h.RunTask(context.Background(), fn, nil, "untrusted")
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %v", d)
	}
	f := task.Failure()
	if f == nil || f.Kind != errs.Timeout || !strings.Contains(f.Message, "time limit of 200ms exceeded") {
		t.Fatalf("failure %+v", f)
	}
}

func TestSandboxHostHasNoIO(t *testing.T) {
	h, out := newHost(t, host.Config{Profile: vm.Sandbox, TimeLimit: 5 * time.Second})
	fn, _ := h.Load([]byte("print(type(io), type(os.execute), type(json), type(task.spawn))"), "s")
	if f := h.RunTask(context.Background(), fn, nil, "s").Failure(); f != nil {
		t.Fatal(f)
	}
	if out.String() != "nil\tnil\ttable\tfunction\n" {
		t.Errorf("got %q", out.String())
	}
}

func TestUnobservedFailureIsReportedOnce(t *testing.T) {
	h, out := newHost(t, host.Config{})
	code := h.Run(context.Background(), host.Script{Src: []byte("task.spawn(function() error('lonely') end) task.sleep(0.02)"), Name: "u.lua"})
	if code != host.ExitError {
		t.Errorf("exit %d", code)
	}
	if n := strings.Count(out.String(), "u.lua:1: lonely"); n != 1 {
		t.Errorf("reported %d times:\n%s", n, out.String())
	}
}

func TestAwaitedFailureIsNotReportedAsUnobserved(t *testing.T) {
	h, out := newHost(t, host.Config{})
	code := h.Run(context.Background(), host.Script{Src: []byte(`
local h = task.spawn(function() error('handled') end)
print(task.pcall(function() return h:await() end))`), Name: "a.lua"})
	if code != host.ExitOK || strings.Contains(out.String(), "nobody awaited") {
		t.Errorf("exit %d, output:\n%s", code, out.String())
	}
}

func TestGoPanicInABindingIsAnErrorNotACrash(t *testing.T) {
	h, _ := newHost(t, host.Config{})
	h.L.SetGlobal("buggy", h.L.NewFunction(func(L *lua.LState) int {
		var m map[string]int
		m["x"] = 1 // a bug: nil map write
		return 0
	}))
	fn, _ := h.Load([]byte("buggy()"), "b.lua")
	f := h.RunTask(context.Background(), fn, nil, "b").Failure()
	if f == nil || !strings.Contains(f.Message, "assignment to entry in nil map") {
		t.Fatalf("failure %+v", f)
	}
	// The state still works.
	fn, _ = h.Load([]byte("return 1 + 1"), "after")
	task := h.RunTask(context.Background(), fn, nil, "after")
	if task.Failure() != nil || task.Results()[0] != lua.LNumber(2) {
		t.Errorf("state unusable after a binding panic: %+v", task.Failure())
	}
}

func TestPostFromManyGoroutines(t *testing.T) {
	h, _ := newHost(t, host.Config{})
	const n = 1000
	count := 0
	release := h.Loop.Hold()
	for i := 0; i < n; i++ {
		go h.Loop.Post(func() {
			count++
			if count == n {
				release()
			}
		})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	h.Loop.Run(ctx, sched.UntilIdle)
	if count != n {
		t.Errorf("ran %d of %d posted functions", count, n)
	}
}

func TestCompleteCandidates(t *testing.T) {
	h, _ := newHost(t, host.Config{})
	h.L.DoString(`conn = setmetatable({}, {__index = {tools = function() end, title = "x", tail = function() end}})
myvar = 1`)
	tests := []struct {
		text, head string
		want       []string
	}{
		{"string.up", "", []string{"string.upper"}},
		{"x = string.fo", "x = ", []string{"string.format"}},
		{"conn:t", "", []string{"conn:tail", "conn:tools"}},
		{"conn.ti", "", []string{"conn.title"}},
		{"myv", "", []string{"myvar"}},
		{"whi", "", []string{"while"}},
		{"nosuch.x", "", nil},
		{"print(", "print(", nil},
	}
	for _, tt := range tests {
		head, got := host.Complete(h.L, tt.text)
		if tt.text == "print(" {
			if head != "print(" || len(got) == 0 {
				t.Errorf("%q: after ( every global is a candidate, got %d", tt.text, len(got))
			}
			continue
		}
		if head != tt.head || strings.Join(got, ",") != strings.Join(tt.want, ",") {
			t.Errorf("Complete(%q) = %q %v, want %q %v", tt.text, head, got, tt.head, tt.want)
		}
	}
}

// A module that loads on first use (mcp, inspect) completes before it is
// touched.
func TestCompleteLoadsLazyModules(t *testing.T) {
	h, _ := newHost(t, host.Config{})
	for _, c := range []struct{ text, want string }{
		{"mcp.con", "mcp.connect"},
		{"mcp.se", "mcp.server"},
		{"x = help.ov", "help.overview"},
	} {
		_, got := host.Complete(h.L, c.text)
		if strings.Join(got, ",") != c.want {
			t.Errorf("Complete(%q) = %v, want [%s]", c.text, got, c.want)
		}
	}
}

func FuzzComplete(f *testing.F) {
	for _, s := range []string{"string.up", "a.b:c", "::", "..", ":", "x = y.", "\xff.", "_G._G._G.", ""} {
		f.Add(s)
	}
	h := host.New(host.Config{Home: f.TempDir(), Clean: true})
	f.Fuzz(func(t *testing.T, s string) {
		host.Complete(h.L, s) // must not panic
	})
}
