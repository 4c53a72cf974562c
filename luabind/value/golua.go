package value

import (
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

	lua "github.com/yuin/gopher-lua"

	"github.com/luagent/luagent/runtime/errs"
)

// ToLua converts a Go value for a binding to hand to Lua. nil is LNil at the
// top level and Null inside containers (so lengths and keys survive); bool,
// every int, uint and float kind, string, []byte (as a string), []any,
// []string, map[string]any and map[string]string convert directly, slices and
// maps becoming marked arrays and objects (nil ones too, so Lua code can
// iterate them); json.RawMessage and json.Number are decoded; a lua.LValue
// passes through. Anything else goes through json.Marshal and Decode.
// Integers beyond ±2^53 are an errs.Invalid error rather than rounded.
func ToLua(L *lua.LState, v any) (lua.LValue, error) {
	if v == nil || v == any(lua.LNil) {
		return lua.LNil, nil
	}
	lv, err := toLua(L, v, 0)
	if err != nil {
		return nil, err
	}
	// A top-level null means "no value" to the caller, whatever produced it.
	if lv == Null {
		if _, keep := v.(lua.LValue); !keep {
			return lua.LNil, nil
		}
	}
	return lv, nil
}

func toLuaError(format string, args ...any) error {
	return errs.New(errs.Invalid, "value.ToLua", fmt.Sprintf(format, args...))
}

func intToLua(i int64) (lua.LValue, error) {
	if i < -maxExact || i > maxExact {
		return nil, toLuaError("integer %d is beyond 2^53 and would lose precision; pass it as a string", i)
	}
	if i >= 0 && i < int64(len(smallInts)) {
		return smallInts[i], nil
	}
	return lua.LNumber(i), nil
}

func uintToLua(u uint64) (lua.LValue, error) {
	if u > maxExact {
		return nil, toLuaError("integer %d is beyond 2^53 and would lose precision; pass it as a string", u)
	}
	return intToLua(int64(u))
}

func toLua(L *lua.LState, v any, depth int) (lua.LValue, error) {
	switch v := v.(type) {
	case nil:
		return Null, nil
	case lua.LValue:
		if v == lua.LNil {
			// Inside a container LNil would be a hole; at the top level
			// ToLua turns Null back into LNil.
			return Null, nil
		}
		return v, nil
	case bool:
		return lua.LBool(v), nil
	case string:
		return lua.LString(v), nil
	case []byte:
		return lua.LString(v), nil
	case int:
		return intToLua(int64(v))
	case int8:
		return intToLua(int64(v))
	case int16:
		return intToLua(int64(v))
	case int32:
		return intToLua(int64(v))
	case int64:
		return intToLua(v)
	case uint:
		return uintToLua(uint64(v))
	case uint8:
		return uintToLua(uint64(v))
	case uint16:
		return uintToLua(uint64(v))
	case uint32:
		return uintToLua(uint64(v))
	case uint64:
		return uintToLua(v)
	case uintptr:
		return uintToLua(uint64(v))
	case float64:
		return lua.LNumber(v), nil
	case float32:
		// Via the shortest decimal form, so float32(0.1) is 0.1 in Lua, not
		// 0.10000000149011612.
		var buf [32]byte
		f, err := strconv.ParseFloat(string(strconv.AppendFloat(buf[:0], float64(v), 'g', -1, 32)), 64)
		if err != nil { // ±Inf and NaN do not parse back
			f = float64(v)
		}
		return lua.LNumber(f), nil
	case json.Number:
		return numberToLua(L, v)
	case json.RawMessage:
		if len(v) == 0 {
			return Null, nil
		}
		lv, err := Decode(L, v)
		if err != nil {
			return nil, err
		}
		return lv, nil
	case []any:
		if depth >= MaxDepth {
			return nil, toLuaError("nesting deeper than %d", MaxDepth)
		}
		t := L.CreateTable(len(v), 0)
		for i, x := range v {
			lx, err := toLua(L, x, depth+1)
			if err != nil {
				return nil, err
			}
			t.RawSetInt(i+1, lx)
		}
		return MarkArray(t), nil
	case []string:
		t := L.CreateTable(len(v), 0)
		for i, s := range v {
			t.RawSetInt(i+1, lua.LString(s))
		}
		return MarkArray(t), nil
	case map[string]any:
		if depth >= MaxDepth {
			return nil, toLuaError("nesting deeper than %d", MaxDepth)
		}
		t := L.CreateTable(0, len(v))
		for k, x := range v {
			lx, err := toLua(L, x, depth+1)
			if err != nil {
				return nil, err
			}
			t.RawSetString(k, lx)
		}
		return MarkObject(t), nil
	case map[string]string:
		t := L.CreateTable(0, len(v))
		for k, s := range v {
			t.RawSetString(k, lua.LString(s))
		}
		return MarkObject(t), nil
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return nil, errs.Wrap(errs.Invalid, "value.ToLua", err)
		}
		return Decode(L, b)
	}
}

