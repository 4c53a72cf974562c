package value

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

func TestToLua(t *testing.T) {
	L := newState(t)
	type point struct {
		X int    `json:"x"`
		Y string `json:"y,omitempty"`
	}
	var nilPoint *point
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"nil", nil, "nil"},
		{"true", true, "true"},
		{"int", 42, "42"},
		{"int8", int8(-8), "-8"},
		{"int16", int16(1000), "1000"},
		{"int32", int32(-1 << 31), "-2.147483648e+09"},
		{"int64 2^53", int64(1 << 53), "9.007199254740992e+15"},
		{"uint", uint(7), "7"},
		{"uint8", uint8(255), "255"},
		{"uint16", uint16(65535), "65535"},
		{"uint32", uint32(1<<32 - 1), "4.294967295e+09"},
		{"uint64", uint64(1 << 53), "9.007199254740992e+15"},
		{"uintptr", uintptr(9), "9"},
		{"float64", 1.5, "1.5"},
		{"float32", float32(0.1), "0.1"},
		{"float32 inf", float32(math.Inf(1)), "+Inf"},
		{"string", "hé", `"hé"`},
		{"bytes", []byte("raw\xff"), `"raw\xff"`},
		{"json.Number int", json.Number("12"), "12"},
		{"json.Number float", json.Number("-1.5e2"), "-150"},
		{"RawMessage", json.RawMessage(`{"a":[],"b":null}`), `O{"a":A[],"b":null}`},
		{"RawMessage null", json.RawMessage(`null`), "nil"},
		{"RawMessage empty", json.RawMessage(nil), "nil"},
		{"[]any", []any{1, nil, "x", []any{}, map[string]any{}}, `A[1,null,"x",A[],O{}]`},
		{"[]any nil", []any(nil), `A[]`},
		{"[]any trailing nil", []any{1, nil}, `A[1,null]`},
		{"map", map[string]any{"a": nil, "b": []any{true}}, `O{"a":null,"b":A[true]}`},
		{"[]string", []string{"a", "b"}, `A["a","b"]`},
		{"map[string]string", map[string]string{"k": "v"}, `O{"k":"v"}`},
		{"LValue", lua.LString("s"), `"s"`},
		{"LNil", lua.LNil, "nil"},
		{"Null", Null, "null"}, // passed through: the caller asked for it
		{"LNil in container", []any{lua.LNil, 1}, `A[null,1]`},
		{"LValue in container", []any{lua.LNumber(2)}, `A[2]`},
		{"struct", point{X: 1}, `O{"x":1}`},
		{"struct slice", []point{{X: 1, Y: "a"}}, `A[O{"x":1,"y":"a"}]`},
		{"nil pointer", nilPoint, "nil"},
		{"nested nil pointer", []any{nilPoint}, `A[null]`},
		{"map[string]int", map[string]int{"n": 3}, `O{"n":3}`},
	}
	for _, tt := range tests {
		v, err := ToLua(L, tt.in)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if got := dump(v); got != tt.want {
			t.Errorf("%s: got %s, want %s", tt.name, got, tt.want)
		}
	}
}

func TestToLuaErrors(t *testing.T) {
	L := newState(t)
	loop := []any{nil}
	loop[0] = loop
	tests := []struct {
		name   string
		in     any
		phrase string
	}{
		{"int64", int64(1<<53 + 1), "integer 9007199254740993 is beyond 2^53"},
		{"int64 min", int64(math.MinInt64), "is beyond 2^53"},
		{"uint64", uint64(math.MaxUint64), "integer 18446744073709551615 is beyond 2^53"},
		{"nested int", map[string]any{"a": []any{int64(1 << 60)}}, "beyond 2^53"},
		{"json.Number big", json.Number("9007199254740993"), "beyond 2^53"},
		{"json.Number junk", json.Number("12abc"), `json.Number "12abc" is not a number`},
		{"json.Number word", json.Number("abc"), `json.Number "abc" is not a number`},
		{"json.Number empty", json.Number(""), "empty json.Number"},
		{"RawMessage", json.RawMessage(`{"a":`), "expected a value at offset 5"},
		{"unmarshalable", make(chan int), "json: unsupported type"},
		{"cycle", loop, "nesting deeper than 512"},
	}
	for _, tt := range tests {
		v, err := ToLua(L, tt.in)
		if err == nil {
			t.Errorf("%s: got %s, want an error", tt.name, dump(v))
			continue
		}
		t.Run(tt.name, func(t *testing.T) { wantInvalid(t, err, tt.phrase) })
	}
}

func TestFromLua(t *testing.T) {
	L := newState(t)
	tests := []struct {
		lua  string
		want any
	}{
		{`return nil`, nil},
		{`return null`, nil},
		{`return true`, true},
		{`return 3`, int64(3)},
		{`return -2^53`, int64(-1 << 53)},
		{`return 2^53 + 2`, float64(1<<53 + 2)},
		{`return 1.5`, 1.5},
		{`return "s\255"`, "s\xff"},
		{`return {}`, map[string]any{}},
		{`return array()`, []any{}},
		{`return object()`, map[string]any{}},
		{`return {1, null, "x"}`, []any{int64(1), nil, "x"}},
		{`return {a = {b = array()}, c = null}`, map[string]any{"a": map[string]any{"b": []any{}}, "c": nil}},
		{`return object{[1] = true}`, map[string]any{"1": true}},
		{`local s = {1}; return {s, s}`, []any{[]any{int64(1)}, []any{int64(1)}}},
	}
	for _, tt := range tests {
		got, err := FromLua(eval(t, L, tt.lua))
		if err != nil {
			t.Errorf("%s: %v", tt.lua, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %#v, want %#v", tt.lua, got, tt.want)
		}
	}
}

// TestFromLuaMatchesEncode checks that json.Marshal(FromLua(v)) is
// Encode(v): the two paths agree on every shape.
func TestFromLuaMatchesEncode(t *testing.T) {
	L := newState(t)
	for _, src := range []string{
		`return {a = {1, 2.5, null, "x<y>"}, b = {}, c = array(), d = object{[3] = false}}`,
		`return {{}, {{}}, "é"}`,
		`return 1e300`,
	} {
		v := eval(t, L, src)
		enc, err := Encode(v, EncodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		g, err := FromLua(v)
		if err != nil {
			t.Fatal(err)
		}
		var std []byte
		buf := &jsonBuf{}
		e := json.NewEncoder(buf)
		e.SetEscapeHTML(false)
		if err := e.Encode(g); err != nil {
			t.Fatal(err)
		}
		std = buf.b[:len(buf.b)-1] // Encoder adds a newline
		if string(std) != string(enc) {
			t.Errorf("%s:\nEncode  %s\nFromLua %s", src, enc, std)
		}
	}
}

type jsonBuf struct{ b []byte }

func (w *jsonBuf) Write(p []byte) (int, error) { w.b = append(w.b, p...); return len(p), nil }

// TestToLuaFromLua round-trips Go values.
func TestToLuaFromLua(t *testing.T) {
	L := newState(t)
	in := map[string]any{"a": []any{int64(1), nil, "x", 2.5}, "b": map[string]any{}, "c": []any{}}
	lv, err := ToLua(L, in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := FromLua(lv)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Errorf("got %#v, want %#v", out, in)
	}
}
