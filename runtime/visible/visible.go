// Package visible makes text that came from outside luagent (a server's
// names, descriptions, results, errors and stderr, a model's answer) safe
// to print on a terminal: every character a terminal would act on instead
// of showing is written as an escape people can read, so a server cannot
// clear the screen, set the window title, write to the clipboard, hide
// text or reorder it. Only luagent's own styling emits escapes.
//
// The style, one for every such character:
//
//   - C0 controls and DEL as \x1b, \x07, \x0d, \x7f (ESC, BEL, CR, DEL);
//   - C1 controls (U+0080–U+009F, which some terminals obey like ESC [)
//     and the Unicode bidirectional controls (U+061C, U+200E, U+200F,
//     U+202A–U+202E, U+2066–U+2069) as \u009b, \u202e;
//   - a byte that is not UTF-8 as \xff (a Latin-1 terminal reads 0x9b as
//     a control).
//
// A backslash itself stays as it is: the result is for reading, not for
// decoding back.
package visible

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Text is s with its control characters made visible, except newlines
// and tabs, which keep laying out multi-line text; a CR before a newline
// (CRLF line ends) is dropped, a lone CR is shown. s itself comes back
// when there is nothing to change.
func Text(s string) string { return show(s, true) }

// Line is s as one line: Text's escapes, and newlines and tabs shown too
// (\x0a, \x09), for a name or a value that must not break a line.
func Line(s string) string { return show(s, false) }

func show(s string, multiline bool) string {
	i := firstUnsafe(s, multiline)
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case multiline && (c == '\n' || c == '\t'):
				b.WriteByte(c)
			case multiline && c == '\r' && i+1 < len(s) && s[i+1] == '\n':
				// CRLF: the newline alone lays the line out.
			case c < 0x20 || c == 0x7f:
				hexByte(&b, c)
			default:
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			hexByte(&b, c)
		case hidden(r):
			b.WriteString(`\u`)
			h := strconv.FormatInt(int64(r), 16)
			b.WriteString(strings.Repeat("0", 4-len(h)))
			b.WriteString(h)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// firstUnsafe is the index of the first byte show changes, len(s) when
// none: most text is plain and comes back without a copy.
func firstUnsafe(s string, multiline bool) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 || c == 0x7f) && !(multiline && (c == '\n' || c == '\t')) {
				return i
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || hidden(r) {
			return i
		}
		i += n
	}
	return len(s)
}

// hidden reports whether a terminal acts on r rather than showing it: a
// C1 control or a bidirectional control (which reorders what follows, so
// text can read as something it is not).
func hidden(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f:
		return true
	case r >= 0x202a && r <= 0x202e:
		return true
	case r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

func hexByte(b *strings.Builder, c byte) {
	const digits = "0123456789abcdef"
	b.WriteString(`\x`)
	b.WriteByte(digits[c>>4])
	b.WriteByte(digits[c&15])
}