// numberToLua applies Decode's number rules to a json.Number.
func numberToLua(L *lua.LState, n json.Number) (lua.LValue, error) {
	if n == "" {
		return nil, toLuaError("empty json.Number")
	}
	d := decoder{data: []byte(n), L: L}
	if c := n[0]; c != '-' && (c < '0' || c > '9') {
		return nil, toLuaError("json.Number %q is not a number", string(n))
	}
	lv, err := d.number()
	if err != nil {
		return nil, err
	}
	if d.pos != len(d.data) {
		return nil, toLuaError("json.Number %q is not a number", string(n))
	}
	return lv, nil
}

var walkerPool = sync.Pool{New: func() any { return &walker{op: "json.encode"} }}

// FromLua converts a Lua value to the Go form encoding/json would produce
// for its JSON: nil and Null are nil; booleans bool; numbers int64 when
// integral within ±2^53, else float64; strings string; tables []any or
// map[string]any (never nil, so empty arrays stay arrays) by the same rules,
// and with the same errors, as Encode.
func FromLua(v lua.LValue) (any, error) {
	w := walkerPool.Get().(*walker)
	out, err := w.toGo(v)
	w.reset()
	if w.small() {
		walkerPool.Put(w)
	}
	return out, err
}

func (w *walker) toGo(v lua.LValue) (any, error) {
	switch v := v.(type) {
	case nil, *lua.LNilType:
		return nil, nil
	case lua.LBool:
		return bool(v), nil
	case lua.LNumber:
		f := float64(v)
		if err := w.checkNumber(f); err != nil {
			return nil, err
		}
		if isExactInt(f) {
			return int64(f), nil
		}
		return f, nil
	case lua.LString:
		return string(v), nil
	case *lua.LTable:
		return w.tableToGo(v)
	case *lua.LUserData:
		if v == Null {
			return nil, nil
		}
	}
	return nil, w.unsupported(v)
}

func (w *walker) tableToGo(t *lua.LTable) (any, error) {
	if err := w.enter(t); err != nil {
		return nil, err
	}
	base := len(w.kvs)
	isArray, n, err := w.shape(t, false)
	if err != nil {
		return nil, err
	}
	w.path = append(w.path, pathSeg{})
	seg := len(w.path) - 1
	var out any
	if isArray {
		a := make([]any, n)
		for i := range a {
			w.path[seg].idx = i + 1
			if a[i], err = w.toGo(elem(t, i+1)); err != nil {
				return nil, err
			}
		}
		out = a
	} else {
		n = len(w.kvs) - base
		m := make(map[string]any, n)
		for i := range n {
			kv := w.kvs[base+i] // afresh: nested tables push onto w.kvs
			w.path[seg].key = kv.k
			x, err := w.toGo(kv.v)
			if err != nil {
				return nil, err
			}
			m[kv.k] = x
		}
		clear(w.kvs[base:])
		w.kvs = w.kvs[:base]
		out = m
	}
	w.popPath(seg)
	w.leave()
	return out, nil
}
