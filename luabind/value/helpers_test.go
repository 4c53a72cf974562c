package value

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/luagent/luagent/runtime/errs"
)

// newState returns a state with the base library and the json helpers the
// Lua snippets in the tests use: null, array{} and object{}.
func newState(t testing.TB) *lua.LState {
	t.Helper()
	L := lua.NewState()
	t.Cleanup(L.Close)
	L.SetGlobal("null", Null)
	L.SetGlobal("array", L.NewFunction(func(L *lua.LState) int {
		L.Push(MarkArray(L.OptTable(1, L.NewTable())))
		return 1
	}))
	L.SetGlobal("object", L.NewFunction(func(L *lua.LState) int {
		L.Push(MarkObject(L.OptTable(1, L.NewTable())))
		return 1
	}))
	return L
}

// eval runs a chunk that returns one value.
func eval(t testing.TB, L *lua.LState, src string) lua.LValue {
	t.Helper()
	if err := L.DoString(src); err != nil {
		t.Fatalf("lua %q: %v", src, err)
	}
	v := L.Get(-1)
	L.Pop(1)
	return v
}

// dump renders a Lua value with its markers so tests can see them:
// A[...] is a marked array, O{...} a marked object, T{...} an unmarked
// table, null is Null and nil is LNil.
func dump(v lua.LValue) string {
	var b strings.Builder
	dumpTo(&b, v)
	return b.String()
}

func dumpTo(b *strings.Builder, v lua.LValue) {
	switch v := v.(type) {
	case nil:
		b.WriteString("<go nil>")
	case *lua.LNilType:
		b.WriteString("nil")
	case lua.LString:
		b.WriteString(strconv.Quote(string(v)))
	case lua.LNumber:
		b.WriteString(strconv.FormatFloat(float64(v), 'g', -1, 64))
	case *lua.LUserData:
		if v == Null {
			b.WriteString("null")
		} else {
			b.WriteString("userdata")
		}
	case *lua.LTable:
		prefix := "T"
		switch {
		case IsArray(v):
			prefix = "A"
		case IsObject(v):
			prefix = "O"
		}
		b.WriteString(prefix)
		if IsArray(v) {
			b.WriteByte('[')
			for i := 1; i <= v.MaxN(); i++ {
				if i > 1 {
					b.WriteByte(',')
				}
				dumpTo(b, v.RawGetInt(i))
			}
			b.WriteByte(']')
			return
		}
		type kv struct {
			k string
			v lua.LValue
		}
		var kvs []kv
		v.ForEach(func(k, x lua.LValue) { kvs = append(kvs, kv{dump(k), x}) })
		slices.SortFunc(kvs, func(a, b kv) int { return strings.Compare(a.k, b.k) })
		b.WriteByte('{')
		for i, e := range kvs {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(e.k)
			b.WriteByte(':')
			dumpTo(b, e.v)
		}
		b.WriteByte('}')
	default:
		b.WriteString(v.String())
	}
}

// wantInvalid checks that err is an errs.Invalid error containing phrase.
func wantInvalid(t *testing.T, err error, phrase string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want one containing %q", phrase)
	}
	if k := errs.KindOf(err); k != errs.Invalid {
		t.Errorf("kind = %v, want invalid (%v)", k, err)
	}
	if !strings.Contains(err.Error(), phrase) {
		t.Errorf("error %q does not contain %q", err, phrase)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("error %q is not one line", err)
	}
}
