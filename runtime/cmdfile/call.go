package cmdfile

import (
	"regexp"
	"strings"
	"sync"
)

// callName matches a command's name as typed: /review, /frontend:test.
var callName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^/([A-Za-z0-9][A-Za-z0-9_.:-]*)$`) })

// Call splits "/NAME args" (the name's word ends at a space, tab or
// newline): the command's name, the first word as written, the rest; ok
// is false when the prompt is no command call.
func Call(prompt string) (name, first, args string, ok bool) {
	first, args, _ = strings.Cut(prompt, " ")
	if i := strings.IndexAny(first, "\n\t"); i >= 0 {
		first, args = first[:i], prompt[i+1:]
	}
	m := callName().FindStringSubmatch(first)
	if m == nil {
		return "", "", "", false
	}
	return m[1], first, args, true
}
