// Package sessionid makes and checks session ids. It stands alone so that
// the agent (which names the session to hooks) and the session store
// (which imports the agent's messages) share it without a cycle.
package sessionid

import (
	"crypto/rand"
	"fmt"
	"regexp"
	"sync"
)

// New is a new session id: a random (version 4) UUID, as Claude Code's
// session ids are, so wrappers that parse them take ours.
func New() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand, Go 1.24+)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

var idPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
})

// Valid reports whether id has New's form (a file name made from it
// stays in the sessions folder).
func Valid(id string) bool { return idPattern().MatchString(id) }
