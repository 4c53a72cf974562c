// Package log is the Lua `log` module: leveled messages to stderr.
//
//	log.info("connected to", name)         -- 02:13:15 INFO connected to fs
//	log.debug("args", {a = 1})             -- tables print through inspect, on one line
//	log.level("debug")                     -- or LUAGENT_LOG=debug
//
// Levels: debug, info, warn, error; the default is info.
package log

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/luagent/luagent/luabind/vm"
	"github.com/luagent/luagent/runtime/visible"
	lua "github.com/yuin/gopher-lua"
)

// Level orders messages; those below the logger's level are dropped.
type Level int

const (
	Debug Level = iota
	Info
	Warn
	Error
)

var levelNames = []string{"debug", "info", "warn", "error"}

// ParseLevel reads a level name; ok is false for an unknown one.
func ParseLevel(s string) (Level, bool) {
	for i, n := range levelNames {
		if strings.EqualFold(n, s) || (n == "warn" && strings.EqualFold(s, "warning")) {
			return Level(i), true
		}
	}
	return Info, false
}

// Logger writes leveled lines to W. It is safe for concurrent use, so Go
// code can share it with Lua.
type Logger struct {
	mu    sync.Mutex
	W     io.Writer
	Level Level
	Now   func() time.Time
}

// Log writes one line if lvl is enabled.
func (l *Logger) Log(lvl Level, msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if lvl < l.Level {
		return
	}
	now := time.Now
	if l.Now != nil {
		now = l.Now
	}
	// A log line quotes servers (their stderr, a client's request) as
	// often as the script: its control characters show.
	fmt.Fprintf(l.W, "%s %s %s\n", now().Format("15:04:05"), strings.ToUpper(levelNames[lvl]), visible.Text(msg))
}

// Preload registers `log`. inspect renders table arguments (it may be nil:
// tables then print as tostring does).
func Preload(L *lua.LState, lg *Logger) {
	L.PreloadModule("log", func(L *lua.LState) int {
		L.Push(Open(L, lg))
		return 1
	})
}

// Open builds the module table.
func Open(L *lua.LState, lg *Logger) *lua.LTable {
	mod := L.CreateTable(0, 6)
	for i, name := range levelNames {
		lvl := Level(i)
		mod.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			if lvl < lg.Level {
				return 0
			}
			lg.Log(lvl, render(L))
			return 0
		}))
	}
	mod.RawSetString("level", L.NewFunction(func(L *lua.LState) int {
		if L.GetTop() >= 1 {
			lvl, ok := ParseLevel(L.CheckString(1))
			if !ok {
				L.ArgError(1, "level must be one of debug, info, warn, error")
			}
			lg.mu.Lock()
			lg.Level = lvl
			lg.mu.Unlock()
		}
		L.Push(lua.LString(levelNames[lg.Level]))
		return 1
	}))
	return mod
}

// render joins the arguments with spaces: strings as they are, tables
// through inspect on one line when it is loaded, the rest through tostring.
func render(L *lua.LState) string {
	var b strings.Builder
	for i := 1; i <= L.GetTop(); i++ {
		if i > 1 {
			b.WriteByte(' ')
		}
		v := L.Get(i)
		if tb, ok := v.(*lua.LTable); ok && L.GetMetaField(tb, "__tostring") == lua.LNil {
			if s, ok := vm.Inspect(L, v, vm.InspectOptions{Oneline: true}); ok {
				b.WriteString(s)
				continue
			}
		}
		b.WriteString(vm.ToString(L, v))
	}
	return b.String()
}
