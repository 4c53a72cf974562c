package value

import (
	"encoding/json"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

func TestEncode(t *testing.T) {
	L := newState(t)
	tests := []struct {
		lua, want string
	}{
		{`return nil`, `null`},
		{`return null`, `null`},
		{`return true`, `true`},
		{`return false`, `false`},
		{`return 0`, `0`},
		{`return -0.0`, `0`},
		{`return 1`, `1`},
		{`return -1`, `-1`},
		{`return 1.5`, `1.5`},
		{`return 0.1 + 0.2`, `0.30000000000000004`},
		{`return 2^53`, `9007199254740992`},
		{`return -2^53`, `-9007199254740992`},
		{`return 2^53 + 2`, `9.007199254740994e+15`}, // an exponent, so Decode reads it as a float
		{`return 1e16`, `1e+16`},
		{`return -1e20`, `-1e+20`},
		{`return 2^53 + 0.5`, `9007199254740992`}, // rounds to 2^53 in float64
		{`return 2^51 + 0.5`, `2251799813685248.5`},
		{`return 1e21`, `1e+21`},
		{`return 1.5e300`, `1.5e+300`},
		{`return 1e-7`, `1e-7`},
		{`return 0.000001`, `0.000001`},
		{`return -1.25e-10`, `-1.25e-10`},
		{`return 1234567.5`, `1234567.5`},
		{`return ""`, `""`},
		{`return "a\"b\\c\n\r\t\b\f\1\31"`, `"a\"b\\c\n\r\t\b\f\u0001\u001f"`},
		{`return "<>&/'"`, `"<>&/'"`},
		{`return "\127"`, "\"\x7f\""},
		{`return "é😀"`, `"é😀"`},
		{`return "a\255b\192"`, `"a�b�"`},  // invalid UTF-8
		{`return "\237\160\128"`, `"���"`}, // an encoded surrogate is invalid UTF-8
		{`return {}`, `{}`},
		{`return array()`, `[]`},
		{`return array{}`, `[]`},
		{`return object()`, `{}`},
		{`return {1, 2, 3}`, `[1,2,3]`},
		{`return {"a", {"b"}}`, `["a",["b"]]`},
		{`return {b = 1, a = 2}`, `{"a":2,"b":1}`},
		{`return {b = 1, B = 2, a = 3, ["_"] = 4, [""] = 5}`, `{"":5,"B":2,"_":4,"a":3,"b":1}`},
		{`return {1, null, 3}`, `[1,null,3]`},
		{`return {1, null}`, `[1,null]`},
		{`return array{1, null, 3}`, `[1,null,3]`},
		{`return {a = null}`, `{"a":null}`},
		{`return object{[1] = "x", b = 2}`, `{"1":"x","b":2}`},
		{`return object{[10] = 1, [9] = 2, [-1] = 3, [0] = 4}`, `{"-1":3,"0":4,"10":1,"9":2}`},
		{`return object{1, 2}`, `{"1":1,"2":2}`},
		{`return setmetatable({1, 2}, {__index = function() error("called") end})`, `[1,2]`},
		{`return setmetatable({}, {__len = function() return 5 end})`, `{}`},
		{`return setmetatable({x = 1}, {__pairs = function() error("called") end})`, `{"x":1}`},
		{`local s = {1}; return {a = s, b = s, c = {s}}`, `{"a":[1],"b":[1],"c":[[1]]}`},
		{`local t = {}; for i = 1, 100 do t[i] = i end; t[50] = nil; t[50] = 50; return #t`, `100`},
		{`return {a = {b = {c = {d = {e = {}}}}}}`, `{"a":{"b":{"c":{"d":{"e":{}}}}}}`},
		{`return {["a b"] = {["\n"] = 1}}`, `{"a b":{"\n":1}}`},
	}
	for _, tt := range tests {
		v := eval(t, L, tt.lua)
		got, err := Encode(v, EncodeOptions{})
		if err != nil {
			t.Errorf("%s: %v", tt.lua, err)
			continue
		}
		if string(got) != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.lua, got, tt.want)
		}
		if !json.Valid(got) {
			t.Errorf("%s: output %s is not valid JSON", tt.lua, got)
		}
	}
}

func TestEncodeGoNil(t *testing.T) {
	got, err := Encode(nil, EncodeOptions{})
	if err != nil || string(got) != "null" {
		t.Errorf("Encode(nil) = %s, %v", got, err)
	}
}

