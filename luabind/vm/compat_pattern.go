package vm

import (
	"strconv"
	"strings"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// string.find, match, gmatch and gsub over the matcher of pattern.go.
// gopher-lua's (its pm package) fix:
//   - gsub copied the whole subject once per match (strGsubDoReplace), so
//     replacing 150 000 tabs took 9 s; this writes one growing buffer;
//   - nothing polled the state's context inside a builtin, so a timeout or
//     a cancellation could not stop a long match; the matcher polls
//     L.Context() every few thousand steps;
//   - gmatch's iterator could be called only by a generic for, and a
//     leading '^' anchored it (in Lua 5.1 it is a literal '^' in gmatch);
//   - there was no %f frontier, and a pattern error could be a Go panic;
//   - gsub's result had no size cap; it has the one of string.rep and
//     table.concat (MaxStringSize).
//
// Differences from PUC Lua 5.1 on purpose: a NUL in a pattern is an
// ordinary character (see pattern.go); a replacement string ending in a
// lone '%' is an error, "invalid use of '%' in replacement string" (Lua
// 5.1 copies the C string's terminating NUL); numbers put into a result
// are written as tostring writes them; "pattern too complex" past
// patMaxDepth nested matches.

// patGuard turns a patError the matcher panicked with into a Lua error.
// Any other panic (a Lua error a gsub callback raised) goes on unchanged.
func patGuard(L *lua.LState) {
	if r := recover(); r != nil {
		if e, ok := r.(patError); ok {
			L.RaiseError("%s", string(e))
		}
		panic(r)
	}
}

// patPushCapture pushes capture i of the match [s, e).
func patPushCapture(L *lua.LState, m *matcher, i, s, e int) {
	if text, pos := m.captureAt(i, s, e); pos > 0 {
		L.Push(lua.LNumber(pos))
	} else {
		L.Push(lua.LString(text))
	}
}

// patPushCaptures pushes the captures of the match [s, e) (the whole match
// when whole and it has none) and returns how many.
func patPushCaptures(L *lua.LState, m *matcher, s, e int, whole bool) int {
	n := m.captures(whole)
	for i := 0; i < n; i++ {
		patPushCapture(L, m, i, s, e)
	}
	return n
}

// compatFind is string.find (Lua 5.1's str_find_aux with find set).
func compatFind(L *lua.LState) int { return patFindAux(L, "find", true) }

// compatMatch is string.match.
func compatMatch(L *lua.LState) int { return patFindAux(L, "match", false) }

func patFindAux(L *lua.LState, fname string, find bool) int {
	s := compatCheckString(L, 1, fname)
	p := compatCheckString(L, 2, fname)
	init := compatOptInt(L, 3, fname, 1)
	if init < 0 {
		init += int64(len(s)) + 1
	}
	init-- // 0-based; Lua 5.1 clamps it to the subject
	if init < 0 {
		init = 0
	} else if init > int64(len(s)) {
		init = int64(len(s))
	}
	if find && (lua.LVAsBool(L.Get(4)) || strings.IndexAny(p, patSpecials) < 0) {
		if k := strings.Index(s[init:], p); k >= 0 {
			L.Push(lua.LNumber(int(init) + k + 1))
			L.Push(lua.LNumber(int(init) + k + len(p)))
			return 2
		}
		L.Push(lua.LNil)
		return 1
	}
	defer patGuard(L)
	anchor := len(p) > 0 && p[0] == '^'
	p0 := 0
	if anchor {
		p0 = 1
	}
	var m matcher
	m.reset(L.Context(), "string."+fname, s, p, p0)
	start, end := m.search(int(init), p0, anchor)
	if start < 0 {
		L.Push(lua.LNil)
		return 1
	}
	if find {
		L.Push(lua.LNumber(start + 1))
		L.Push(lua.LNumber(end))
		return patPushCaptures(L, &m, start, end, false) + 2
	}
	return patPushCaptures(L, &m, start, end, true)
}

// compatGmatch is string.gmatch: it returns a closure that keeps its
// position, so `local it = s:gmatch(p); it()` works (gopher-lua's needed a
// generic for). As in Lua 5.1 the pattern is never anchored, a leading '^'
// being a literal, and a pattern error is raised by the iterator's call.
func compatGmatch(L *lua.LState) int {
	s := compatCheckString(L, 1, "gmatch")
	p := compatCheckString(L, 2, "gmatch")
	pos := 0 // where the next search starts
	m := new(matcher)
	L.Push(L.NewFunction(func(L *lua.LState) int {
		if pos > len(s) {
			return 0
		}
		defer patGuard(L)
		m.reset(L.Context(), "string.gmatch", s, p, 0)
		start, end := m.search(pos, 0, false)
		if start < 0 {
			pos = len(s) + 1
			return 0
		}
		pos = end
		if end == start {
			pos++ // an empty match: go on at least one position
		}
		return patPushCaptures(L, m, start, end, true)
	}))
	return 1
}

// compatGsub is string.gsub (Lua 5.1's str_gsub): the replacement may be a
// string (with %0-%9 and %%), a table or a function; the fourth argument
// limits the number of replacements.
func compatGsub(L *lua.LState) int {
	src := compatCheckString(L, 1, "gsub")
	p := compatCheckString(L, 2, "gsub")
	repl := L.Get(3)
	maxN := compatOptInt(L, 4, "gsub", int64(len(src))+1)
	var rs string
	switch repl.(type) {
	case lua.LString, lua.LNumber:
		rs = compatCheckString(L, 3, "gsub")
	case *lua.LFunction, *lua.LTable:
	default:
		compatArgError(L, 3, "gsub", "string/function/table expected")
	}
	plainRepl := strings.IndexByte(rs, '%') < 0
	defer patGuard(L)
	anchor := len(p) > 0 && p[0] == '^'
	p0 := 0
	if anchor {
		p0 = 1
	}
	limit := maxStringSize(L)
	var m matcher
	m.reset(L.Context(), "string.gsub", src, p, p0)
	var out []byte // allocated at the first match
	n := int64(0)
	s := 0    // where the next match is tried
	from := 0 // src[from:s] is unmatched text, copied at the next match
loop:
	for n < maxN {
		if !anchor {
			s = m.skip(s)
		}
		e := m.attempt(s, p0)
		if e >= 0 {
			n++
			if out == nil {
				out = make([]byte, 0, min(len(src)+16, limit+1))
			}
			out = append(out, src[from:s]...)
			switch r := repl.(type) {
			case *lua.LFunction:
				out = patAppendValue(L, out, gsubCallback(L, r, &m, s, e), src[s:e])
			case *lua.LTable:
				patPushCapture(L, &m, 0, s, e)
				key := L.Get(-1)
				L.Pop(1)
				out = patAppendValue(L, out, L.GetTable(r, key), src[s:e])
			default:
				if plainRepl {
					out = append(out, rs...)
				} else {
					out = patAppendString(&m, out, rs, s, e)
				}
			}
			from = e
			if len(out) > limit {
				m.fail(gsubTooBig(limit))
			}
		}
		switch {
		case e > s: // a non-empty match: skip it
			s = e
		case s < len(src):
			s++
		default:
			break loop
		}
		if anchor {
			break
		}
	}
	if n == 0 {
		L.Push(lua.LString(src)) // nothing replaced
	} else {
		if len(out)+len(src)-from > limit {
			m.fail(gsubTooBig(limit))
		}
		out = append(out, src[from:]...)
		L.Push(lua.LString(unsafe.String(unsafe.SliceData(out), len(out)))) // out is not used again
	}
	L.Push(lua.LNumber(n))
	return 2
}

func gsubTooBig(limit int) string {
	return "string.gsub: result would be over the limit of " + strconv.Itoa(limit) + " bytes"
}

// GsubCallbackFrame is the name Go's runtime gives gsubCallback, so that
// the scheduler's await guard can say a yield was refused inside a
// string.gsub callback.
const GsubCallbackFrame = "github.com/luagent/luagent/luabind/vm.gsubCallback"

// gsubCallback calls gsub's replacement function with the captures of the
// match [s, e) and returns its first result.
//
//go:noinline
func gsubCallback(L *lua.LState, fn *lua.LFunction, m *matcher, s, e int) lua.LValue {
	L.Push(fn)
	n := patPushCaptures(L, m, s, e, true)
	L.Call(n, 1)
	v := L.Get(-1)
	L.Pop(1)
	return v
}

// patAppendValue appends a table's or a function's replacement value v:
// false or nil keeps the match, a string or a number replaces it.
func patAppendValue(L *lua.LState, out []byte, v lua.LValue, match string) []byte {
	switch v := v.(type) {
	case lua.LString:
		return append(out, v...)
	case lua.LNumber:
		return append(out, compatNumberString(v)...)
	}
	if !lua.LVAsBool(v) {
		return append(out, match...)
	}
	panic(patError("invalid replacement value (a " + v.Type().String() + ")"))
}

// patAppendString appends the replacement string rs for the match [s, e)
// (add_s): %0 is the match, %1-%9 its captures, '%' before any other
// character that character.
func patAppendString(m *matcher, out []byte, rs string, s, e int) []byte {
	for {
		k := strings.IndexByte(rs, '%')
		if k < 0 {
			return append(out, rs...)
		}
		out = append(out, rs[:k]...)
		if k+1 == len(rs) {
			m.fail("invalid use of '%' in replacement string")
		}
		switch c := rs[k+1]; {
		case c == '0':
			out = append(out, m.src[s:e]...)
		case c >= '1' && c <= '9':
			text, pos := m.captureAt(int(c-'1'), s, e)
			if pos > 0 {
				out = strconv.AppendInt(out, int64(pos), 10)
			} else {
				out = append(out, text...)
			}
		default:
			out = append(out, c)
		}
		rs = rs[k+2:]
	}
}
