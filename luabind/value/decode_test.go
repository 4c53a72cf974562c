package value

import (
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

func TestDecode(t *testing.T) {
	L := newState(t)
	tests := []struct {
		in, want string
	}{
		{`[]`, `A[]`},
		{`{}`, `O{}`},
		{`null`, `null`},
		{`true`, `true`},
		{`false`, `false`},
		{` 	
 1 `, `1`},
		{`0`, `0`},
		{`-0`, `0`},
		{`-17`, `-17`},
		{`255`, `255`},
		{`256`, `256`},
		{`1.5`, `1.5`},
		{`-1e3`, `-1000`},
		{`1E+2`, `100`},
		{`2.5e-3`, `0.0025`},
		{`0.1`, `0.1`},
		{`1e-400`, `0`}, // underflow rounds to zero
		{`9007199254740992`, `9.007199254740992e+15`},
		{`-9007199254740992`, `-9.007199254740992e+15`},
		{`9007199254740993.0`, `9.007199254740992e+15`}, // a float literal: rounding is the sender's choice
		{`[1,null,3]`, `A[1,null,3]`},
		{`[1,null]`, `A[1,null]`},
		{`[null]`, `A[null]`},
		{`{"a":null}`, `O{"a":null}`},
		{`{"a":1,"a":2}`, `O{"a":2}`}, // last wins
		{`{"":1}`, `O{"":1}`},
		{`{"a":[{"b":[]},{}],"c":{"d":[null,true,"x"]}}`, `O{"a":A[O{"b":A[]},O{}],"c":O{"d":A[null,true,"x"]}}`},
		{` [ 1 , 2 ] `, `A[1,2]`},
		{`""`, `""`},
		{`"plain"`, `"plain"`},
		{`"a\"b\\c\/d\b\f\n\r\t"`, `"a\"b\\c/d\b\f\n\r\t"`},
		{`"\u00e9\u00E9"`, `"éé"`},
		{`"\u0000"`, `"\x00"`},
		{`"\ud83d\ude00"`, `"😀"`},
		{`"\uD83D\uDE00x"`, `"😀x"`},
		{`"\ud800"`, `"�"`},              // lone high surrogate
		{`"\udc00x"`, `"�x"`},            // lone low surrogate
		{`"\ud800\u0041"`, `"�A"`},       // high then not-low: both kept apart
		{`"\ud800\ud800\udc00"`, `"�𐀀"`}, // high, then a real pair
		{"\"é\"", `"é"`},
		{"\"\xff\xfe\"", `"\xff\xfe"`}, // invalid UTF-8 kept as is
		{`"<>&"`, `"<>&"`},
	}
	for _, tt := range tests {
		v, err := Decode(L, []byte(tt.in))
		if err != nil {
			t.Errorf("Decode(%q): %v", tt.in, err)
			continue
		}
		if got := dump(v); got != tt.want {
			t.Errorf("Decode(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestDecodeLengthsAndNull(t *testing.T) {
	L := newState(t)
	v, err := Decode(L, []byte(`[1,null,3]`))
	if err != nil {
		t.Fatal(err)
	}
	if n := v.(*lua.LTable).Len(); n != 3 {
		t.Errorf("#[1,null,3] = %d, want 3", n)
	}
	v, _ = Decode(L, []byte(`[1,null]`))
	if n := v.(*lua.LTable).Len(); n != 2 {
		t.Errorf("#[1,null] = %d, want 2", n)
	}
	v, _ = Decode(L, []byte(`{"a":null}`))
	if a := v.(*lua.LTable).RawGetString("a"); !IsNull(a) {
		t.Errorf(`{"a":null}.a = %v, want Null`, a)
	}
	v, _ = Decode(L, []byte(`null`))
	if !IsNull(v) {
		t.Errorf("null = %v, want Null", v)
	}
}

func TestDecodeErrors(t *testing.T) {
	L := newState(t)
	tests := []struct {
		in, phrase string
	}{
		{``, "expected a value at offset 0, found end of input"},
		{`   `, "expected a value at offset 3"},
		{`[1,2`, "expected ',' or ']' after array element at offset 4, found end of input (array opened at offset 0)"},
		{`[1 2]`, "expected ',' or ']' after array element at offset 3, found '2'"},
		{`[1,]`, "expected a value at offset 3, found ']'"},
		{`[`, "expected a value at offset 1"},
		{`{"a":1 "b":2}`, "expected ',' or '}' after object member at offset 7"},
		{`{"a":1,"b":{"c":2}`, "expected ',' or '}' after object member at offset 18, found end of input (object opened at offset 0)"},
		{`{"a" 1}`, "expected ':' after object key at offset 5, found '1'"},
		{`{"a"`, "expected ':' after object key at offset 4, found end of input"},
		{`{"a":}`, "expected a value at offset 5"},
		{`{"a":1,}`, "expected a string key at offset 7, found '}'"},
		{`{a:1}`, "expected a string key at offset 1, found 'a'"},
		{`{`, "expected a string key at offset 1, found end of input"},
		{`"abc`, "unterminated string at offset 4 (string opened at offset 0)"},
		{`"a\`, "unterminated string at offset 3"},
		{`["a\"]`, "unterminated string at offset 6"},
		{`"a\x"`, `invalid escape '\x' in string at offset 2`},
		{`"\u12"`, `invalid \u escape in string at offset 1`},
		{`"\u12g4"`, `invalid \u escape`},
		{"\"a\nb\"", "control character 0x0a in string at offset 2; escape it"},
		{"\"a\\n\tb\"", "control character 0x09 in string at offset 4"},
		{`tru`, "invalid literal at offset 0; expected true"},
		{`nul`, "invalid literal at offset 0; expected null"},
		{`[nulL]`, "invalid literal at offset 1; expected null"},
		{`fals`, "expected false"},
		{`truex`, "expected end of input after the value at offset 4, found 'x'"},
		{`[1] x`, "expected end of input after the value at offset 4, found 'x'"},
		{`1 2`, "expected end of input after the value at offset 2"},
		{"{}\x00", "found byte 0x00"},
		{`01`, "leading zero in number at offset 0"},
		{`[-01]`, "leading zero in number at offset 1"},
		{`-`, "expected a digit at offset 1, found end of input"},
		{`-a`, "expected a digit at offset 1, found 'a'"},
		{`1.`, "expected a digit after '.' at offset 2"},
		{`1.e5`, "expected a digit after '.' at offset 2"},
		{`1e`, "expected a digit in exponent at offset 2"},
		{`1e+`, "expected a digit in exponent at offset 3"},
		{`.5`, "expected a value at offset 0, found '.'"},
		{`+1`, "expected a value at offset 0, found '+'"},
		{`NaN`, "expected a value at offset 0, found 'N'"},
		{`Infinity`, "expected a value at offset 0"},
		{`1e400`, "number 1e400 at offset 0 is out of range"},
		{`-1e400`, "number -1e400 at offset 0 is out of range"},
		{`{"a":9007199254740993}`, "json.decode: integer 9007199254740993 at offset 5 is beyond 2^53 and would lose precision; send it as a string"},
		{`-9007199254740993`, "integer -9007199254740993 at offset 0 is beyond 2^53"},
		{`123456789012345678901234567890`, "integer 123456789012345678901234567890 at offset 0 is beyond 2^53"},
		{strings.Repeat("[", MaxDepth+1), "nesting deeper than 512 at offset 512"},
		{strings.Repeat(`{"a":`, MaxDepth+1), "nesting deeper than 512"},
		{strings.Repeat("[", 100000), "nesting deeper than 512"},
	}
	for _, tt := range tests {
		v, err := Decode(L, []byte(tt.in))
		if err == nil {
			t.Errorf("Decode(%.40q) = %s, want an error", tt.in, dump(v))
			continue
		}
		t.Run("", func(t *testing.T) { wantInvalid(t, err, tt.phrase) })
	}
}

func TestDecodeMaxDepth(t *testing.T) {
	L := newState(t)
	in := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	v, err := Decode(L, []byte(in))
	if err != nil {
		t.Fatalf("depth %d: %v", MaxDepth, err)
	}
	out, err := Encode(v, EncodeOptions{})
	if err != nil {
		t.Fatalf("encode depth %d: %v", MaxDepth, err)
	}
	if string(out) != in {
		t.Errorf("round trip of depth %d differs", MaxDepth)
	}
}

// TestDecodeReusesNothing checks that a decoder's pooled stacks do not leak
// values from one call into the next, including after an error.
func TestDecodeAfterError(t *testing.T) {
	L := newState(t)
	if _, err := Decode(L, []byte(`[1,2,{"a":[3,4,`)); err == nil {
		t.Fatal("want an error")
	}
	v, err := Decode(L, []byte(`{"b":[5]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := dump(v); got != `O{"b":A[5]}` {
		t.Errorf("got %s", got)
	}
}
