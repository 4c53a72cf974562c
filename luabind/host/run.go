package host

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"syscall"

	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/visible"
	lua "github.com/yuin/gopher-lua"
)

// Exit codes.
const (
	ExitOK          = 0
	ExitError       = 1
	ExitUsage       = 2
	ExitInterrupted = 130 // 128 + SIGINT
	ExitTerminated  = 143 // 128 + SIGTERM
)

// Script is a chunk to run as a program.
type Script struct {
	Src  []byte
	Name string   // chunk name: the file path, "stdin", "-e"
	Args []string // arg[1..n] and the chunk's ...
	Arg0 string   // arg[0]
}

// Run runs the script as the main task, then waits for the tasks it
// spawned, and returns the process exit code. A failure of the main task
// ends the run at once; SIGINT or SIGTERM cancels every task (stopping even
// a loop that never waits) and returns 130.
func (h *Host) Run(ctx context.Context, s Script) int {
	fn, err := h.Load(s.Src, s.Name)
	if err != nil {
		fmt.Fprintf(h.cfg.Stderr, "luagent: %v\n", err)
		return ExitError
	}
	h.setArg(s)

	in, stopSignals := h.catchInterrupts(nil)
	defer stopSignals()

	args := make([]lua.LValue, len(s.Args))
	for i, a := range s.Args {
		args[i] = lua.LString(a)
	}
	main := h.Loop.Spawn(fn, args, sched.SpawnOptions{Name: "main"})
	code := ExitOK
	main.OnDone(func(t *sched.Task) {
		if f := t.Failure(); f != nil {
			if in.came.Load() {
				fmt.Fprintf(h.cfg.Stderr, "luagent: %s\n", visible.Text(f.Message))
				code = in.code
			} else {
				h.printFailure(f)
				code = ExitError
			}
			h.Loop.Stop()
		}
	})
	if err := h.Loop.Run(ctx, sched.UntilIdle); err != nil && code == ExitOK {
		code = ExitError
	}
	h.Loop.FlushUnobserved()
	if code == ExitOK && in.came.Load() {
		code = in.code
	}
	if code == ExitOK && h.unobserved > 0 {
		code = ExitError
	}
	return code
}

// RunGo runs fn on a goroutine of its own while the loop runs (fn calls
// into Lua through the loop: luagent ask builds and runs its agent so),
// and returns fn's exit code. SIGINT and SIGTERM cancel fn's context and
// the loop's tasks, as they interrupt a script (Run): RunGo then says so
// ("luagent: interrupted by SIGINT"; fn need not) and the code is
// ExitInterrupted or ExitTerminated.
func (h *Host) RunGo(ctx context.Context, fn func(ctx context.Context) int) int {
	fctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	in, stopSignals := h.catchInterrupts(cancel)
	defer stopSignals()
	code := ExitOK
	go func() {
		defer h.Loop.Post(h.Loop.Stop)
		code = fn(fctx)
	}()
	h.Loop.Run(ctx, sched.UntilStopped)
	h.Loop.FlushUnobserved()
	if in.came.Load() {
		fmt.Fprintf(h.cfg.Stderr, "luagent: %s\n", context.Cause(fctx).Error())
		return in.code
	}
	return code
}

// interrupt is what catchInterrupts saw: whether SIGINT or SIGTERM came
// (came), and the exit code that says which (code, set before came).
type interrupt struct {
	came atomic.Bool
	code int
}

// catchInterrupts makes SIGINT and SIGTERM cancel every task of the loop
// (stopping even a loop that never waits), after then (nil: nothing) has
// had the cause, until stop.
func (h *Host) catchInterrupts(then func(error)) (in *interrupt, stop func()) {
	in = &interrupt{code: ExitInterrupted}
	stop = h.onSignals(func(sig os.Signal) {
		if sig == syscall.SIGTERM {
			in.code = ExitTerminated
		}
		in.came.Store(true)
		err := errs.New(errs.Cancelled, "", "interrupted by "+signalName(sig))
		if then != nil {
			then(err)
		}
		h.Loop.Cancel(err)
	})
	return in, stop
}

// Executable is the running luagent binary's absolute path (arg[-1]), so
// a script can start luagent servers without luagent on PATH; os.Args[0]
// when the system cannot say.
func Executable() string {
	if p, err := os.Executable(); err == nil {
		return p
	}
	return os.Args[0]
}

func (h *Host) setArg(s Script) {
	arg := h.L.CreateTable(len(s.Args), 2)
	arg.RawSetInt(0, lua.LString(s.Arg0))
	arg.RawSetInt(-1, lua.LString(Executable()))
	for i, a := range s.Args {
		arg.RawSetInt(i+1, lua.LString(a))
	}
	h.L.SetGlobal("arg", arg)
}

// onSignals calls fn on the first SIGINT or SIGTERM, and exits the process
// at once on the second (a stuck Go call, or an impatient user).
func (h *Host) onSignals(fn func(os.Signal)) (stop func()) {
	ch := make(chan os.Signal, 2)
	unsubscribe := subscribeSignals(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			fn(sig)
		case <-done:
			return
		}
		select {
		case <-ch:
			fmt.Fprintln(h.cfg.Stderr, "luagent: interrupted twice; exiting now")
			os.Exit(ExitInterrupted)
		case <-done:
		}
	}()
	return func() {
		unsubscribe()
		close(done)
	}
}

func signalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return sig.String()
}
