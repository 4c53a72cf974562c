package jsonscan

import (
	"bytes"
	"encoding/json"
	"strings"
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

func TestObject(t *testing.T) {
	raw := []byte(` {"a":{"b":1,"c":[2]},"d":"x"} tail`)
	var keys []string
	end := Object(raw, 0, func(k []byte, at int) int {
		keys = append(keys, string(k))
		if string(k) == `"a"` {
			// Read inside the value, as Decode reads params.
			return Object(raw, at, func(k []byte, at int) int {
				keys = append(keys, "a."+string(k))
				return SkipValue(raw, at)
			})
		}
		return SkipValue(raw, at)
	})
	if want := `"a" a."b" a."c" "d"`; strings.Join(keys, " ") != want || string(raw[end:]) != " tail" {
		t.Errorf("keys %q, end %d; want %s and the end before tail", keys, end, want)
	}
	for _, in := range []string{`[1]`, `{"a":1`, `{"a" 1}`, ``, `{"a":}`} {
		if end := Object([]byte(in), 0, func(k []byte, at int) int { return SkipValue([]byte(in), at) }); end >= 0 {
			t.Errorf("%q: Object ended at %d", in, end)
		}
	}
	if end := Object([]byte(`{"a":1,"b":2}`), 0, func(k []byte, at int) int { return -1 }); end >= 0 {
		t.Errorf("f gave up, Object went on to %d", end)
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
	if v := Member([]byte(`{"n\u0061me":"escaped","nam":1}`), "name"); string(v) != `"escaped"` {
		t.Errorf("escaped key: %s, want the member a parser reads as name", v)
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
		// Object sees what Members sees, and ends where the object does.
		var viaObject []string
		end := Object(b, 0, func(k []byte, at int) int {
			e := SkipValue(b, at)
			if e >= 0 {
				viaObject = append(viaObject, string(k)+"="+string(b[at:e]))
			}
			return e
		})
		var viaMembers []string
		Members(b, func(k, v []byte) bool { viaMembers = append(viaMembers, string(k)+"="+string(v)); return true })
		if ok != (end >= 0) || (ok && strings.Join(viaObject, "\x00") != strings.Join(viaMembers, "\x00")) {
			t.Fatalf("%q: Object %d %q, Members %v %q", b, end, viaObject, ok, viaMembers)
		}
		if end >= 0 && len(bytes.TrimSpace(b[end:])) > 0 && json.Valid(b) {
			t.Fatalf("%q: Object ended at %d, before the end", b, end)
		}
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

// MembersOf finds in one pass what Member finds name by name: duplicates
// (the last wins), escaped keys, absent names.
func TestMembersOf(t *testing.T) {
	for _, raw := range []string{
		`{"_meta":{"progressToken":7},"name":"echo","name":"last","n\u0061me2":1}`,
		`{"a":1,"b":[2,{"a":3}],"a":"x"}`,
		`{}`,
		`[1]`,
		`{"a":`,
	} {
		names := []string{"name", "_meta", "name2", "a", "b", "progressToken"}
		vals := make([][]byte, len(names))
		vals[0] = []byte("stale")
		MembersOf([]byte(raw), names, vals)
		for i, n := range names {
			if want := Member([]byte(raw), n); !bytes.Equal(vals[i], want) || (vals[i] == nil) != (want == nil) {
				t.Errorf("%s: %s = %s, Member gives %s", raw, n, vals[i], want)
			}
		}
	}
}

func TestSimpleString(t *testing.T) {
	for _, in := range []string{`"echo"`, `""`, `"a\nb"`, `12`, `"`, ``, "\"\xff\"", `"é"`} {
		b, ok := SimpleString([]byte(in))
		s, ok2 := UnquoteSimple([]byte(in))
		if ok != ok2 || string(b) != s {
			t.Errorf("%q: SimpleString %q %v, UnquoteSimple %q %v", in, b, ok, s, ok2)
		}
	}
	raw := []byte(`"tools/call"`)
	if n := testing.AllocsPerRun(100, func() { SimpleString(raw) }); n != 0 {
		t.Errorf("SimpleString allocates %v times", n)
	}
}
