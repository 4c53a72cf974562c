package sched_test

import (
	"context"
	"fmt"
	"time"

	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/luabind/vm"
	lua "github.com/yuin/gopher-lua"
)

// A binding that waits: fetch(name) does its work on a goroutine and the
// calling task resumes with the result, while other tasks keep running.
func ExampleLoop_Async() {
	L := vm.New(vm.Options{})
	defer L.Close()
	lp := sched.New(L, sched.Options{})

	L.SetGlobal("fetch", lp.Async("fetch", func(L *lua.LState) sched.Start {
		name := L.CheckString(1) // read arguments on the loop goroutine
		return func(ctx context.Context, done func(sched.Completion)) {
			go func() {
				select {
				case <-time.After(10 * time.Millisecond): // pretend I/O
					done(sched.Values(lua.LString("hello, " + name)))
				case <-ctx.Done(): // the task was cancelled
				}
			}()
		}
	}))

	fn, _ := L.LoadString(`return fetch("lua")`)
	t := lp.Spawn(fn, nil, sched.SpawnOptions{})
	lp.Run(context.Background(), sched.UntilIdle)
	fmt.Println(t.Results()[0])
	// Output: hello, lua
}
