package visible_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/luagent/luagent/runtime/visible"
)

func TestText(t *testing.T) {
	for _, c := range []struct{ name, in, text, line string }{
		{"plain", "hello, world", "hello, world", "hello, world"},
		{"empty", "", "", ""},
		{"unicode", "café ✓ 日本 👨‍👩‍👧", "café ✓ 日本 👨‍👩‍👧", "café ✓ 日本 👨‍👩‍👧"},
		{"backslash stays", `a\x1b`, `a\x1b`, `a\x1b`},
		{"newline and tab", "a\n\tb", "a\n\tb", `a\x0a\x09b`},
		{"CRLF", "a\r\nb", "a\nb", `a\x0d\x0ab`},
		{"lone CR", "ok\rEVIL", `ok\x0dEVIL`, `ok\x0dEVIL`},
		{"clear screen", "\x1b[2J\x1b[H", `\x1b[2J\x1b[H`, `\x1b[2J\x1b[H`},
		{"window title", "\x1b]0;pwned\x07", `\x1b]0;pwned\x07`, `\x1b]0;pwned\x07`},
		{"clipboard", "\x1b]52;c;aGk=\x1b\\", `\x1b]52;c;aGk=\x1b\`, `\x1b]52;c;aGk=\x1b\`},
		{"hyperlink", "\x1b]8;;http://x\x07y\x1b]8;;\x07", `\x1b]8;;http://x\x07y\x1b]8;;\x07`, `\x1b]8;;http://x\x07y\x1b]8;;\x07`},
		{"backspace", "abc\b\bX", `abc\x08\x08X`, `abc\x08\x08X`},
		{"NUL and DEL", "a\x00b\x7f", `a\x00b\x7f`, `a\x00b\x7f`},
		{"C1 CSI", "\u009b31m", `\u009b31m`, `\u009b31m`},
		{"C1 NEL", "a\u0085b", `a\u0085b`, `a\u0085b`},
		{"bidi override", "abc\u202edcba", `abc\u202edcba`, `abc\u202edcba`},
		{"bidi isolates", "\u2066a\u2067b\u2068c\u2069", `\u2066a\u2067b\u2068c\u2069`, `\u2066a\u2067b\u2068c\u2069`},
		{"bidi marks", "\u200e\u200f\u061c", `\u200e\u200f\u061c`, `\u200e\u200f\u061c`},
		{"not UTF-8", "a\x9b31m\xff", `a\x9b31m\xff`, `a\x9b31m\xff`},
		{"cut rune", "é"[:1], `\xc3`, `\xc3`},
	} {
		if got := visible.Text(c.in); got != c.text {
			t.Errorf("%s: Text(%q) = %q, want %q", c.name, c.in, got, c.text)
		}
		if got := visible.Line(c.in); got != c.line {
			t.Errorf("%s: Line(%q) = %q, want %q", c.name, c.in, got, c.line)
		}
		for _, out := range []string{visible.Text(c.in), visible.Line(c.in)} {
			if bad := unsafe(out); bad != "" {
				t.Errorf("%s: %q still holds %s", c.name, out, bad)
			}
			if visible.Text(out) != out {
				t.Errorf("%s: Text is not idempotent on %q", c.name, out)
			}
		}
	}
}

// unsafe names the first character a terminal would act on.
func unsafe(s string) string {
	for i, r := range s {
		if r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD") {
			return "a byte that is not UTF-8"
		}
		if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) || r == 0x202e || (r >= 0x2066 && r <= 0x2069) {
			return fmt.Sprintf("%U", r)
		}
	}
	return ""
}

func TestTextKeepsPlainString(t *testing.T) {
	s := strings.Repeat("plain text\n", 100)
	if n := testing.AllocsPerRun(100, func() { visible.Text(s) }); n != 0 {
		t.Errorf("Text of plain text allocates %v times", n)
	}
}

func FuzzText(f *testing.F) {
	for _, s := range []string{"a\x1b[2Jb", "\u009b\u202e", "\xff\xfe", "a\r\nb\rc"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, out := range []string{visible.Text(s), visible.Line(s)} {
			if bad := unsafe(out); bad != "" {
				t.Fatalf("%q -> %q holds %q", s, out, bad)
			}
		}
	})
}
