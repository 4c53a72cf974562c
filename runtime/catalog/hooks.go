package catalog

import (
	"encoding/json"

	"github.com/luagent/luagent/runtime/hooks"
)

// parseHooks reads the "hooks" member (runtime/hooks.Parse, the function
// a project's .luagent/config.json is read with too); its problems, each
// with its path (hooks.PreToolUse[0].matcher), are Validate's.
func (c *Config) parseHooks(raw json.RawMessage) {
	c.Hooks, c.hookProblems = hooks.Parse(raw, "")
}

// HooksFrom is the file's hooks with each group's Source set to path
// (luagent hooks list shows where each is configured).
func (c *Config) HooksFrom(path string) hooks.Config {
	out := hooks.Config{Groups: make([]hooks.Group, len(c.Hooks.Groups))}
	for i, g := range c.Hooks.Groups {
		g.Source = path
		out.Groups[i] = g
	}
	return out
}
