package sched_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/luabind/vm"
	"github.com/luagent/luagent/runtime/errs"
	lua "github.com/yuin/gopher-lua"
)

// callOf is a Call of src; started (if not nil) is closed when the task
// calls started() from Lua.
func callOf(src string, started chan struct{}, read func(L *lua.LState, rs []lua.LValue) error) sched.Call {
	return sched.Call{
		Name: "probe",
		Func: func(L *lua.LState) (*lua.LFunction, []lua.LValue, error) {
			fn, err := L.LoadString(src)
			if err != nil {
				return nil, nil, err
			}
			mark := L.NewFunction(func(*lua.LState) int {
				if started != nil {
					close(started)
				}
				return 0
			})
			return fn, []lua.LValue{mark}, nil
		},
		Read: read,
	}
}

// Loop.Call's one behaviour, case by case: what each ending returns, and
// that the loop is free afterwards (a cancelled task does not keep it).
func TestCall(t *testing.T) {
	const spin = `local started = ... started() while true do end`
	tests := []struct {
		name string
		// call runs the case; lp's Run is in progress unless noRun.
		call     func(t *testing.T, lp *sched.Loop) error
		noRun    bool
		kind     errs.Kind
		msg      string // the error's text
		contains string // or a part of it
	}{
		{name: "success", kind: errs.Unknown, call: func(t *testing.T, lp *sched.Loop) error {
			var got string
			err := lp.Call(context.Background(), callOf(`return "hi", 2`, nil, func(L *lua.LState, rs []lua.LValue) error {
				got = lua.LVAsString(rs[0]) + lua.LVAsString(rs[1])
				return nil
			}))
			if err == nil && got != "hi2" {
				t.Errorf("Read got %q, want hi2", got)
			}
			return err
		}},
		{name: "inline success", kind: errs.Unknown, call: func(t *testing.T, lp *sched.Loop) error {
			c := callOf(`return 1`, nil, nil)
			c.Inline = true
			return lp.Call(context.Background(), c)
		}},
		{name: "cancel before start", kind: errs.Cancelled, msg: "probe: stop", call: func(t *testing.T, lp *sched.Loop) error {
			ctx, cancel := context.WithCancelCause(context.Background())
			cancel(errs.New(errs.Cancelled, "", "stop"))
			ran := make(chan struct{})
			err := lp.Call(ctx, callOf(spin, ran, nil))
			select {
			case <-ran:
				t.Error("the function ran though ctx had ended")
			default:
			}
			return err
		}},
		{name: "cancel while running", kind: errs.Cancelled, msg: "probe: cancelled", call: func(t *testing.T, lp *sched.Loop) error {
			ctx, cancel := context.WithCancel(context.Background())
			started := make(chan struct{})
			go func() { <-started; cancel() }()
			return lp.Call(ctx, callOf(spin, started, nil))
		}},
		{name: "interrupted with a cause", kind: errs.Cancelled, msg: "probe: interrupted", call: func(t *testing.T, lp *sched.Loop) error {
			ctx, cancel := context.WithCancelCause(context.Background())
			started := make(chan struct{})
			go func() { <-started; cancel(errs.New(errs.Cancelled, "", "interrupted")) }()
			return lp.Call(ctx, callOf(spin, started, nil))
		}},
		{name: "deadline while running", kind: errs.Timeout, msg: "probe: timed out", call: func(t *testing.T, lp *sched.Loop) error {
			ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(time.Millisecond))
			defer cancel()
			return lp.Call(ctx, callOf(spin, nil, nil))
		}},
		{name: "deadline with a plain cause", kind: errs.Timeout, msg: "probe: agent timeout", call: func(t *testing.T, lp *sched.Loop) error {
			ctx, cancel := context.WithTimeoutCause(context.Background(), time.Millisecond, errors.New("agent timeout"))
			defer cancel()
			return lp.Call(ctx, callOf(spin, nil, nil))
		}},
		{name: "call timeout", kind: errs.Timeout, msg: "probe: no answer in 1ms", call: func(t *testing.T, lp *sched.Loop) error {
			c := callOf(spin, nil, nil)
			c.Timeout, c.TimeoutMsg = time.Millisecond, "no answer in 1ms"
			return lp.Call(context.Background(), c)
		}},
		{name: "loop closed before", kind: errs.Closed, msg: "probe: the Lua host has stopped", noRun: true, call: func(t *testing.T, lp *sched.Loop) error {
			lp.Close()
			return lp.Call(context.Background(), callOf(`return 1`, nil, nil))
		}},
		{name: "loop closed while waiting", kind: errs.Closed, msg: "probe: the Lua host has stopped", noRun: true, call: func(t *testing.T, lp *sched.Loop) error {
			// No Run: the call waits until Close.
			go lp.Close()
			return lp.Call(context.Background(), callOf(`return 1`, nil, nil))
		}},
		{name: "lua error", kind: errs.Runtime, contains: "boom", call: func(t *testing.T, lp *sched.Loop) error {
			err := lp.Call(context.Background(), callOf(`error("boom")`, nil, nil))
			var f *sched.Failure
			if !errors.As(err, &f) || f.Traceback == "" {
				t.Errorf("the error does not carry the failure and its traceback: %#v", err)
			}
			return err
		}},
		{name: "lua error with a kind", kind: errs.Auth, msg: "probe: no token", call: func(t *testing.T, lp *sched.Loop) error {
			return lp.Call(context.Background(), callOf(`error({kind = "auth", message = "no token"})`, nil, nil))
		}},
		{name: "func error", kind: errs.Syntax, msg: "bad chunk", call: func(t *testing.T, lp *sched.Loop) error {
			return lp.Call(context.Background(), sched.Call{Name: "probe", Func: func(*lua.LState) (*lua.LFunction, []lua.LValue, error) {
				return nil, nil, errs.New(errs.Syntax, "", "bad chunk")
			}})
		}},
		{name: "read error", kind: errs.Invalid, msg: "want a table", call: func(t *testing.T, lp *sched.Loop) error {
			return lp.Call(context.Background(), callOf(`return 1`, nil, func(*lua.LState, []lua.LValue) error {
				return errs.New(errs.Invalid, "", "want a table")
			}))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			L := vm.New(vm.Options{})
			defer L.Close()
			lp := sched.New(L, sched.Options{})
			ran := make(chan struct{})
			if tt.noRun {
				close(ran)
			} else {
				go func() {
					defer close(ran)
					lp.Run(context.Background(), sched.UntilStopped)
				}()
			}
			err := tt.call(t, lp)
			if k := errs.KindOf(err); k != tt.kind || (tt.kind == errs.Unknown) != (err == nil) {
				t.Fatalf("error %v of kind %v, want kind %v", err, k, tt.kind)
			}
			if err != nil && tt.msg != "" && err.Error() != tt.msg {
				t.Errorf("error %q, want %q", err, tt.msg)
			}
			if err != nil && tt.contains != "" && !strings.Contains(err.Error(), tt.contains) {
				t.Errorf("error %q, want it to contain %q", err, tt.contains)
			}
			if !tt.noRun {
				// The loop is free: a task left spinning would hold it.
				if err := lp.Call(context.Background(), callOf(`return 1`, nil, nil)); err != nil {
					t.Errorf("a call after the case: %v", err)
				}
				lp.Post(lp.Stop)
			}
			<-ran
		})
	}
}
