package agent

import (
	"context"

	lua "github.com/yuin/gopher-lua"

	ragent "github.com/luagent/luagent/runtime/agent"
)

// Handle is the Go side of an agent.new value, for a host that runs the
// agent's turns from Go with a Go event sink (luagent chat). The agent's
// Lua parts (policy, hooks, tools, a Lua model) still run as tasks on the
// loop, so the loop must be running while a turn runs.
type Handle struct{ la *luaAgent }

// Unwrap returns the handle of an agent: stdlib's agent table (its
// _native field) or the native userdata itself.
func Unwrap(v lua.LValue) (*Handle, bool) {
	if t, ok := v.(*lua.LTable); ok {
		v = t.RawGetString("_native")
	}
	ud, ok := v.(*lua.LUserData)
	if !ok {
		return nil, false
	}
	la, ok := ud.Value.(*luaAgent)
	if !ok {
		return nil, false
	}
	return &Handle{la: la}, true
}

// Agent is the runtime agent.
func (h *Handle) Agent() *ragent.Agent { return h.la.a }

// Ask runs one turn as a Lua a:ask would, its events going to onEvent
// (which must return quickly) instead of a Lua function.
func (h *Handle) Ask(ctx context.Context, prompt string, onEvent func(ragent.Event)) (string, *ragent.Transcript, error) {
	la := h.la
	la.mu.Lock()
	defer la.mu.Unlock()
	la.smu.Lock()
	la.sink = onEvent
	la.smu.Unlock()
	defer func() {
		la.smu.Lock()
		la.sink = nil
		la.smu.Unlock()
	}()
	return la.a.Ask(ctx, prompt)
}
