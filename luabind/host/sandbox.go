package host

import (
	"context"
	"fmt"
	"strings"

	envmod "github.com/luagent/luagent/luabind/mod/env"
	"github.com/luagent/luagent/luabind/vm"
)

// BaseModules are what every sandboxed host has besides string, table,
// math, coroutine and os.time/date/clock: none touches processes, files,
// the network or the environment (log writes to the host's stderr).
var BaseModules = []string{"json", "inspect", "task", "log"}

// Grants are the capabilities a sandboxed host gets only when granted
// (luagent run --sandbox --grant NAME): env reads the environment, mcp
// starts servers and connects to URLs, agent calls models (and implies mcp).
var Grants = []string{"env", "mcp", "agent"}

// CheckGrants returns an error naming the valid grants when one of names
// is not one (the base modules are accepted: they are always there).
func CheckGrants(names []string) error {
	for _, n := range names {
		if !contains(Grants, n) && !contains(BaseModules, n) {
			return fmt.Errorf("unknown grant %q: the sandbox can grant %s (%s are always there)",
				n, strings.Join(Grants, ", "), strings.Join(BaseModules, ", "))
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// preloadGranted makes the base modules and the granted ones globals of a
// sandboxed host; nothing else is requirable.
func (h *Host) preloadGranted(grants map[string]bool) {
	eager := []string{"json", "task", "log"}
	lazy := []string{"inspect"}
	if grants["env"] {
		envmod.Preload(h.L, h.cfg.Env)
		eager = append(eager, "env")
	}
	if grants["mcp"] {
		h.preloadMCP()
		lazy = append(lazy, "mcp")
	}
	if grants["agent"] {
		h.preloadAgent()
		lazy = append(lazy, "agent")
	}
	h.globals(eager, lazy)
}

// sandboxTaskContext gives each task of a sandboxed host its limits: a task
// spawned from outside Lua (the main chunk, a request's handler) gets a
// budget of its own; one spawned by a task shares its spawner's and is
// charged to it, so spawning cannot mint budgets.
func sandboxTaskContext(lim vm.Limits) func(ctx, spawner context.Context) (context.Context, func()) {
	return func(ctx, spawner context.Context) (context.Context, func()) {
		if c, stop, ok := vm.ShareBudget(ctx, spawner); ok {
			vm.ChargeTask(c, "task.spawn")
			return c, stop
		}
		return vm.BudgetContext(ctx, lim)
	}
}
