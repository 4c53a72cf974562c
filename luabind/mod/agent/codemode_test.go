package agent_test

import (
	"encoding/json"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/luagent/luagent/luabind/host"
	"github.com/luagent/luagent/luabind/luatest"
	"github.com/luagent/luagent/runtime/testkit"
	"github.com/luagent/luagent/runtime/trace"
	lua "github.com/yuin/gopher-lua"
)

// events keeps the trace events a test's host emits.
type events struct {
	mu  sync.Mutex
	all []trace.Event
}

func (e *events) Emit(ev trace.Event) {
	e.mu.Lock()
	e.all = append(e.all, ev)
	e.mu.Unlock()
}

// Code mode from Lua (testdata/codemode.lua): Lua-function models over
// server-everything and a Lua server (testdata/codemode_server.lua), each
// snippet run in a fresh sandbox. TRACE() hands the test the trace so far
// (agent tool calls with their spans, the hub's notifications).
func TestCodeMode(t *testing.T) {
	bin := testkit.Build(t, "cmd/luagent")
	server, _ := filepath.Abs("testdata/codemode_server.lua")
	cmd, args := testkit.Everything(t)
	ev := &events{}
	luatest.RunFile(t, "testdata/codemode.lua", luatest.Options{Config: host.Config{Clean: true, Trace: ev}, Setup: func(t *testing.T, h *host.Host) {
		h.L.SetGlobal("LUAGENT", lua.LString(bin))
		h.L.SetGlobal("KV", lua.LString(server))
		h.L.SetGlobal("EVERYTHING", lua.LString(cmd))
		at := h.L.NewTable()
		for _, a := range args {
			at.Append(lua.LString(a))
		}
		h.L.SetGlobal("EVERYTHING_ARGS", at)
		h.L.SetGlobal("MARK", lua.LString(filepath.Join(t.TempDir(), "mark")))
		h.L.SetGlobal("TRACE", h.L.NewFunction(func(L *lua.LState) int {
			ev.mu.Lock()
			raw, _ := json.Marshal(ev.all)
			ev.mu.Unlock()
			L.Push(lua.LString(raw))
			return 1
		}))
		h.L.SetGlobal("NOW", h.L.NewFunction(func(L *lua.LState) int {
			L.Push(lua.LNumber(float64(time.Now().UnixNano()) / 1e9))
			return 1
		}))
	}})
}

// Code mode's failing snippets (testdata/codemode_errors.lua): what the
// model, the transcript and the trace get of a huge error, and a snippet
// nested too deep.
func TestCodeModeErrors(t *testing.T) {
	var traced atomic.Int64
	sink := traceFunc(func(ev trace.Event) {
		raw, _ := json.Marshal(ev)
		traced.Add(int64(len(raw)))
	})
	luatest.RunFile(t, "testdata/codemode_errors.lua", luatest.Options{Config: host.Config{Clean: true, Trace: sink}, Setup: func(t *testing.T, h *host.Host) {
		h.L.SetGlobal("TRACE_BYTES", h.L.NewFunction(func(L *lua.LState) int {
			L.Push(lua.LNumber(traced.Load()))
			return 1
		}))
		h.L.SetGlobal("NOW", h.L.NewFunction(func(L *lua.LState) int {
			L.Push(lua.LNumber(float64(time.Now().UnixNano()) / 1e9))
			return 1
		}))
	}})
}

type traceFunc func(trace.Event)

func (f traceFunc) Emit(ev trace.Event) { f(ev) }
