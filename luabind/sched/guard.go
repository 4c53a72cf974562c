package sched

import (
	"runtime"
	"strings"

	"github.com/luagent/luagent/luabind/vm"
)

// The await guard. gopher-lua implements pcall, metamethods, for-in
// iterators, sort and gsub callbacks and require by re-entering the VM from
// Go (a nested mainLoop under (*LState).callR). A yield cannot unwind that
// Go frame: it either ends the coroutine early with the yielded values as
// its "result" or panics the process (LUA.md §1.10). So before yielding we
// read our own Go call stack: in a safe context there is exactly one VM
// loop between the binding and the coroutine's threadRun. This depends on
// gopher-lua's internal function names; the version is pinned in go.mod and
// guard_test.go checks every context, so an upgrade that renames them fails
// the tests rather than the users.

type frameKind uint8

const (
	fkOther frameKind = iota
	fkMainLoop
	fkThreadRun
	fkCallR
	fkCall
	fkPcall
	fkXpcall
	fkSort
	fkGsub
	fkRequire
	fkToString
	fkGoCallback
)

const luaPkg = "github.com/yuin/gopher-lua."

func classify(fn string) frameKind {
	if fn == vm.GsubCallbackFrame { // string.gsub is luabind/vm's
		return fkGsub
	}
	name, ok := strings.CutPrefix(fn, luaPkg)
	if !ok {
		return fkOther
	}
	switch name {
	case "mainLoop", "mainLoopWithContext":
		return fkMainLoop
	case "threadRun":
		return fkThreadRun
	case "(*LState).callR":
		return fkCallR
	case "(*LState).Call":
		return fkCall
	case "basePCall":
		return fkPcall
	case "baseXPCall":
		return fkXpcall
	case "lValueArraySorter.Less":
		return fkSort
	case "loRequire":
		return fkRequire
	case "(*LState).ToStringMeta":
		return fkToString
	case "(*LState).PCall", "(*LState).CallByParam":
		return fkGoCallback
	}
	return fkOther
}

func (lp *Loop) kindOf(pc uintptr) frameKind {
	if k, ok := lp.guards[pc]; ok {
		return k
	}
	fn := runtime.FuncForPC(pc - 1)
	k := fkOther
	if fn != nil {
		k = classify(fn.Name())
	}
	lp.guards[pc] = k
	return k
}

// unsafeContext returns "" when the calling binding may yield, or a phrase
// naming the construct that forbids it ("pcall", "a metamethod", ...).
// skip counts the frames of the binding's own Go callers to leave out.
func (lp *Loop) unsafeContext() string {
	n := runtime.Callers(2, lp.pcs)
	pcs := lp.pcs[:n]
	loops := 0
	reason := ""
	for i := 0; i < len(pcs); i++ {
		switch lp.kindOf(pcs[i]) {
		case fkMainLoop:
			loops++
		case fkThreadRun:
			if loops == 1 {
				return ""
			}
			if reason == "" {
				reason = "a callback the VM runs from Go"
			}
			return reason
		case fkCallR:
			if reason != "" || i+1 >= len(pcs) {
				continue
			}
			reason = lp.nestedReason(pcs[i+1:])
		}
	}
	// No threadRun within reach: the stack is deeper than we look, which only
	// happens when contexts are nested many times over.
	if reason == "" {
		reason = "a deeply nested callback"
	}
	return reason
}

// nestedReason names the construct that re-entered the VM, from the frames
// just outside a callR.
func (lp *Loop) nestedReason(outer []uintptr) string {
	if lp.kindOf(outer[0]) != fkCall {
		// The for-in opcode calls callR directly.
		return "a for-in iterator function"
	}
	viaGo := false
	for _, pc := range outer[1:] {
		switch lp.kindOf(pc) {
		case fkPcall:
			return "pcall"
		case fkXpcall:
			return "xpcall"
		case fkSort:
			return "a table.sort comparator"
		case fkGsub:
			return "a string.gsub callback"
		case fkRequire:
			return "a module body run by require"
		case fkToString:
			return "a __tostring metamethod"
		case fkGoCallback:
			viaGo = true
		case fkMainLoop, fkCallR:
			if viaGo {
				return "a callback called from Go"
			}
			return "a metamethod"
		}
	}
	if viaGo {
		return "a callback called from Go"
	}
	return "a metamethod"
}
