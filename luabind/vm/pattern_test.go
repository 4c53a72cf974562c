package vm

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// pollCounter is a context that counts how often its Done channel is
// asked for: the matcher polls once per patCheckEvery steps, so the count
// measures its work.
type pollCounter struct {
	context.Context
	polls atomic.Int64
}

func (c *pollCounter) Done() <-chan struct{} {
	c.polls.Add(1)
	return c.Context.Done()
}

// inTime runs fn on its own goroutine (which then owns the state fn uses)
// and fails the test if it does not return within d. A stuck fn is left
// running: there is no way to stop it, which is the bug these tests catch.
func inTime(t *testing.T, d time.Duration, what string, fn func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		t.Fatalf("%s: still running after %v", what, d)
		return nil
	}
}

// The exponential patterns of issue 13: reference Lua takes as long, but
// these must stop when the state's context ends. Each code returns a
// builtin (or gmatch's iterator) and its arguments.
var patternBombs = []struct{ name, code string }{
	{"find", `return string.find, s, p`},
	{"match", `return string.match, s, p`},
	{"gmatch", `return string.gmatch(s, p)`},
	{"gsub", `return string.gsub, s, p, "x"`},
	{"find anchored", `return string.find, s, "^" .. p`},
	{"gsub with a function", `return string.gsub, s, p, function() end`},
}

const patternBombSetup = `s = ("a"):rep(24) p = ("a*"):rep(24) .. "b"`

// TestPatternInterrupted: a backtracking pattern run under a context that
// is already cancelled, or whose deadline passes while it runs, raises a
// Lua error naming the cause instead of running for hours. The builtin is
// called straight from Go, so no VM instruction (before which gopher-lua
// checks the context itself) comes first.
func TestPatternInterrupted(t *testing.T) {
	cause := errors.New("the client went away")
	for _, b := range patternBombs {
		t.Run(b.name, func(t *testing.T) {
			for _, mode := range []string{"cancelled", "deadline"} {
				L := compatState(t)
				if err := L.DoString(patternBombSetup + "\n" + b.code); err != nil {
					t.Fatal(err)
				}
				fn, args := L.Get(1), []lua.LValue{}
				for i := 2; i <= L.GetTop(); i++ {
					args = append(args, L.Get(i))
				}
				L.SetTop(0)
				var ctx context.Context
				var want string
				if mode == "cancelled" {
					c, cancel := context.WithCancelCause(context.Background())
					cancel(cause)
					ctx, want = c, cause.Error()
				} else {
					c, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
					defer cancel()
					ctx, want = c, "context deadline exceeded"
				}
				L.SetContext(ctx)
				err := inTime(t, 20*time.Second, mode, func() error {
					return L.CallByParam(lua.P{Fn: fn, NRet: lua.MultRet, Protect: true}, args...)
				})
				if err == nil || !strings.Contains(err.Error(), " interrupted: "+want) {
					t.Errorf("%s: %v; want an error saying interrupted: %s", mode, err, want)
				}
			}
		})
	}
}

// TestPatternLinear: where Lua 5.1's matcher is linear, so is this one,
// gsub included (gopher-lua's copied the subject once per match: 150 000
// tabs took 9 s, 4 MiB would take hours). The work is measured by how
// often the matcher polls the context, once per patCheckEvery steps.
func TestPatternLinear(t *testing.T) {
	const n = 4 << 20
	for _, c := range []struct{ name, setup, code string }{
		{"gsub a tab", `s = ("\t"):rep(N)`, `local r, k = s:gsub("\t", " ") assert(k == N and r == (" "):rep(N))`},
		{"gsub %s+", `s = ("a  "):rep(N / 4)`, `local r, k = s:gsub("%s+", " ") assert(k == N / 4 and #r == N / 2)`},
		{"gsub captures", `s = ("k=v "):rep(N / 4)`, `local r, k = s:gsub("(%w+)=(%w+)", "%2=%1") assert(k == N / 4 and r:sub(1, 8) == "v=k v=k ")`},
		{"gsub a table", `s = ("ab"):rep(N / 2)`, `local r, k = s:gsub("a", {a = "A"}) assert(k == N / 2 and r:sub(1, 4) == "AbAb")`},
		{"gmatch", `s = ("word "):rep(N / 5)`, `local k = 0 for w in s:gmatch("%a+") do k = k + 1 end assert(k == #s / 5)`},
		{"find at the end", `s = ("a"):rep(N) .. "x"`, `assert(s:find("x$") == N + 1)`},
		{"match anchored", `s = ("a"):rep(N) .. "x"`, `assert(#s:match("^(a*)x$") == N)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			L := compatState(t)
			L.SetGlobal("N", lua.LNumber(n))
			if err := L.DoString(c.setup); err != nil {
				t.Fatal(err)
			}
			fn, err := L.LoadString(c.code)
			if err != nil {
				t.Fatal(err)
			}
			ctx := &pollCounter{Context: context.Background()}
			L.SetContext(ctx)
			if err := inTime(t, 60*time.Second, c.name, func() error {
				return L.CallByParam(lua.P{Fn: fn, Protect: true})
			}); err != nil {
				t.Fatal(err)
			}
			// gopher-lua polls too, once per VM instruction: the loop of
			// the gmatch case polls about twice per word.
			limit := int64(4*n/patCheckEvery + 64)
			if c.name == "gmatch" {
				limit += 3 * n / 5
			}
			t.Logf("%d polls, limit %d", ctx.polls.Load(), limit)
			if p := ctx.polls.Load(); p > limit {
				t.Errorf("%d polls for %d bytes, want at most %d", p, n, limit)
			}
		})
	}
}

// BenchmarkPattern runs the cases of scripts/bench/patterns.lua (1 MB
// subjects) through the compat builtins; scripts/bench/BENCHMARKS.md compares the
// script under luagent and under lua5.1.
func BenchmarkPattern(b *testing.B) {
	L := compatState(b)
	if err := L.DoString(`
		MB = 1024 * 1024
		words = ("lorem ipsum\tdolor  sit amet,   key=value x=1\n"):rep(MB / 48)
		tabs = ("a\tb\tc\td\t"):rep(MB / 8)
		plain = ("a"):rep(MB) .. "needle"
		padded = "   " .. ("word "):rep(MB / 5) .. "   "`); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct{ name, code string }{
		{"gsub a tab", `tabs:gsub("\t", " ")`},
		{"gsub %s+", `words:gsub("%s+", " ")`},
		{"gsub (%w+)=(%w+)", `words:gsub("(%w+)=(%w+)", "%2=%1")`},
		{"gsub function", `words:gsub("%a+", function(w) return nil end)`},
		{"find literal at end", `plain:find("needle", 1, true)`},
		{"find pattern at end", `plain:find("ne+dle$")`},
		{"match ^%s*(.-)%s*$", `padded:match("^%s*(.-)%s*$")`},
		{"gmatch %a+", `for w in words:gmatch("%a+") do end`},
	} {
		fn, err := L.LoadString(c.code)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(1 << 20)
			for b.Loop() {
				L.Push(fn)
				if err := L.PCall(0, 0, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
