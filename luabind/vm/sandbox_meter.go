package vm

import (
	"strings"

	"github.com/luagent/luagent/runtime/errs"
	lua "github.com/yuin/gopher-lua"
)

// Approximate costs the meter charges (bytes), measured on gopher-lua
// v1.1.2 (amd64) with this package's state options; see stdlib/doc/sandbox.md.
const (
	costTable     = 112 // an empty table
	costSlot      = 32  // an array element (16 bytes, and the array doubles)
	costKey       = 128 // a hash entry (key, value, map overhead)
	costClosure   = 160
	costCoroutine = 24 << 10
	costValue     = 16 // a value pushed on the stack (string.byte)
	maxByteValues = compatMaxUnpack
	maxDateFormat = 4096
)

// sharedG is a Go function value usable from any state: it touches
// nothing but the state it is called with.
func sharedG(fn lua.LGFunction) *lua.LFunction {
	return &lua.LFunction{IsG: true, Env: &lua.LTable{Metatable: lua.LNil}, GFunction: fn}
}

// The hidden functions the rewritten chunks call (sandbox_compile.go).
var (
	meteredConcat  = sharedG(sandboxConcat)
	meteredSet     = sharedG(sandboxSet)
	meteredTable   = sharedG(sandboxTable)
	meteredClosure = sharedG(sandboxClosure)
)

// sandboxClosure charges a closure and returns it (nothing for the
// statement form).
func sandboxClosure(L *lua.LState) int {
	charge(L, costClosure, "a function")
	return L.GetTop()
}

// sandboxConcat is `a .. b`: strings and numbers joined (numbers as
// tostring writes them), else the __concat metamethod of a then b, else
// Lua's error. The result is capped and charged.
func sandboxConcat(L *lua.LState) int {
	a, b := L.Get(1), L.Get(2)
	sa, oka := concatOperand(a)
	sb, okb := concatOperand(b)
	if oka && okb {
		n := len(sa) + len(sb)
		if limit := maxStringSize(L); n > limit {
			if bg := budgetOf(L); bg != nil {
				bg.fail(L, "string of "+compatBytes(float64(n))+" bytes from '..' is over the limit of "+formatBytes(int64(limit)))
			}
			L.RaiseError("string of %d bytes from '..' is over the limit of %d", n, limit)
		}
		charge(L, int64(n), "'..'")
		L.Push(lua.LString(sa + sb))
		return 1
	}
	mm := L.GetMetaField(a, "__concat")
	if mm == lua.LNil {
		mm = L.GetMetaField(b, "__concat")
	}
	if mm == lua.LNil {
		bad := a
		if oka {
			bad = b
		}
		L.RaiseError("attempt to concatenate a %s value", bad.Type().String())
	}
	L.Push(mm)
	L.Push(a)
	L.Push(b)
	L.Call(2, 1)
	return 1
}

func concatOperand(v lua.LValue) (string, bool) {
	switch v := v.(type) {
	case lua.LString:
		return string(v), true
	case lua.LNumber:
		return compatNumberString(v), true
	}
	return "", false
}

// sandboxSet is `t[k] = v` (metamethods honoured), charging a new key.
func sandboxSet(L *lua.LState) int {
	t, k, v := L.Get(1), L.Get(2), L.Get(3)
	tb, ok := t.(*lua.LTable)
	if ok && v != lua.LNil && tb.RawGet(k) == lua.LNil {
		charge(L, keyCost(tb, k), "a table assignment")
	}
	L.SetTable(t, k, v)
	return 0
}

// keyCost is what adding key k to t costs: a slot when it extends the
// array part, a hash entry otherwise.
func keyCost(t *lua.LTable, k lua.LValue) int64 {
	if n, ok := k.(lua.LNumber); ok && float64(n) == float64(t.Len()+1) {
		return costSlot
	}
	return costKey
}

