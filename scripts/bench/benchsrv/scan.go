package benchsrv

import "github.com/luagent/luagent/runtime/jsonscan"

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
	ok := jsonscan.Members(line, func(key, val []byte) bool {
		switch string(key) { // no allocation: the compiler special-cases this
		case `"id"`:
			m.id = val
		case `"error"`:
			m.err = val
		case `"method"`:
			m.method = val
		}
		return true
	})
	return m, ok
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