func TestEncodeErrors(t *testing.T) {
	L := newState(t)
	L.SetGlobal("ud", L.NewUserData())
	L.SetGlobal("ch", lua.LChannel(make(chan lua.LValue)))
	tests := []struct {
		lua, phrase string
	}{
		{`return {a = {1, 0/0}}`, "json.encode: cannot encode NaN at $.a[2]"},
		{`return 0/0`, "json.encode: cannot encode NaN at $"},
		{`return {x = 1/0}`, "cannot encode inf at $.x"},
		{`return {x = {y = -1/0}}`, "cannot encode -inf at $.x.y"},
		{`return {["a b"] = {0/0}}`, `cannot encode NaN at $["a b"][1]`},
		{`return {{}, {{a = {0/0}}}}`, `cannot encode NaN at $[2][1].a[1]`},
		{`return {x = {[1] = 1, [2] = 2, [3] = 3, [7] = 7}}`, "json.encode: sparse array at $.x (keys 1..3 then 7); use json.null for holes"},
		{`return {[1] = 1, [3] = 3}`, "sparse array at $ (key 1 then 3)"},
		{`return {[2] = 1}`, "sparse array at $ (the first key is 2, not 1)"},
		{`return {1, nil, 3}`, "sparse array at $ (key 1 then 3)"},
		{`return array{1, nil, 3}`, "sparse array at $ (key 1 then 3)"},
		{`return {[2^60] = 1}`, "sparse array at $ (the first key is 1152921504606846976, not 1)"},
		{`return {x = {1, a = 2}}`, "json.encode: table at $.x mixes array and object keys"},
		{`return {[1.5] = 1}`, "table at $ has the non-integer key 1.5"},
		{`return {[1/0] = 1}`, "table at $ has the non-integer key +Inf"},
		{`return {[0] = 1}`, "table at $ has the key 0; array keys run 1..n"},
		{`return {[-1] = 1, [1] = 2}`, "table at $ has the key -1"},
		{`return {[true] = 1}`, "table at $ has a boolean key; object keys must be strings"},
		{`return {[{}] = 1}`, "table at $ has a table key"},
		{`return {[print] = 1}`, "table at $ has a function key"},
		{`return array{1, x = 2}`, `array at $ has the string key "x"; json.array tables take keys 1..n only`},
		{`return array{[0] = 1}`, "array at $ has the key 0"},
		{`return object{[1.5] = 1}`, "object at $ has the non-integer key 1.5"},
		{`return object{[2^60] = 1}`, "object at $ has the key 1152921504606846976, beyond 2^53"},
		{`return object{[1] = 1, ["1"] = 2}`, `object at $ has both the string key "1" and the number key 1`},
		{`return object{[true] = 1}`, "object at $ has a boolean key"},
		{`local t = {a = {}}; t.a.b = t; return t`, "json.encode: cycle at $.a.b"},
		{`local t = {}; t[1] = t; return t`, "cycle at $[1]"},
		{`local t = {}; t.x = {y = {z = t}}; return {t}`, "cycle at $[1].x.y.z"},
		{`return {f = print}`, "json.encode: cannot encode a function at $.f"},
		{`return {1, 2, function() end}`, "cannot encode a function at $[3]"},
		{`return {u = ud}`, "cannot encode a userdata at $.u"},
		{`return {co = coroutine.create(function() end)}`, "cannot encode a thread at $.co"},
		{`return {c = ch}`, "cannot encode a channel at $.c"},
	}
	for _, tt := range tests {
		v := eval(t, L, tt.lua)
		got, err := Encode(v, EncodeOptions{})
		if err == nil {
			t.Errorf("%s = %s, want an error", tt.lua, got)
			continue
		}
		t.Run("", func(t *testing.T) { wantInvalid(t, err, tt.phrase) })
		// FromLua follows the same rules and says the same.
		_, err = FromLua(v)
		t.Run("FromLua", func(t *testing.T) { wantInvalid(t, err, tt.phrase) })
	}
}

func nest(depth int) *lua.LTable {
	root := &lua.LTable{Metatable: lua.LNil}
	t := root
	for i := 1; i < depth; i++ {
		c := &lua.LTable{Metatable: lua.LNil}
		t.RawSetInt(1, c)
		t = c
	}
	return root
}

func TestEncodeDepth(t *testing.T) {
	out, err := Encode(nest(MaxDepth), EncodeOptions{})
	if err != nil {
		t.Fatalf("depth %d: %v", MaxDepth, err)
	}
	// The innermost table is empty, so an object.
	want := strings.Repeat("[", MaxDepth-1) + "{}" + strings.Repeat("]", MaxDepth-1)
	if string(out) != want {
		t.Errorf("depth %d: got %.40s…", MaxDepth, out)
	}
	_, err = Encode(nest(MaxDepth+1), EncodeOptions{})
	wantInvalid(t, err, "nesting deeper than 512 at $"+strings.Repeat("[1]", MaxDepth))
	_, err = FromLua(nest(MaxDepth + 1))
	wantInvalid(t, err, "nesting deeper than 512")
}

