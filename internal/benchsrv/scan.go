package benchsrv

// members are the raw values of the top-level members of a JSON-RPC message
// that the client looks at (nil when absent).
type members struct {
	id, err, method []byte
}

// topLevel scans one JSON object (a line) for its top-level "id", "error"
// and "method" members without decoding anything else. Nested members of
// the same names (inside result, params, _meta) are skipped.
func topLevel(line []byte) (members, bool) {
	var m members
	i := skipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return m, false
	}
	i = skipSpace(line, i+1)
	if i < len(line) && line[i] == '}' {
		return m, true
	}
	for i < len(line) {
		if line[i] != '"' {
			return m, false
		}
		kEnd := skipString(line, i)
		if kEnd < 0 {
			return m, false
		}
		key := line[i+1 : kEnd-1]
		i = skipSpace(line, kEnd)
		if i >= len(line) || line[i] != ':' {
			return m, false
		}
		vStart := skipSpace(line, i+1)
		vEnd := skipValue(line, vStart)
		if vEnd < 0 {
			return m, false
		}
		switch string(key) { // no allocation: the compiler special-cases this
		case "id":
			m.id = line[vStart:vEnd]
		case "error":
			m.err = line[vStart:vEnd]
		case "method":
			m.method = line[vStart:vEnd]
		}
		i = skipSpace(line, vEnd)
		if i >= len(line) {
			return m, false
		}
		switch line[i] {
		case ',':
			i = skipSpace(line, i+1)
		case '}':
			return m, true
		default:
			return m, false
		}
	}
	return m, false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i] == '"',
// or -1.
func skipString(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// skipValue returns the index after the JSON value starting at b[i], or -1.
// Objects and arrays are skipped by bracket depth (strings respected), not
// validated.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				e := skipString(b, j)
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
	default: // number, true, false, null
		j := i
		for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' &&
			b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
			j++
		}
		if j == i {
			return -1
		}
		return j
	}
}

// parseID parses a non-negative integer id (the client only sends those).
func parseID(v []byte) (int64, bool) {
	if len(v) == 0 || len(v) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}
