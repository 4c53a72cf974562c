package host

import (
	"sort"
	"strings"

	"github.com/luagent/luagent/runtime/luaname"
	lua "github.com/yuin/gopher-lua"
)

// Complete returns completions for the end of text (the line up to the
// cursor): globals and keywords for a bare word, fields for `a.b.`, methods
// for `obj:` — including those a userdata's or table's metatable __index
// table provides. head is the text before the word being completed; each
// candidate is the whole word. It reads tables raw and calls no user code
// (only luagent's loader of a module not loaded yet, such as mcp), so
// completing cannot run user code. Call it on the loop goroutine.
func Complete(L *lua.LState, text string) (head string, cands []string) {
	start := len(text)
	for start > 0 {
		c := text[start-1]
		if c == '_' || c == '.' || c == ':' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			start--
			continue
		}
		break
	}
	head, word := text[:start], text[start:]
	sep := strings.LastIndexAny(word, ".:")
	if sep < 0 {
		seen := map[string]bool{}
		for _, k := range keysOf(L, L.G.Global) {
			if strings.HasPrefix(k, word) && !seen[k] {
				seen[k] = true
				cands = append(cands, k)
			}
		}
		for _, k := range luaname.Keywords {
			if strings.HasPrefix(k, word) && !seen[k] {
				cands = append(cands, k)
			}
		}
		sort.Strings(cands)
		return head, cands
	}
	base, prefix, method := word[:sep], word[sep+1:], word[sep] == ':'
	v := resolve(L, base)
	if v == lua.LNil {
		return head, nil
	}
	for _, k := range keysOf(L, v) {
		if !strings.HasPrefix(k, prefix) || !isIdent(k) {
			continue
		}
		if method {
			if _, ok := field(L, v, k).(*lua.LFunction); !ok {
				continue
			}
		}
		cands = append(cands, word[:sep+1]+k)
	}
	sort.Strings(cands)
	return head, cands
}

// resolve walks a.b.c from the globals with raw reads and __index tables;
// a module not loaded yet (mcp before first use) is loaded.
func resolve(L *lua.LState, path string) lua.LValue {
	var v lua.LValue = L.G.Global
	for _, part := range strings.FieldsFunc(path, func(r rune) bool { return r == '.' || r == ':' }) {
		v = loadLazy(L, field(L, v, part))
		if v == lua.LNil {
			return lua.LNil
		}
	}
	return v
}

// field reads v[k] raw, falling back to __index tables (not functions).
func field(L *lua.LState, v lua.LValue, k string) lua.LValue {
	for depth := 0; depth < 8 && v != lua.LNil; depth++ {
		if tb, ok := v.(*lua.LTable); ok {
			if x := tb.RawGetString(k); x != lua.LNil {
				return x
			}
		}
		v = indexTable(L, v)
	}
	return lua.LNil
}

func indexTable(L *lua.LState, v lua.LValue) lua.LValue {
	mt, ok := rawMetatable(v).(*lua.LTable)
	if !ok {
		return lua.LNil
	}
	idx, ok := mt.RawGetString("__index").(*lua.LTable)
	if !ok {
		return lua.LNil
	}
	return idx
}

// rawMetatable bypasses __metatable locks: completion may look at methods.
func rawMetatable(v lua.LValue) lua.LValue {
	switch x := v.(type) {
	case *lua.LTable:
		return x.Metatable
	case *lua.LUserData:
		return x.Metatable
	}
	return lua.LNil
}

// keysOf lists string keys of v and of its __index tables.
func keysOf(L *lua.LState, v lua.LValue) []string {
	var keys []string
	seen := map[string]bool{}
	for depth := 0; depth < 8 && v != lua.LNil; depth++ {
		if tb, ok := v.(*lua.LTable); ok {
			tb.ForEach(func(k, _ lua.LValue) {
				if s, ok := k.(lua.LString); ok && !seen[string(s)] {
					seen[string(s)] = true
					keys = append(keys, string(s))
				}
			})
		}
		v = indexTable(L, v)
	}
	return keys
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9' {
			continue
		}
		return false
	}
	return true
}
