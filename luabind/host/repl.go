package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/luabind/vm"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/tui"
	"github.com/luagent/luagent/runtime/visible"
	"github.com/peterh/liner"
	lua "github.com/yuin/gopher-lua"
)

// Banner is printed when the REPL starts on a terminal.
var Banner = "luagent — Lua 5.1 (gopher-lua). help shows the modules; Ctrl-D exits, Ctrl-C cancels the running line, Tab completes."

const (
	prompt     = "> "
	contPrompt = ">> "
)

// REPL runs the interactive loop until end of input and returns the exit
// code. Lines that are expressions print their values (tables through
// inspect); an incomplete chunk continues on the next line; Ctrl-C cancels
// the running line. With a terminal on both ends it uses line editing,
// history in Home/history and Tab completion; otherwise it reads plain
// lines and prints no prompts, so a pipe can drive it.
func (h *Host) REPL(ctx context.Context, in io.Reader, interactive bool) int {
	var rd tui.LineReader
	if interactive {
		rd = h.newLineEditor("history", h.completeFromLoop)
		fmt.Fprintln(h.cfg.Stdout, Banner)
	} else {
		rd = tui.NewPlainReader(in)
	}
	defer rd.Close()

	var current atomic.Pointer[sched.Task]
	var op atomic.Pointer[context.CancelFunc] // a /command's wait (a login)
	sigs := make(chan os.Signal, 1)
	defer subscribeSignals(sigs, os.Interrupt)()
	go func() {
		for range sigs {
			if t := current.Load(); t != nil {
				t.Interrupt(errs.New(errs.Cancelled, "", "interrupted"))
			} else if c := op.Load(); c != nil {
				(*c)()
			} else if !interactive {
				h.Loop.Cancel(errs.New(errs.Cancelled, "", "interrupted"))
				os.Exit(ExitInterrupted)
			}
		}
	}()

	go func() {
		// At the end of input the session ends, whatever background tasks
		// are still waiting, as the process would with any REPL.
		defer h.Loop.Post(h.Loop.Stop)
		var buf []string
		for {
			p := prompt
			if len(buf) > 0 {
				p = contPrompt
			}
			line, err := rd.ReadLine(p)
			if errors.Is(err, tui.ErrAborted) {
				buf = nil
				continue
			}
			if err != nil {
				return
			}
			if len(buf) == 0 && strings.HasPrefix(strings.TrimSpace(line), "/") {
				// No Lua chunk starts with '/': a REPL command.
				if !h.replCommand(ctx, strings.TrimSpace(line), interactive, &op) {
					return
				}
				rd.AddHistory(line)
				continue
			}
			buf = append(buf, line)
			chunk := strings.Join(buf, "\n")
			if strings.TrimSpace(chunk) == "" {
				buf = nil
				continue
			}
			done := make(chan bool, 1)
			h.Loop.Post(func() { h.evalLine(chunk, &current, done) })
			if incomplete := <-done; incomplete {
				continue
			}
			rd.AddHistory(chunk)
			buf = nil
		}
	}()
	go func() {
		<-ctx.Done()
		h.Loop.Post(h.Loop.Stop)
	}()
	h.Loop.Run(ctx, sched.UntilStopped)
	return ExitOK
}

// replCommand runs a /command typed at the prompt; false ends the session.
// op holds the cancel of what a command waits for, for Ctrl-C.
func (h *Host) replCommand(ctx context.Context, line string, tty bool, op *atomic.Pointer[context.CancelFunc]) bool {
	name, _, _ := strings.Cut(line, " ")
	switch name {
	case "/exit", "/quit":
		return false
	case "/mcp", "/mcps":
		h.replMCP(ctx, tty, op)
	case "/help", "/?":
		done := make(chan bool, 1)
		h.Loop.Post(func() { h.evalLine("help()", new(atomic.Pointer[sched.Task]), done) })
		<-done
	default:
		fmt.Fprintf(h.cfg.Stderr, "unknown command %s (/help lists them; Lua lines never start with /)\n", name)
	}
	return true
}

// evalLine compiles and starts one chunk on the loop goroutine. It sends on
// done when the chunk has finished (or failed to compile): true when the
// chunk is incomplete and more input is needed.
func (h *Host) evalLine(chunk string, current *atomic.Pointer[sched.Task], done chan<- bool) {
	src := chunk
	if strings.HasPrefix(src, "=") {
		src = "return " + src[1:]
	}
	fn, err := h.compileLine(src)
	if err != nil {
		if vm.Incomplete(err) {
			done <- true
			return
		}
		fmt.Fprintf(h.cfg.Stderr, "%v\n", err)
		done <- false
		return
	}
	t := h.Loop.Spawn(fn, nil, sched.SpawnOptions{Name: "repl"})
	current.Store(t)
	t.OnDone(func(t *sched.Task) {
		current.Store(nil)
		if f := t.Failure(); f != nil {
			h.printLineFailure(f)
		} else if len(t.Results()) > 0 {
			fmt.Fprintln(h.cfg.Stdout, h.renderResults(t.Results()))
		}
		done <- false
	})
}

// compileLine tries the chunk as an expression first (so `1+1` prints 2,
// as the Lua 5.3 REPL does), then as statements.
func (h *Host) compileLine(src string) (*lua.LFunction, error) {
	if fn, err := h.Load([]byte("return "+src), "stdin"); err == nil {
		return fn, nil
	}
	return h.Load([]byte(src), "stdin")
}

func (h *Host) printLineFailure(f *sched.Failure) {
	fmt.Fprintln(h.cfg.Stderr, visible.Text(f.Message)) // it may quote a server
	// A traceback helps only when the error came from deeper than the line.
	if f.Kind != errs.Cancelled && f.Kind != errs.Timeout && strings.Count(f.Traceback, "\n") > 1 {
		fmt.Fprintln(h.cfg.Stderr, f.Traceback)
	}
}

// renderResults prints values tab-separated: tables through inspect, the
// rest through tostring.
func (h *Host) renderResults(vals []lua.LValue) string {
	parts := make([]string, len(vals))
	inspect := h.L.GetGlobal("inspect")
	for i, v := range vals {
		v = loadLazy(h.L, v)
		if tb, ok := v.(*lua.LTable); ok && h.L.GetMetaField(tb, "__tostring") == lua.LNil && inspect != lua.LNil {
			if err := h.L.CallByParam(lua.P{Fn: inspect, NRet: 1, Protect: true}, tb); err == nil {
				parts[i] = h.L.Get(-1).String()
				h.L.Pop(1)
				continue
			}
		}
		parts[i] = vm.ToString(h.L, v)
	}
	return strings.Join(parts, "\t")
}

// newLineEditor is the REPL's terminal reader (tui.NewLineEditor): history
// in Home/history (its file's name there), Tab completing through
// complete, and the host's output made prompt-aware.
func (h *Host) newLineEditor(history string, complete liner.WordCompleter) tui.LineReader {
	return tui.NewLineEditor(filepath.Join(h.cfg.Home, history), complete, h.out, h.errw)
}

// completeFromLoop asks the loop goroutine (the only one that may read the
// state) for completions, giving up quickly if a task keeps it busy.
func (h *Host) completeFromLoop(line string, pos int) (string, []string, string) {
	type result struct {
		head  string
		cands []string
	}
	ch := make(chan result, 1)
	h.Loop.Post(func() {
		head, cands := Complete(h.L, line[:pos])
		ch <- result{head, cands}
	})
	select {
	case r := <-ch:
		return r.head, r.cands, line[pos:]
	case <-time.After(200 * time.Millisecond):
		return line[:pos], nil, line[pos:]
	}
}