// sandboxTable charges a table constructor: its keyed fields as hash
// entries, and its array part (positional fields and what a trailing call
// or ... added) as slots.
func sandboxTable(L *lua.LState) int {
	tb := L.CheckTable(1)
	keyed, positional := int64(L.CheckInt(2)), int64(L.CheckInt(3))
	cost := int64(costTable) + keyed*costKey + max(positional, int64(tb.Len()))*costSlot
	charge(L, cost, "a table constructor")
	L.SetTop(1)
	return 1
}

// chargeStrings wraps fn to charge the strings it returns; fn caps each
// one (MaxStringSize), so a run overshoots its ceiling by one at most.
func chargeStrings(name string, fn lua.LGFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		top := L.GetTop()
		n := fn(L)
		var size int64
		for i := L.GetTop() - n + 1; i <= L.GetTop(); i++ {
			if s, ok := L.Get(i).(lua.LString); ok {
				size += int64(len(s))
			}
		}
		_ = top
		charge(L, size, name)
		return n
	}
}

// sandboxByte is string.byte with at most maxByteValues results (Lua 5.1's
// "string slice too long"): s:byte(1, -1) of 16 MB pushed 16M values.
func sandboxByte(L *lua.LState) int {
	s := compatCheckString(L, 1, "byte")
	i := compatOptInt(L, 2, "byte", 1)
	j := compatOptInt(L, 3, "byte", i)
	l := int64(len(s))
	if i < 0 {
		i = l + i + 1
	}
	if j < 0 {
		j = l + j + 1
	}
	i, j = max(i, 1), min(j, l)
	if i > j {
		return 0
	}
	if n := j - i + 1; n > maxByteValues {
		msg := "string.byte: " + compatBytes(float64(n)) + " results, over the limit of " + compatBytes(maxByteValues) + " (take the string in pieces)"
		if b := budgetOf(L); b != nil {
			b.fail(L, msg)
		}
		L.RaiseError("%s", msg)
	}
	charge(L, (j-i+1)*costValue, "string.byte")
	for k := i; k <= j; k++ {
		L.Push(lua.LNumber(s[k-1]))
	}
	return int(j - i + 1)
}

// sandboxFormat is string.format whose result is checked before it is
// built: the operands' tostring (under the run's limits) is taken first,
// and their total must fit the string cap and the meter.
func sandboxFormat(L *lua.LState) int {
	top := L.GetTop()
	size := int64(len(compatCheckString(L, 1, "format")))
	for i := 2; i <= top; i++ {
		v := L.Get(i)
		switch v.(type) {
		case lua.LString, lua.LNumber, lua.LBool, *lua.LNilType:
		default:
			if L.GetMetaField(v, "__tostring") != lua.LNil {
				v = lua.LString(ToString(L, v))
				L.Replace(i, v)
			}
		}
		if s, ok := v.(lua.LString); ok {
			size += int64(len(s))
		}
		size += 128 // a conversion's width, precision and number text
	}
	if limit := int64(maxStringSize(L)); size > limit {
		msg := "string.format: result would be " + compatBytes(float64(size)) + " bytes, over the limit of " + formatBytes(limit)
		if b := budgetOf(L); b != nil {
			b.fail(L, msg)
		}
		L.RaiseError("%s", msg)
	}
	charge(L, size, "string.format")
	return compatFormat(L)
}

// sandboxReverse is string.reverse (gopher-lua's copies twice).
func sandboxReverse(L *lua.LState) int {
	s := compatCheckString(L, 1, "reverse")
	charge(L, int64(len(s)), "string.reverse")
	out := make([]byte, len(s))
	for i := range s {
		out[len(s)-1-i] = s[i]
	}
	L.Push(lua.LString(out))
	return 1
}

// sandboxInsert is table.insert charging the slot it adds.
func sandboxInsert(orig lua.LGFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		charge(L, costSlot, "table.insert")
		return orig(L)
	}
}

// sandboxRawset is rawset charging a new key.
func sandboxRawset(orig lua.LGFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		if tb, ok := L.Get(1).(*lua.LTable); ok && L.Get(3) != lua.LNil && tb.RawGet(L.Get(2)) == lua.LNil {
			charge(L, keyCost(tb, L.Get(2)), "rawset")
		}
		return orig(L)
	}
}

