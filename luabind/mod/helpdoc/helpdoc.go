// Package helpdoc is help()'s Go side, the module `help._native`: it finds
// what the editor stubs (stdlib/types) say of a value — a module, an
// object's methods, a function — so the REPL's help and the stubs are one
// text. It reads tables raw and calls no user code.
package helpdoc

import (
	"fmt"
	"sort"
	"strings"

	"github.com/luagent/luagent/stdlib/types"
	lua "github.com/yuin/gopher-lua"
)

// Preload registers `help._native` with describe(v): the text help(v)
// prints, or nil when the stubs do not describe v.
func Preload(L *lua.LState) {
	L.PreloadModule("help._native", func(L *lua.LState) int {
		mod := L.CreateTable(0, 1)
		mod.RawSetString("describe", L.NewFunction(func(L *lua.LState) int {
			if s := Describe(L, L.Get(1)); s != "" {
				L.Push(lua.LString(s))
				return 1
			}
			return 0
		}))
		L.Push(mod)
		return 1
	})
}

// Describe is what help(v) prints for a value the stubs describe, or "".
func Describe(L *lua.LState, v lua.LValue) string {
	d := types.Docs()
	switch x := v.(type) {
	case *lua.LFunction:
		return describeFunc(L, d, x)
	case *lua.LTable:
		if c := moduleOf(L, d, x); c != nil {
			return describeClass(c, x)
		}
	}
	if idx := methods(v); idx != nil {
		if c := classOf(d, idx); c != nil {
			return describeClass(c, idx)
		}
	}
	return ""
}

// moduleOf is the module class whose loaded table is t.
func moduleOf(L *lua.LState, d *types.Doc, t *lua.LTable) *types.Class {
	for _, c := range modules(L, d) {
		if c.table == t {
			return c.Class
		}
	}
	return nil
}

type loaded struct {
	*types.Class
	table *lua.LTable
}

// modules are the stubs' modules that are loaded in L.
func modules(L *lua.LState, d *types.Doc) []loaded {
	reg, _ := L.Get(lua.RegistryIndex).(*lua.LTable)
	if reg == nil {
		return nil
	}
	pkgs, _ := reg.RawGetString("_LOADED").(*lua.LTable)
	var out []loaded
	for _, name := range d.Order {
		c := d.Classes[name]
		if c.Global == "" {
			continue
		}
		t, _ := L.G.Global.RawGetString(c.Global).(*lua.LTable)
		if pkgs != nil {
			if m, ok := pkgs.RawGetString(c.Global).(*lua.LTable); ok {
				t = m
			}
		}
		if t != nil {
			out = append(out, loaded{c, t})
		}
	}
	return out
}

// methods is the __index table of v's metatable (read past __metatable).
func methods(v lua.LValue) *lua.LTable {
	var mt lua.LValue
	switch x := v.(type) {
	case *lua.LUserData:
		mt = x.Metatable
	case *lua.LTable:
		mt = x.Metatable
	}
	m, ok := mt.(*lua.LTable)
	if !ok {
		return nil
	}
	idx, _ := m.RawGetString("__index").(*lua.LTable)
	return idx
}

// classOf is the object class whose methods best match idx's functions:
// the most in common, the fewest the stubs add.
func classOf(d *types.Doc, idx *lua.LTable) *types.Class {
	have := map[string]bool{}
	idx.ForEach(func(k, v lua.LValue) {
		if s, ok := k.(lua.LString); ok && v.Type() == lua.LTFunction {
			have[string(s)] = true
		}
	})
	var best *types.Class
	bestScore := 0
	for _, name := range d.Order {
		c := d.Classes[name]
		if c.Global != "" || len(c.Funcs) == 0 {
			continue
		}
		score := 0
		for _, f := range c.Funcs {
			if have[f.Name] {
				score += 2
			} else {
				score--
			}
		}
		if score > bestScore {
			best, bestScore = c, score
		}
	}
	if best == nil || bestScore < len(have) {
		return nil // less than half its methods are this class's
	}
	return best
}

// describeFunc finds fn in a module or in an object type's methods.
func describeFunc(L *lua.LState, d *types.Doc, fn *lua.LFunction) string {
	for _, m := range modules(L, d) {
		if s := funcIn(m.Class, m.table, fn); s != "" {
			return s
		}
	}
	reg, _ := L.Get(lua.RegistryIndex).(*lua.LTable)
	if reg == nil {
		return ""
	}
	var out string
	reg.ForEach(func(_, v lua.LValue) {
		mt, ok := v.(*lua.LTable)
		if out != "" || !ok {
			return
		}
		if idx, ok := mt.RawGetString("__index").(*lua.LTable); ok {
			if c := classOf(d, idx); c != nil {
				out = funcIn(c, idx, fn)
			}
		}
	})
	return out
}

func funcIn(c *types.Class, t *lua.LTable, fn *lua.LFunction) string {
	var out string
	t.ForEach(func(k, v lua.LValue) {
		s, ok := k.(lua.LString)
		if out != "" || !ok || v != fn {
			return
		}
		if f := c.Func(string(s)); f != nil {
			out = c.Signature(f)
			if f.Summary != "" {
				out += "\n  " + f.Summary
			}
		}
	})
	return out
}

// describeClass lists a module's or an object's functions as the stubs
// give them, then what t has that the stubs leave out.
func describeClass(c *types.Class, t *lua.LTable) string {
	var b strings.Builder
	title := c.Name
	if c.Global != "" {
		title = c.Global
	}
	if c.Summary != "" {
		fmt.Fprintf(&b, "%s: %s\n", title, c.Summary)
	} else {
		fmt.Fprintf(&b, "%s\n", title)
	}
	listed := map[string]bool{}
	for _, f := range c.Funcs {
		if t.RawGetString(f.Name).Type() != lua.LTFunction {
			continue
		}
		listed[f.Name] = true
		fmt.Fprintf(&b, "  %s\n", c.Signature(f))
		if f.Summary != "" {
			fmt.Fprintf(&b, "      %s\n", f.Summary)
		}
	}
	for _, f := range c.Fields {
		if c.Global == "" || t.RawGetString(f.Name) == lua.LNil {
			continue
		}
		listed[f.Name] = true
		fmt.Fprintf(&b, "  %s.%s", c.Global, f.Name)
		if f.Summary != "" {
			fmt.Fprintf(&b, "  %s", f.Summary)
		}
		b.WriteByte('\n')
	}
	var more []string
	t.ForEach(func(k, v lua.LValue) {
		if s, ok := k.(lua.LString); ok && !listed[string(s)] && !strings.HasPrefix(string(s), "_") {
			if v.Type() == lua.LTFunction {
				more = append(more, string(s)+"()")
			} else {
				more = append(more, string(s))
			}
		}
	})
	if len(more) > 0 {
		sort.Strings(more)
		fmt.Fprintf(&b, "  also: %s\n", strings.Join(more, " "))
	}
	return strings.TrimRight(b.String(), "\n")
}
