package jsonscan

// Valid reports whether b is one JSON value (with space around it), as
// encoding/json.Valid does — the same answer for every input, which
// FuzzValid checks — in a single pass without its state machine's call
// per byte: checking each incoming message was a twelfth of a small
// tools/call's instructions. Like encoding/json it does not check that
// strings are valid UTF-8, and it refuses nesting deeper than 10000.
func Valid(b []byte) bool {
	v := validator{b: b}
	i := v.value(SkipSpace(b, 0), 0)
	return i >= 0 && SkipSpace(b, i) == len(b)
}

// maxDepth is encoding/json's limit on nested objects and arrays.
const maxDepth = 10000

type validator struct{ b []byte }

// value checks the value at b[i] and returns the index past it, or -1.
// depth counts the objects and arrays it is inside.
func (v *validator) value(i, depth int) int {
	b := v.b
	if i >= len(b) {
		return -1
	}
	switch c := b[i]; {
	case c == '"':
		return v.str(i)
	case c == '{':
		if depth >= maxDepth {
			return -1
		}
		i = SkipSpace(b, i+1)
		if i < len(b) && b[i] == '}' {
			return i + 1
		}
		for {
			if i >= len(b) || b[i] != '"' {
				return -1
			}
			if i = v.str(i); i < 0 {
				return -1
			}
			i = SkipSpace(b, i)
			if i >= len(b) || b[i] != ':' {
				return -1
			}
			if i = v.value(SkipSpace(b, i+1), depth+1); i < 0 {
				return -1
			}
			i = SkipSpace(b, i)
			if i >= len(b) {
				return -1
			}
			switch b[i] {
			case ',':
				i = SkipSpace(b, i+1)
			case '}':
				return i + 1
			default:
				return -1
			}
		}
	case c == '[':
		if depth >= maxDepth {
			return -1
		}
		i = SkipSpace(b, i+1)
		if i < len(b) && b[i] == ']' {
			return i + 1
		}
		for {
			if i = v.value(i, depth+1); i < 0 {
				return -1
			}
			i = SkipSpace(b, i)
			if i >= len(b) {
				return -1
			}
			switch b[i] {
			case ',':
				i = SkipSpace(b, i+1)
			case ']':
				return i + 1
			default:
				return -1
			}
		}
	case c == '-' || c >= '0' && c <= '9':
		return v.number(i)
	case c == 't':
		return v.word(i, "true")
	case c == 'f':
		return v.word(i, "false")
	case c == 'n':
		return v.word(i, "null")
	}
	return -1
}

func (v *validator) word(i int, w string) int {
	if len(v.b)-i < len(w) || string(v.b[i:i+len(w)]) != w {
		return -1
	}
	return i + len(w)
}

// str checks the string at b[i] (a quote) and returns the index past it.
func (v *validator) str(i int) int {
	b := v.b
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1
		case c < 0x20:
			return -1
		case c == '\\':
			i++
			if i >= len(b) {
				return -1
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(b)-i <= 4 {
					return -1
				}
				for _, h := range b[i+1 : i+5] {
					if !isHex(h) {
						return -1
					}
				}
				i += 4
			default:
				return -1
			}
		}
	}
	return -1
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// number checks -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? at b[i].
func (v *validator) number(i int) int {
	b := v.b
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i+1)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}
