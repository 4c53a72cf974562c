package jsonscan

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestMembers(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string // key=value pairs; nil when not an object
	}{
		{`{}`, []string{}},
		{` { "a" : 1 , "b":"x\"}" ,"c":{"d":[1,{"e":"]"}]},"f":null} `, []string{`"a"=1`, `"b"="x\"}"`, `"c"={"d":[1,{"e":"]"}]}`, `"f"=null`}},
		{`{"a\u0022b":true}`, []string{`"a\u0022b"=true`}},
		{`[1,2]`, nil},
		{`"x"`, nil},
		{``, nil},
		{`{"a":`, nil},
		{`{"a":"unterminated}`, nil},
		{`{"a":[1,2}`, nil},
		{`{1:2}`, nil},
		{`{"a" 1}`, nil},
	} {
		var got []string
		ok := Members([]byte(tc.in), func(k, v []byte) bool {
			got = append(got, string(k)+"="+string(v))
			return true
		})
		if tc.want == nil {
			if ok {
				t.Errorf("%q: scanned as an object: %q", tc.in, got)
			}
			continue
		}
		if !ok || len(got) != len(tc.want) {
			t.Errorf("%q: ok=%v got %q, want %q", tc.in, ok, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%q: member %d = %s, want %s", tc.in, i, got[i], tc.want[i])
			}
		}
	}
}

func TestMemberAndStop(t *testing.T) {
	raw := []byte(`{"_meta":{"progressToken":7},"name":"echo","name":"last"}`)
	if v := Member(raw, "_meta"); string(v) != `{"progressToken":7}` {
		t.Errorf("_meta = %s", v)
	}
	if v := Member(raw, "name"); string(v) != `"last"` {
		t.Errorf("duplicate key: %s, want the last", v)
	}
	if v := Member(raw, "progressToken"); v != nil {
		t.Errorf("a nested member was found at the top: %s", v)
	}
	n := 0
	Members(raw, func(k, v []byte) bool { n++; return false })
	if n != 1 {
		t.Errorf("f returned false but was called %d times", n)
	}
}

func TestUnquoteSimple(t *testing.T) {
	for in, want := range map[string]string{`"echo"`: "echo", `""`: ""} {
		if got, ok := UnquoteSimple([]byte(in)); !ok || got != want {
			t.Errorf("%s: %q %v", in, got, ok)
		}
	}
	for _, in := range []string{`"a\nb"`, `12`, `"`, ``} {
		if _, ok := UnquoteSimple([]byte(in)); ok {
			t.Errorf("%s: unquoted without decoding", in)
		}
	}
}

// On any input: no panic; on a valid JSON object, the same members as
// encoding/json.
func FuzzMembers(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1,"b":[{"c":"}"}]}`, `{"a":"\\\""}`, `[1]`, `{"a":`, `{"a":tru`, ` {"x" : null } `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got := map[string]string{}
		ok := Members(b, func(k, v []byte) bool {
			var key string
			if json.Unmarshal(k, &key) == nil {
				got[key] = string(v)
			}
			return true
		})
		SkipValue(b, 0)
		Member(b, "a")
		var want map[string]json.RawMessage
		if !json.Valid(b) || json.Unmarshal(b, &want) != nil || want == nil {
			return
		}
		if !ok {
			t.Fatalf("a valid object was not scanned: %q", b)
		}
		if len(got) != len(want) {
			t.Fatalf("%q: %d members, encoding/json %d", b, len(got), len(want))
		}
		for k, v := range want {
			if !bytes.Equal(bytes.TrimSpace([]byte(got[k])), bytes.TrimSpace(v)) {
				t.Fatalf("%q: member %q = %s, encoding/json %s", b, k, got[k], v)
			}
		}
	})
}
