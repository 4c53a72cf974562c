// Package cmdlua runs NAME.lua command files (runtime/cmdfile) in the
// sandbox: a fresh sandboxed state per run, nothing granted (no files,
// processes, network or environment), under an instruction budget, a
// memory ceiling and a time limit. The file returns
//
//	{description = "...", argument_hint = "...", run = function(args, argv) return "prompt" end}
//
// or the run function alone; args is the text after /NAME, argv its
// words (cmdfile.SplitArgs).
package cmdlua

import (
	"context"
	"os"
	"strings"
	"time"

	"github.com/luagent/luagent/luabind/vm"
	"github.com/luagent/luagent/runtime/cmdfile"
	"github.com/luagent/luagent/runtime/errs"
	lua "github.com/yuin/gopher-lua"
)

// limits bound one run of a command file: it computes a prompt.
var limits = vm.Limits{Time: 5 * time.Second, Instructions: 10_000_000, MemoryBytes: 16 << 20}

// eval runs the file and returns its run function and fields.
func eval(ctx context.Context, s *vm.SandboxState, path string) (run *lua.LFunction, desc, hint string, err error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, "", "", errs.Errorf(errs.NotFound, "commands", "%s: cannot read: %v", path, err)
	}
	vals, err := s.Run(ctx, src, "@"+path)
	if err != nil {
		return nil, "", "", fail(path, err)
	}
	var v lua.LValue = lua.LNil
	if len(vals) > 0 {
		v = vals[0]
	}
	switch v := v.(type) {
	case *lua.LFunction:
		return v, "", "", nil
	case *lua.LTable:
		f, ok := v.RawGetString("run").(*lua.LFunction)
		if !ok {
			return nil, "", "", errs.Errorf(errs.Invalid, "commands", "%s: its table has no run = function(args, argv) ... end; add one", path)
		}
		str := func(k string) string {
			if s, ok := v.RawGetString(k).(lua.LString); ok {
				return string(s)
			}
			return ""
		}
		return f, str("description"), str("argument_hint"), nil
	}
	return nil, "", "", errs.Errorf(errs.Invalid, "commands", "%s: must return a function or {description =, argument_hint =, run = function(args, argv) ... end}, not %s", path, v.Type())
}

func fail(path string, err error) error {
	msg := err.Error()
	if e, ok := err.(*errs.Error); ok {
		msg = e.Msg
	}
	if !strings.Contains(msg, path) {
		msg = path + ": " + msg
	}
	return errs.New(errs.KindOf(err), "commands", strings.Join(strings.Fields(msg), " "))
}

// Describe fills each Lua command's description and argument hint from
// its file; a file that fails is one line in set.Problems and is dropped.
func Describe(ctx context.Context, set *cmdfile.Set) {
	if set == nil {
		return
	}
	kept := set.Commands[:0]
	for _, c := range set.Commands {
		if c.Lua {
			s := vm.NewSandbox(vm.SandboxOptions{Limits: limits})
			_, d, h, err := eval(ctx, s, c.Path)
			s.Close()
			if err != nil {
				set.Problems = append(set.Problems, errs.Message(err))
				set.Remove(c)
				continue
			}
			c.Description, c.ArgumentHint = d, h
		}
		kept = append(kept, c)
	}
	set.Commands = kept
}

// Prompt is command c's prompt for args: a .md file's body expanded, a
// .lua file's run(args, argv) in a fresh sandbox.
func Prompt(ctx context.Context, c *cmdfile.Command, args string) (string, error) {
	if !c.Lua {
		return c.Prompt(args), nil
	}
	s := vm.NewSandbox(vm.SandboxOptions{Limits: limits})
	defer s.Close()
	run, _, _, err := eval(ctx, s, c.Path)
	if err != nil {
		return "", err
	}
	argv := s.L.NewTable()
	for _, w := range cmdfile.SplitArgs(args) {
		argv.Append(lua.LString(w))
	}
	vals, err := s.Call(ctx, run, lua.LString(strings.TrimSpace(args)), argv)
	if err != nil {
		return "", fail(c.Path, err)
	}
	if len(vals) == 0 {
		return "", errs.Errorf(errs.Invalid, "commands", "%s: run returned nothing; return the prompt text", c.Path)
	}
	p, ok := vals[0].(lua.LString)
	if !ok {
		return "", errs.Errorf(errs.Invalid, "commands", "%s: run returned %s; return the prompt text", c.Path, vals[0].Type())
	}
	return string(p), nil
}