// sandboxCoroutine wraps coroutine.create or wrap: each coroutine counts
// against the run's limit and is charged, and runs under the run's budget
// (gopher-lua gives a new thread a child context, whose Done would not
// count its instructions).
func sandboxCoroutine(name string, orig lua.LGFunction, wrap bool) lua.LGFunction {
	return func(L *lua.LState) int {
		b := budgetOf(L)
		if b != nil && b.m.coros.Add(-1) < 0 {
			b.fail(L, "coroutine limit of "+compatBytes(float64(b.m.lim.Coroutines))+" reached by "+name)
		}
		charge(L, costCoroutine, name)
		n := orig(L)
		if b == nil {
			return n
		}
		var co *lua.LState
		switch v := L.Get(-1).(type) {
		case *lua.LState:
			co = v
		case *lua.LFunction:
			if wrap && len(v.Upvalues) > 0 {
				co, _ = v.Upvalues[0].Value().(*lua.LState)
			}
		}
		if co != nil {
			co.SetContext(b)
		}
		return n
	}
}

// sandboxLoadstring is loadstring compiling with the meters; binary chunks
// are refused.
func sandboxLoadstring(L *lua.LState) int {
	src := L.CheckString(1)
	name := L.OptString(2, src)
	return sandboxLoadSource(L, src, name)
}

// sandboxLoad is load(reader [, name]): the pieces are joined (charged)
// and compiled as loadstring does.
func sandboxLoad(L *lua.LState) int {
	if s, ok := L.Get(1).(lua.LString); ok {
		// Lua 5.2's load(string), which scripts written for 5.2+ use.
		return sandboxLoadSource(L, string(s), L.OptString(2, string(s)))
	}
	fn := L.CheckFunction(1)
	name := L.OptString(2, "=(load)")
	var b strings.Builder
	for {
		L.Push(fn)
		L.Call(0, 1)
		v := L.Get(-1)
		L.Pop(1)
		s, ok := v.(lua.LString)
		if v == lua.LNil || (ok && s == "") {
			break
		}
		if !ok {
			L.Push(lua.LNil)
			L.Push(lua.LString("reader function must return a string"))
			return 2
		}
		if b.Len()+len(s) > maxStringSize(L) {
			L.RaiseError("load: chunk over the limit of %d bytes", maxStringSize(L))
		}
		charge(L, int64(len(s)), "load")
		b.WriteString(string(s))
	}
	return sandboxLoadSource(L, b.String(), name)
}

// sandboxLoadSource compiles src as load does: the function, or nil and
// the syntax error. A limit ends the run, as everywhere in the sandbox:
// the time or memory limit reached while compiling, or a chunk nested
// deeper than Lua allows (MaxSyntaxLevels).
func sandboxLoadSource(L *lua.LState, src, name string) int {
	if len(name) > 60 {
		name = name[:60]
	}
	if !strings.HasPrefix(name, "=") && !strings.HasPrefix(name, "@") {
		name = "[string \"" + firstLine(name) + "\"]"
	} else {
		name = name[1:]
	}
	fn, err := loadChunk(L, []byte(src), name, "load")
	if err != nil {
		if b := budgetOf(L); b != nil && b.Err() != nil {
			L.Error(lua.LString(scriptWhere(L)+CauseText(b.Err())), 0)
		}
		if errs.KindOf(err) == errs.Limit {
			Fail(L, err.Error())
		}
		L.Push(lua.LNil)
		L.Push(lua.LString(err.Error()))
		return 2
	}
	L.Push(fn)
	return 1
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + "..."
	}
	return s
}

