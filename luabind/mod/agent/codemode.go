package agent

import (
	"time"

	lua "github.com/yuin/gopher-lua"

	ragent "github.com/luagent/luagent/runtime/agent"
	"github.com/luagent/luagent/runtime/errs"
)

// codeModeOf reads agent.new's code_mode: true (or "only": run_lua
// instead of the tools), "beside" (run_lua and the tools), or a table
// {mode = "only"|"beside", time = SECONDS, instructions = N, memory =
// BYTES, tool_calls = N, output = BYTES} with the limits of each run. run
// runs the snippets (the host's).
func codeModeOf(v lua.LValue, run ragent.CodeRunner) (ragent.CodeMode, error) {
	cm := ragent.CodeMode{Run: run}
	bad := func() (ragent.CodeMode, error) {
		return ragent.CodeMode{}, errs.Errorf(errs.Invalid, "agent.new",
			`code_mode must be true, "only", "beside" or {mode = "only"|"beside", time =, instructions =, memory =, tool_calls =, output =}, not %s`, lua.LVAsString(v))
	}
	switch x := v.(type) {
	case *lua.LNilType:
		return ragent.CodeMode{}, nil
	case lua.LBool:
		if !x {
			return ragent.CodeMode{}, nil
		}
		cm.Mode = ragent.CodeOnly
	case lua.LString:
		cm.Mode = string(x)
	case *lua.LTable:
		cm.Mode = ragent.CodeOnly
		if m, ok := x.RawGetString("mode").(lua.LString); ok {
			cm.Mode = string(m)
		}
		cm.Limits = ragent.CodeLimits{
			Time:         time.Duration(optNumber(x, "time") * float64(time.Second)),
			Instructions: int64(optNumber(x, "instructions")),
			MemoryBytes:  int64(optNumber(x, "memory")),
			ToolCalls:    int(optNumber(x, "tool_calls")),
			Output:       int(optNumber(x, "output")),
		}
	default:
		return bad()
	}
	if cm.Mode != ragent.CodeOnly && cm.Mode != ragent.CodeBeside {
		return bad()
	}
	if run == nil {
		return ragent.CodeMode{}, errs.New(errs.Invalid, "agent.new", "code_mode is not available in this host (it has no sandbox runner)")
	}
	return cm, nil
}
