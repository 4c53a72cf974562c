package sched_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/luabind/vm"
	"github.com/luagent/luagent/runtime/errs"
	lua "github.com/yuin/gopher-lua"
)

// The backtracking patterns of issue 13: string.find(("a"):rep(16),
// ("a*"):rep(16) .. "b") ran 40 s inside one builtin, where gopher-lua
// never looks at the task's context. A task's time limit and its
// cancellation (what SIGTERM does) must stop each of them.
var patternBombs = map[string]string{
	"find":   `return string.find(s, p)`,
	"match":  `return string.match(s, p)`,
	"gmatch": `for x in s:gmatch(p) do end`,
	"gsub":   `return (s:gsub(p, "%0"))`,
}

const patternBombSetup = `local s, p = ("a"):rep(16), ("a*"):rep(16) .. "b" `

// runLoop runs lp until idle on its own goroutine, failing the test when
// that takes longer than within.
func runLoop(t *testing.T, lp *sched.Loop, within time.Duration) {
	t.Helper()
	done := make(chan struct{})
	go func() { lp.Run(context.Background(), sched.UntilIdle); close(done) }()
	select {
	case <-done:
	case <-time.After(within):
		t.Fatalf("the loop still runs after %v", within)
	}
}

// bombLoop returns a loop over a new state and the bomb code compiled
// there, after prefix.
func bombLoop(t *testing.T, prefix, code string) (*lua.LState, *sched.Loop, *lua.LFunction) {
	t.Helper()
	L := vm.New(vm.Options{})
	t.Cleanup(L.Close)
	fn, err := L.LoadString(patternBombSetup + prefix + code)
	if err != nil {
		t.Fatal(err)
	}
	return L, sched.New(L, sched.Options{}), fn
}

func TestPatternTaskTimeout(t *testing.T) {
	for name, code := range patternBombs {
		t.Run(name, func(t *testing.T) {
			L, lp, fn := bombLoop(t, "", code)
			bomb := lp.Spawn(fn, nil, sched.SpawnOptions{Name: "bomb", Timeout: 150 * time.Millisecond})
			next, _ := L.LoadString(`return "next"`)
			after := lp.Spawn(next, nil, sched.SpawnOptions{Name: "after"})
			runLoop(t, lp, 20*time.Second)
			f := bomb.Failure()
			if f == nil || f.Kind != errs.Timeout || !strings.Contains(f.Message, "timed out after 150ms") {
				t.Fatalf("the task with a time limit: %+v; want a timeout", f)
			}
			if after.Failure() != nil {
				t.Errorf("the next task failed: %v", after.Failure())
			}
		})
	}
}

// TestPatternTaskInterrupted: Task.Interrupt, which a signal handler
// calls from its own goroutine, stops a task stuck in a pattern.
func TestPatternTaskInterrupted(t *testing.T) {
	for name, code := range patternBombs {
		t.Run(name, func(t *testing.T) {
			L, lp, fn := bombLoop(t, "started() ", code)
			var bomb *sched.Task
			cause := errs.New(errs.Cancelled, "", "interrupted by SIGTERM")
			L.SetGlobal("started", L.NewFunction(func(L *lua.LState) int {
				go bomb.Interrupt(cause) // as from a signal handler
				return 0
			}))
			bomb = lp.Spawn(fn, nil, sched.SpawnOptions{Name: "bomb"})
			runLoop(t, lp, 20*time.Second)
			if f := bomb.Failure(); f == nil || f.Kind != errs.Cancelled || f.Message != "interrupted by SIGTERM" {
				t.Fatalf("the interrupted task: %+v", f)
			}
		})
	}
}
