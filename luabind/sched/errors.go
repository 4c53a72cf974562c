package sched

import (
	"errors"
	"fmt"
	"strings"

	"github.com/luagent/luagent/luabind/preload"
	"github.com/luagent/luagent/luabind/value"
	"github.com/luagent/luagent/luabind/vm"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/jsonrpc"
	lua "github.com/yuin/gopher-lua"
)

// Failure is why a task failed: its kind, a one-line message, the raised
// Lua value and the Lua traceback captured where it was raised. Value
// belongs to the loop's state; read it on the loop goroutine only.
type Failure struct {
	Kind      errs.Kind
	Message   string
	Value     lua.LValue
	Traceback string
}

func (f *Failure) Error() string { return f.Message }

// Err returns the failure as an *errs.Error, for Go callers.
func (f *Failure) Err() *errs.Error { return &errs.Error{Kind: f.Kind, Msg: f.Message} }

// errorMeta is the metatable of luagent error values: tables with fields
// kind, message (and optionally code, data) that print as their message. It
// is shared by all states and never written after init (the __metatable
// lock keeps scripts from changing it).
var errorMeta = newErrorMeta("luagent.error")

func newErrorMeta(lock string) *lua.LTable {
	// Built without a state: a throwaway LState cost a millisecond of every
	// process start.
	mt := &lua.LTable{Metatable: lua.LNil}
	mt.RawSetString("__tostring", &lua.LFunction{IsG: true, Env: &lua.LTable{Metatable: lua.LNil},
		GFunction: func(L *lua.LState) int {
			tb := L.CheckTable(1)
			L.Push(tb.RawGetString("message"))
			return 1
		}})
	mt.RawSetString("__metatable", lua.LString(lock))
	return mt
}

// ErrorValue returns a Lua error table {kind=, message=} that prints as its
// message. Raise it with L.Error(v, 0).
func ErrorValue(L *lua.LState, kind errs.Kind, msg string) *lua.LTable {
	tb := L.CreateTable(0, 2)
	tb.RawSetString("kind", lua.LString(kind.String()))
	tb.RawSetString("message", lua.LString(msg))
	tb.Metatable = errorMeta
	return tb
}

// ErrorValueOf converts a Go error to a Lua error table, keeping its kind
// (Runtime when it has none). A JSON-RPC error from a server adds its code
// and data fields.
func ErrorValueOf(L *lua.LState, err error) *lua.LTable {
	k := errs.KindOf(err)
	if k == errs.Unknown {
		k = errs.Runtime
	}
	if f, ok := err.(*Failure); ok {
		if tb, ok := f.Value.(*lua.LTable); ok {
			return tb
		}
		return ErrorValue(L, f.Kind, f.Message)
	}
	tb := ErrorValue(L, k, err.Error())
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		tb.RawSetString("code", lua.LNumber(je.Code))
		if len(je.Data) > 0 {
			if v, derr := value.Decode(L, je.Data); derr == nil {
				tb.RawSetString("data", v)
			}
		}
	}
	return tb
}

// raiseFatal raises an error that pcall and xpcall pass through instead of
// catching: misuse of waiting (inside pcall, a metamethod, ...) is a bug in
// the script, and a pcall around it must not turn it into a silent false.
// The error stays pending on the loop until the running task ends, so even
// an xpcall handler that rewrites it cannot hide it.
func (lp *Loop) raiseFatal(L *lua.LState, msg string) {
	tb := ErrorValue(L, errs.Invalid, userWhere(L)+msg)
	lp.fatal = tb
	L.Error(tb, 0)
}

// internalSource names the chunks of the scheduler itself; tracebacks leave
// their frames out.
const internalSource = preload.SchedSource

// Traceback renders L's Lua call stack from level on, Lua 5.1 style, without
// the scheduler's own frames and without any Go stack.
func Traceback(L *lua.LState, level int) string {
	var b strings.Builder
	b.WriteString("stack traceback:")
	var lines []string
	for i := level; ; i++ {
		dbg, ok := L.GetStack(i)
		if !ok {
			break
		}
		fn, err := L.GetInfo("Slnf", dbg, lua.LNil)
		if err != nil {
			break
		}
		if dbg.Source == internalSource {
			continue
		}
		lf, _ := fn.(*lua.LFunction)
		switch {
		case lf != nil && lf.IsG:
			if calledFromInternal(L, i) {
				// A binding's Go half called by its Lua wrapper: the user's
				// frame below already shows the call.
				continue
			}
			name := dbg.Name
			if name == "" || name == "?" || strings.HasPrefix(name, "(") {
				lines = append(lines, "\t[Go]: ?")
			} else {
				lines = append(lines, fmt.Sprintf("\t[Go]: in function '%s'", name))
			}
		case lf != nil && lf.Proto != nil:
			where := fmt.Sprintf("%s:%d:", dbg.Source, dbg.CurrentLine)
			lines = append(lines, "\t"+where+" "+frameName(L, i, dbg, lf))
		}
	}
	if len(lines) > 22 {
		lines = append(append(lines[:10:10], "\t..."), lines[len(lines)-11:]...)
	}
	for _, l := range lines {
		b.WriteString("\n")
		b.WriteString(l)
	}
	return b.String()
}

// frameName names a Lua frame. A function called by the scheduler itself
// (the task's body) has no useful call-site name, so it is "main chunk" for
// a chunk and "function <file:line>" otherwise.
func frameName(L *lua.LState, level int, dbg *lua.Debug, lf *lua.LFunction) string {
	_, hasParent := L.GetStack(level + 1)
	calledByScheduler := !hasParent || calledFromInternal(L, level)
	if lf.Proto.LineDefined == 0 {
		return "in main chunk"
	}
	name := dbg.Name
	if calledByScheduler || name == "" || name == "?" || strings.HasPrefix(name, "<") {
		return fmt.Sprintf("in function <%s:%d>", lf.Proto.SourceName, lf.Proto.LineDefined)
	}
	return fmt.Sprintf("in function '%s'", name)
}

// userWhere is "file:line: " of the innermost Lua frame that is the user's:
// not a Go function and not the scheduler's own chunks.
func userWhere(L *lua.LState) string { return Where(L) }

// Where is "file:line: " of the innermost Lua frame that is the user's (not a
// Go function, not the scheduler's own chunks), or "" when there is none:
// the position to put in front of an error a binding raises.
func Where(L *lua.LState) string {
	return vm.FrameWhere(L, func(source string) bool { return source == internalSource })
}

func calledFromInternal(L *lua.LState, level int) bool {
	parent, ok := L.GetStack(level + 1)
	if !ok {
		return false
	}
	_, err := L.GetInfo("S", parent, lua.LNil)
	return err == nil && parent.Source == internalSource
}
