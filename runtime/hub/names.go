package hub

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// MaxName is the longest qualified name: model APIs take tool names of
// ^[a-zA-Z0-9_-]{1,64}$.
const MaxName = 64

// Qualified names are server + "__" + tool. A name that is already valid
// (only [a-zA-Z0-9_-], at most 64 bytes) and unique stays as it is; any
// other — one with other characters (replaced by _), one too long (cut),
// or one two servers would share — ends in _ and 8 hex digits of a hash
// of the server and tool names. The same tools give the same names,
// whatever the order they arrive in.

// sanitize replaces each byte outside [a-zA-Z0-9_-] with '_'.
func sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !validByte(c) {
			b[i] = '_'
		}
	}
	return string(b)
}

func validByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// ValidName reports whether name is a valid tool name for model APIs.
func ValidName(name string) bool {
	if len(name) == 0 || len(name) > MaxName {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !validByte(name[i]) {
			return false
		}
	}
	return true
}

// hashed is the cut name with its hash suffix.
func hashed(server, tool string, digits int) string {
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	suffix := "_" + hex.EncodeToString(sum[:])[:digits]
	base := sanitize(server + "__" + tool)
	if len(base) > MaxName-len(suffix) {
		base = base[:MaxName-len(suffix)]
	}
	return base + suffix
}

// toolID is a tool by server and its own name.
type toolID struct{ server, tool string }

// qualify gives every tool its qualified name.
func qualify(ids []toolID) map[toolID]string {
	plain := map[string]int{}
	for _, id := range ids {
		if n := id.server + "__" + id.tool; ValidName(n) {
			plain[n]++
		}
	}
	out := make(map[toolID]string, len(ids))
	taken := map[string]bool{}
	var rest []toolID
	for _, id := range ids {
		if n := id.server + "__" + id.tool; ValidName(n) && plain[n] == 1 {
			out[id], taken[n] = n, true
		} else {
			rest = append(rest, id)
		}
	}
	for _, id := range rest {
		n := hashed(id.server, id.tool, 8)
		if taken[n] {
			n = hashed(id.server, id.tool, 16) // a plain name spelt like a hash
		}
		out[id], taken[n] = n, true
	}
	return out
}

// splitQualified undoes the plain form (server__tool) for error messages.
func splitQualified(q string) (server, tool string, ok bool) {
	return strings.Cut(q, "__")
}
