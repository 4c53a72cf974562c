package mcp

// A small scanner over JSON the connection has already validated: it finds
// the members of an object without decoding the values, so the server can
// read params._meta or splice resultType into a result without a round
// trip through encoding/json on every request.

// members calls f for each top-level member of the object raw, with the key
// (still JSON-quoted) and the raw value; f returns false to stop. raw must
// be valid JSON; members returns false if it is not an object.
func members(raw []byte, f func(key, val []byte) bool) bool {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return false
	}
	i++
	for {
		i = skipSpace(raw, i)
		if i >= len(raw) {
			return false
		}
		if raw[i] == '}' {
			return true
		}
		if raw[i] == ',' {
			i++
			continue
		}
		kEnd := skipValue(raw, i)
		if kEnd < 0 {
			return false
		}
		key := raw[i:kEnd]
		i = skipSpace(raw, kEnd)
		if i >= len(raw) || raw[i] != ':' {
			return false
		}
		i = skipSpace(raw, i+1)
		vEnd := skipValue(raw, i)
		if vEnd < 0 {
			return false
		}
		if !f(key, raw[i:vEnd]) {
			return true
		}
		i = vEnd
	}
}

// member returns the raw value of the top-level member named name (given
// unquoted, without escapes), or nil.
func member(raw []byte, name string) []byte {
	var out []byte
	members(raw, func(k, v []byte) bool {
		if len(k) == len(name)+2 && string(k[1:len(k)-1]) == name {
			out = v
			return false
		}
		return true
	})
	return out
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the index just past the value starting at i, or -1.
func skipValue(b []byte, i int) int {
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
				e := skipValue(b, j)
				if e < 0 {
					return -1
				}
				j = e - 1
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
	default:
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

// unquote returns the string value of a raw JSON string without escapes, or
// "" and false when it has escapes or is not a string (callers then decode
// it properly).
func unquoteSimple(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	for _, c := range raw[1 : len(raw)-1] {
		if c == '\\' {
			return "", false
		}
	}
	return string(raw[1 : len(raw)-1]), true
}