func TestEncodeLargeIndex(t *testing.T) {
	// Keys from lua.MaxArrayIndex up live in the hash part.
	old := lua.MaxArrayIndex
	lua.MaxArrayIndex = 4
	defer func() { lua.MaxArrayIndex = old }()
	tb := &lua.LTable{Metatable: lua.LNil}
	for i := 1; i <= 6; i++ {
		tb.RawSetInt(i, lua.LNumber(i))
	}
	out, err := Encode(tb, EncodeOptions{})
	if err != nil || string(out) != "[1,2,3,4,5,6]" {
		t.Errorf("got %s, %v", out, err)
	}
	// Lowered after the array part grew: the ForEach fallback.
	lua.MaxArrayIndex = old
	tb = &lua.LTable{Metatable: lua.LNil}
	for i := 1; i <= 6; i++ {
		tb.RawSetInt(i, lua.LNumber(i))
	}
	tb.RawSetInt(8, lua.LNumber(8))
	lua.MaxArrayIndex = 2
	out, err = Encode(tb, EncodeOptions{})
	wantInvalid(t, err, "sparse array at $ (keys 1..6 then 8)")
	lua.MaxArrayIndex = old
	tb.RawSetInt(8, lua.LNil)
	lua.MaxArrayIndex = 2
	out, err = Encode(tb, EncodeOptions{})
	if err != nil || string(out) != "[1,2,3,4,5,6]" {
		t.Errorf("fallback: got %s, %v", out, err)
	}
	tb.RawSetString("x", lua.LTrue)
	_, err = Encode(MarkObject(tb), EncodeOptions{})
	if err != nil {
		t.Errorf("fallback object: %v", err)
	}
}

func TestEncodePretty(t *testing.T) {
	L := newState(t)
	v := eval(t, L, `return {a = array{1, 2}, b = object(), c = "x", d = array(), e = {f = true, g = {null}}}`)
	got, err := Encode(v, EncodeOptions{Indent: "  "})
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "a": [
    1,
    2
  ],
  "b": {},
  "c": "x",
  "d": [],
  "e": {
    "f": true,
    "g": [
      null
    ]
  }
}`
	if string(got) != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	// Same layout as encoding/json.
	goV, err := FromLua(v)
	if err != nil {
		t.Fatal(err)
	}
	std, _ := json.MarshalIndent(goV, "", "  ")
	if string(std) != want {
		t.Errorf("encoding/json says:\n%s", std)
	}
	got, _ = Encode(eval(t, L, `return {1, {}}`), EncodeOptions{Indent: "\t"})
	if want := "[\n\t1,\n\t{}\n]"; string(got) != want {
		t.Errorf("tab indent: got %q, want %q", got, want)
	}
}

func TestAppendJSON(t *testing.T) {
	L := newState(t)
	dst := []byte("x=")
	got, err := AppendJSON(dst, eval(t, L, `return {a = 1}`), EncodeOptions{})
	if err != nil || string(got) != `x={"a":1}` {
		t.Errorf("got %s, %v", got, err)
	}
	got, err = AppendJSON([]byte("x="), eval(t, L, `return {a = 0/0}`), EncodeOptions{})
	wantInvalid(t, err, "cannot encode NaN at $.a")
	if string(got) != "x=" {
		t.Errorf("on error dst = %q, want it unchanged", got)
	}
}

// TestEncodeMatchesStdlib checks strings against encoding/json, which
// differs only in escaping <, >, & and U+2028/9.
func TestEncodeMatchesStdlib(t *testing.T) {
	for _, s := range []string{"", "abc", "\x00\x1f\x7f", "\"\\/", "é😀", "\xff", "a\xc3", "\xed\xa0\x80", "\u2028"} {
		got, err := Encode(lua.LString(s), EncodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("%q: %s: %v", s, got, err)
		}
		std, _ := json.Marshal(s)
		var stdBack string
		_ = json.Unmarshal(std, &stdBack)
		if back != stdBack {
			t.Errorf("%q: we give %q, encoding/json %q", s, back, stdBack)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	L := newState(t)
	tests := []struct{ in, want string }{
		{`[]`, `[]`},
		{`{}`, `{}`},
		{`[1,null,3]`, `[1,null,3]`},
		{`[1,null]`, `[1,null]`},
		{`[null]`, `[null]`},
		{`{"a":null}`, `{"a":null}`},
		{`null`, `null`},
		{`[[],{},[[]],{"a":{}}]`, `[[],{},[[]],{"a":{}}]`},
		{`{"b":{"d":[1,2,{"e":[]}],"c":"x"},"a":true}`, `{"a":true,"b":{"c":"x","d":[1,2,{"e":[]}]}}`},
		{`{"1":"a","2":"b"}`, `{"1":"a","2":"b"}`}, // string keys that look like indices stay an object
		{`9007199254740992`, `9007199254740992`},
		{`-9007199254740992`, `-9007199254740992`},
		{`[0.5,-0,1E2,1e-7,1.0]`, `[0.5,0,100,1e-7,1]`},
		{`"\u00e9\ud83d\ude00\ud800"`, `"é😀�"`},
		{`"\u0000\u001f\u2028"`, "\"\\u0000\\u001f\u2028\""},
		{"\"\xff\"", `"�"`},
		{` { "a" : [ 1 , 2 ] } `, `{"a":[1,2]}`},
	}
	for _, tt := range tests {
		v, err := Decode(L, []byte(tt.in))
		if err != nil {
			t.Errorf("Decode(%s): %v", tt.in, err)
			continue
		}
		got, err := Encode(v, EncodeOptions{})
		if err != nil {
			t.Errorf("Encode(Decode(%s)): %v", tt.in, err)
			continue
		}
		if string(got) != tt.want {
			t.Errorf("round trip %s:\n got %s\nwant %s", tt.in, got, tt.want)
		}
	}
}
