package sched_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/luabind/vm"
	"github.com/luagent/luagent/runtime/errs"
	lua "github.com/yuin/gopher-lua"
)

// A task spawned with its own Context runs under exactly that context: the
// task's end cancels it through Cancel, and cancelling it stops the task.
func TestSpawnOwnContext(t *testing.T) {
	L := vm.New(vm.Options{})
	defer L.Close()
	lp := sched.New(L, sched.Options{})
	L.SetGlobal("sleep", lp.Async("sleep", func(L *lua.LState) sched.Start {
		return func(ctx context.Context, done func(sched.Completion)) {
			go func() { <-ctx.Done(); done(sched.Fail(context.Cause(ctx))) }()
		}
	}))

	// Finishing ends the context.
	ctx, cancel := context.WithCancelCause(context.Background())
	fn, _ := L.LoadString(`return "done"`)
	task := lp.Spawn(fn, nil, sched.SpawnOptions{Context: ctx, Cancel: cancel})
	if task.Context() != ctx {
		t.Fatal("the task's context is not the one given")
	}
	lp.Run(context.Background(), sched.UntilIdle)
	if task.Failure() != nil || ctx.Err() == nil {
		t.Fatalf("after the task finished: failure %v, context %v", task.Failure(), ctx.Err())
	}

	// Cancelling the context stops a waiting task with its cause.
	ctx2, cancel2 := context.WithCancelCause(context.Background())
	fn2, _ := L.LoadString(`sleep() return "woke"`)
	task2 := lp.Spawn(fn2, nil, sched.SpawnOptions{Context: ctx2, Cancel: cancel2})
	cause := errs.New(errs.Cancelled, "", "the client cancelled the request")
	time.AfterFunc(20*time.Millisecond, func() { cancel2(cause) }) // once it waits
	lp.Run(context.Background(), sched.UntilIdle)
	if f := task2.Failure(); f == nil || f.Kind != errs.Cancelled {
		t.Fatalf("a task whose context was cancelled: %+v", f)
	}
	if !errors.Is(context.Cause(ctx2), cause) {
		t.Errorf("cause %v", context.Cause(ctx2))
	}
}
