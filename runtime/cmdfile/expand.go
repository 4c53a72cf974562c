package cmdfile

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// placeholder matches what a body's arguments fill: $ARGUMENTS,
// $ARGUMENTS[N] (0-based, as Claude Code's newer files write it) and
// $1 ... $9.
var placeholder = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$ARGUMENTS\[([0-9]+)\]|\$ARGUMENTS|\$([1-9])`)
})

// Expand fills a command body with its arguments as Claude Code does:
// $ARGUMENTS is args as typed (trimmed), $1 ... $9 and $ARGUMENTS[0] ...
// its words (SplitArgs), "" past the last. A body with no placeholder
// and arguments given gets them on a last line "ARGUMENTS: args", so
// nothing typed is lost. Text the arguments bring is not expanded again.
func Expand(body, args string) string {
	args = strings.TrimSpace(args)
	argv := SplitArgs(args)
	if !placeholder().MatchString(body) {
		if args == "" {
			return body
		}
		return strings.TrimRight(body, "\n") + "\n\nARGUMENTS: " + args
	}
	word := func(i int) string {
		if i >= 0 && i < len(argv) {
			return argv[i]
		}
		return ""
	}
	return placeholder().ReplaceAllStringFunc(body, func(m string) string {
		sm := placeholder().FindStringSubmatch(m)
		switch {
		case sm[1] != "":
			n, err := strconv.Atoi(sm[1])
			if err != nil {
				return ""
			}
			return word(n)
		case sm[2] != "":
			return word(int(sm[2][0] - '1'))
		}
		return args
	})
}

// SplitArgs splits arguments into words as a shell would, without
// expanding anything: white space separates words; '...' holds
// everything, "..." everything but \" and \\ (escapes), and outside
// quotes \X is X. An unclosed quote runs to the end. It never fails: a
// prompt is text, and "$HOME" in it stays "$HOME". (runtime/chat's
// splitArgs refuses what a shell would expand; a prompt must not.)
func SplitArgs(s string) []string {
	var out []string
	var b strings.Builder
	in := false // a word has begun (even an empty "")
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if in {
				out = append(out, b.String())
				b.Reset()
				in = false
			}
		case c == '\'':
			in = true
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				b.WriteString(s[i+1:])
				i = len(s)
				break
			}
			b.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			in = true
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
					i++
				}
				b.WriteByte(s[i])
			}
		case c == '\\' && i+1 < len(s):
			in = true
			i++
			b.WriteByte(s[i])
		default:
			in = true
			b.WriteByte(c)
		}
	}
	if in {
		out = append(out, b.String())
	}
	return out
}