// installMeters replaces the built-ins of a sandbox state that can grow
// memory by more than a constant in one call with metered ones.
func installMeters(L *lua.LState) {
	g := L.G.Global
	gfn := func(t *lua.LTable, name string) lua.LGFunction {
		if f, ok := t.RawGetString(name).(*lua.LFunction); ok && f.IsG {
			return f.GFunction
		}
		return nil
	}
	set := func(t *lua.LTable, name string, fn lua.LGFunction) {
		if fn != nil {
			t.RawSetString(name, L.NewFunction(fn))
		}
	}
	if str, ok := g.RawGetString("string").(*lua.LTable); ok {
		for _, name := range []string{"rep", "upper", "lower", "gsub", "char"} {
			if f := gfn(str, name); f != nil {
				set(str, name, chargeStrings("string."+name, f))
			}
		}
		set(str, "byte", sandboxByte)
		set(str, "format", sandboxFormat)
		set(str, "reverse", sandboxReverse)
		str.RawSetString("dump", lua.LNil)
	}
	if tb, ok := g.RawGetString("table").(*lua.LTable); ok {
		if f := gfn(tb, "concat"); f != nil {
			set(tb, "concat", chargeStrings("table.concat", f))
		}
		if f := gfn(tb, "insert"); f != nil {
			set(tb, "insert", sandboxInsert(f))
		}
	}
	if f := gfn(g, "rawset"); f != nil {
		set(g, "rawset", sandboxRawset(f))
	}
	if co, ok := g.RawGetString("coroutine").(*lua.LTable); ok {
		if f := gfn(co, "create"); f != nil {
			set(co, "create", sandboxCoroutine("coroutine.create", f, false))
		}
		if f := gfn(co, "wrap"); f != nil {
			set(co, "wrap", sandboxCoroutine("coroutine.wrap", f, true))
		}
	}
	if osT, ok := g.RawGetString("os").(*lua.LTable); ok {
		if f := gfn(osT, "date"); f != nil {
			date := chargeStrings("os.date", f)
			set(osT, "date", func(L *lua.LState) int {
				// A conversion writes up to ~12 times its two bytes: a
				// format of megabytes would build a string of hundreds
				// before the meter could see it.
				if s, ok := L.Get(1).(lua.LString); ok && len(s) > maxDateFormat {
					Fail(L, "os.date: a format of "+compatBytes(float64(len(s)))+" bytes is over the sandbox's limit of "+compatBytes(maxDateFormat))
				}
				return date(L)
			})
		}
	}
	set(g, "load", sandboxLoad)
	set(g, "loadstring", sandboxLoadstring)
}

// Charge takes n bytes from the memory meter of the run L is in (nothing
// outside a budget); past the ceiling it ends the run and raises a limit
// error naming what. For Go bindings granted to a sandbox whose results
// grow with their input.
func Charge(L *lua.LState, n int64, what string) { charge(L, n, what) }

// Fail ends the run L is in with a limit error saying msg, raised where L
// is (a plain error outside a budget).
func Fail(L *lua.LState, msg string) {
	if b := budgetOf(L); b != nil {
		b.fail(L, msg)
	}
	L.RaiseError("%s", msg)
}

// CheckSize raises a limit error (ending the run) when a result of n bytes
// would be over the sandbox's string cap, else charges it.
func CheckSize(L *lua.LState, n int64, what string) {
	if limit := int64(maxStringSize(L)); n > limit {
		msg := what + ": result would be " + compatBytes(float64(n)) + " bytes, over the limit of " + formatBytes(limit)
		if b := budgetOf(L); b != nil {
			b.fail(L, msg)
		}
		L.RaiseError("%s", msg)
	}
	charge(L, n, what)
}

// EncodedSize estimates the bytes v takes serialised (JSON, inspect): its
// strings, and a few bytes per other value; a table reached twice counts
// twice, as an encoder writes it twice. It stops counting past limit.
func EncodedSize(v lua.LValue, limit int64) int64 {
	var n int64
	var walk func(v lua.LValue, depth int)
	walk = func(v lua.LValue, depth int) {
		if n > limit {
			return
		}
		switch x := v.(type) {
		case lua.LString:
			n += int64(len(x)) + 2
		case *lua.LTable:
			n += 2
			if depth > 200 { // an encoder refuses deeper nesting (or a cycle)
				return
			}
			x.ForEach(func(k, val lua.LValue) {
				if n > limit {
					return
				}
				walk(k, depth+1)
				walk(val, depth+1)
				n += 2
			})
		default:
			n += 24
		}
	}
	walk(v, 0)
	return n
}
