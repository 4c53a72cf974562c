// Package jsonscan finds the members of a JSON object without decoding the
// values: the envelope of every JSON-RPC message, a request's params._meta,
// a result's fields. Decoding with encoding/json's reflection was the
// largest CPU cost of a small request; scanning costs a pass over the bytes.
//
// The scanner trusts its input to be valid JSON (callers validate first, or
// only look at what they need): on malformed input it never panics, and it
// reports failure when the object's structure does not hold together.
//
// It also writes JSON strings (AppendString) for the messages built by hand.
package jsonscan

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// Members calls f for each top-level member of the object raw, with the key
// (still JSON-quoted, escapes kept) and the raw value; f returns false to
// stop. It reports whether raw is an object. Duplicate keys are all passed
// to f in order (encoding/json keeps the last).
func Members(raw []byte, f func(key, val []byte) bool) bool {
	i := SkipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return false
	}
	i++
	for {
		i = SkipSpace(raw, i)
		if i >= len(raw) {
			return false
		}
		switch raw[i] {
		case '}':
			return true
		case ',':
			i++
			continue
		case '"':
		default:
			return false
		}
		kEnd := SkipValue(raw, i)
		if kEnd < 0 {
			return false
		}
		key := raw[i:kEnd]
		i = SkipSpace(raw, kEnd)
		if i >= len(raw) || raw[i] != ':' {
			return false
		}
		i = SkipSpace(raw, i+1)
		vEnd := SkipValue(raw, i)
		if vEnd < 0 {
			return false
		}
		if !f(key, raw[i:vEnd]) {
			return true
		}
		i = vEnd
	}
}

// Object is Members for a caller that reads inside some values as it goes,
// so that it need not walk them twice: it scans the object starting at
// raw[i] (after space) and calls f with each key (as Members gives it) and
// the index of its value; f returns the index just past the value
// (SkipValue(raw, at), or where its own scan of the value ended), or -1 to
// give up. Object returns the index just past the object, or -1 when there
// is no object at i or f gave up.
func Object(raw []byte, i int, f func(key []byte, at int) int) int {
	i = SkipSpace(raw, i)
	if i >= len(raw) || raw[i] != '{' {
		return -1
	}
	i++
	for {
		i = SkipSpace(raw, i)
		if i >= len(raw) {
			return -1
		}
		switch raw[i] {
		case '}':
			return i + 1
		case ',':
			i++
			continue
		case '"':
		default:
			return -1
		}
		kEnd := SkipValue(raw, i)
		if kEnd < 0 {
			return -1
		}
		key := raw[i:kEnd]
		i = SkipSpace(raw, kEnd)
		if i >= len(raw) || raw[i] != ':' {
			return -1
		}
		i = SkipSpace(raw, i+1)
		if i >= len(raw) {
			return -1
		}
		vEnd := f(key, i)
		if vEnd <= i {
			return -1
		}
		i = vEnd
	}
}

// Member returns the raw value of the top-level member named name (given
// unquoted, without escapes), or nil. With duplicate keys, the last wins.
// A key is compared as a JSON parser reads it: "n\u0061me" is "name".
func Member(raw []byte, name string) []byte {
	var out []byte
	Members(raw, func(k, v []byte) bool {
		if keyIs(k, name) {
			out = v
		}
		return true
	})
	return out
}

// MembersOf is Member for several names in one pass over raw: vals[i] is
// set to the value of names[i] (or nil), as Member(raw, names[i]) gives it.
// vals must be as long as names.
func MembersOf(raw []byte, names []string, vals [][]byte) {
	clear(vals)
	Members(raw, func(k, v []byte) bool {
		for i, name := range names {
			if keyIs(k, name) {
				vals[i] = v
			}
		}
		return true
	})
}

// keyIs reports whether the quoted key k names name.
func keyIs(k []byte, name string) bool {
	switch {
	case len(k) == len(name)+2 && string(k[1:len(k)-1]) == name:
		return true
	case len(k) > len(name)+2 && bytes.IndexByte(k, '\\') >= 0:
		// An escape is longer than the character it stands for.
		var s string
		return json.Unmarshal(k, &s) == nil && s == name
	}
	return false
}

// SkipSpace returns the index of the first non-space byte at or after i.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// SkipValue returns the index just past the value starting at b[i], or -1
// when it does not end. Objects and arrays are skipped by bracket depth
// (strings respected), not validated.
func SkipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		for j := i + 1; j < len(b); j++ {
			switch b[j] {
			case '\\':
				j++
			case '"':
				return j + 1
			}
		}
		return -1
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				// The string skipped in place: a call per string was most
				// of the cost of skipping an object.
				for j++; j < len(b) && b[j] != '"'; j++ {
					if b[j] == '\\' {
						j++
					}
				}
				if j >= len(b) {
					return -1
				}
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	case '}', ']', ',', ':':
		return -1
	default: // number, true, false, null
		j := i
		for j < len(b) {
			switch b[j] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return j
			}
			j++
		}
		return j
	}
}

// UnquoteSimple returns the value of a JSON string without escapes; for
// anything else (escapes, not a string) it returns "" and false and the
// caller decodes properly. A string with invalid UTF-8 is "anything else"
// too: decoding turns each bad byte into U+FFFD, as every JSON parser reads
// it, so the value does not depend on which path took it.
func UnquoteSimple(raw []byte) (string, bool) {
	inner, ok := SimpleString(raw)
	if !ok {
		return "", false
	}
	return string(inner), true
}

// SimpleString is UnquoteSimple without making the string: the bytes
// between the quotes (a slice of raw), for a caller that only compares
// them or looks them up (m[string(b)] makes no string).
func SimpleString(raw []byte) ([]byte, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return nil, false
	}
	inner := raw[1 : len(raw)-1]
	ascii := true
	for _, c := range inner {
		if c == '\\' {
			return nil, false
		}
		if c >= utf8.RuneSelf {
			ascii = false
		}
	}
	if !ascii && !utf8.Valid(inner) {
		return nil, false
	}
	return inner, true
}
