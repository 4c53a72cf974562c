package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// AppendString writes what json.Marshal writes for a string, byte for byte:
// the messages it builds must be JSON to every peer (strconv.Quote's \x01
// and \xd0 are not).
func TestAppendString(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", `""`},
		{"tools/call", `"tools/call"`},
		{"a\u0001b", `"a\u0001b"`},
		{"\xd0", `"\ufffd"`},
		{"a\"b\\c", `"a\"b\\c"`},
		{"line\nfeed\ttab\rcr", `"line\nfeed\ttab\rcr"`},
		{"\b\f\x7f", `"\b\f` + "\x7f" + `"`},
		{"<a & b>", `"\u003ca \u0026 b\u003e"`},
		{"é ✓ 😀", `"é ✓ 😀"`},
		{"\u2028\u2029", `"\u2028\u2029"`},
		{"ok\xff\xfe", `"ok\ufffd\ufffd"`},
	} {
		got := string(AppendString([]byte("x"), tc.in))
		if got != "x"+tc.want {
			t.Errorf("AppendString(%q) = %s, want %s", tc.in, got[1:], tc.want)
		}
		if q := Quote(tc.in); q != tc.want {
			t.Errorf("Quote(%q) = %s, want %s", tc.in, q, tc.want)
		}
		if m, _ := json.Marshal(tc.in); string(m) != tc.want {
			t.Errorf("the table is wrong for %q: json.Marshal gives %s", tc.in, m)
		}
	}
	// Every single byte, and every rune class boundary.
	for c := 0; c < 256; c++ {
		s := "a" + string([]byte{byte(c)}) + "z"
		checkString(t, s)
	}
	for _, r := range []rune{0x7f, 0x80, 0x7ff, 0x800, 0xfffd, 0xffff, 0x10000, 0x10ffff, utf8.RuneError} {
		checkString(t, string(r))
	}
}

func checkString(t *testing.T, s string) {
	t.Helper()
	want, _ := json.Marshal(s)
	if got := AppendString(nil, s); string(got) != string(want) {
		t.Fatalf("AppendString(%q) = %s, json.Marshal %s", s, got, want)
	}
}

func TestUnquoteSimpleInvalidUTF8(t *testing.T) {
	// A raw invalid byte is U+FFFD to a JSON decoder: the fast path must
	// not hand it on as it is.
	if s, ok := UnquoteSimple([]byte("\"\xd0\"")); ok {
		t.Errorf("unquoted %q without decoding", s)
	}
	if s, ok := UnquoteSimple([]byte(`"é✓"`)); !ok || s != "é✓" {
		t.Errorf("valid UTF-8: %q %v", s, ok)
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "echo", "a\u0001b", "\xd0", `"\`, "<&>", "\u2028", strings.Repeat("x", 40) + "\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkString(t, s)
		var back string
		if err := json.Unmarshal(AppendString(nil, s), &back); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if utf8.ValidString(s) && back != s {
			t.Fatalf("%q came back as %q", s, back)
		}
	})
}
