package main

import (
	"github.com/luagent/luagent/luabind/host"
	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/memory"
	"github.com/luagent/luagent/runtime/notify"
)

// projectMemory is the memory ask and chat give their agent: the user's
// and the project's AGENTS.md (and config.json's memoryFiles) for the
// working folder; nil with --no-memory.
func projectMemory(cfg *catalog.Config, off bool) *memory.Memory {
	if off {
		return nil
	}
	return memory.Load(memory.Options{Home: host.Home(), Names: cfg.MemoryFiles})
}

// notifyMode is how chat rings the terminal: config.json's
// "notifications", off with --no-notify, auto decided from the terminal's
// variables.
func notifyMode(cfg *catalog.Config, off bool, getenv func(string) string) string {
	if off {
		return notify.Off
	}
	return notify.Resolve(cfg.NotificationsSetting(), getenv)
}
