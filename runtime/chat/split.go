package chat

import (
	"fmt"
	"strings"

	"github.com/luagent/luagent/runtime/errs"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// freeText are the commands whose argument is text as typed (Rest): their
// Args stay split at white space, quotes and all.
var freeText = map[string]bool{"lua": true, "meta": true}

// splitArgs splits a command's arguments as a shell splits words
// (mvdan.cc/sh's parser): quotes ('...', "...") and backslashes hold
// spaces and are removed. Nothing is expanded: a chat line is not a shell,
// and expansion could put the environment's secrets into a prompt, so a
// word a shell would expand ($HOME, $(cmd)) is refused with how to quote
// it, and so is a "#" comment, which a shell would drop.
func splitArgs(name, rest string) ([]string, error) {
	if freeText[name] {
		return strings.Fields(rest), nil
	}
	bad := func(format string, a ...any) error {
		return errs.Errorf(errs.Invalid, "chat", "/%s %s: %s", name, rest, fmt.Sprintf(format, a...))
	}
	args := []string{}
	end := 0
	cfg := &expand.Config{}
	for w, err := range syntax.NewParser().WordsSeq(strings.NewReader(rest)) {
		if err != nil {
			return nil, bad("%v: quote the value (k=\"a b\")", err)
		}
		var expands string
		syntax.Walk(w, func(n syntax.Node) bool {
			switch n.(type) {
			case *syntax.ParamExp, *syntax.CmdSubst, *syntax.ArithmExp, *syntax.ProcSubst, *syntax.ExtGlob:
				if expands == "" {
					expands = rest[n.Pos().Offset():n.End().Offset()]
				}
			}
			return true
		})
		if expands != "" {
			return nil, bad("a shell would expand %s: quote it in single quotes ('%s')", expands, expands)
		}
		var b strings.Builder
		for _, part := range w.Parts {
			if lit, ok := part.(*syntax.Lit); ok {
				b.WriteString(unescape(lit.Value)) // Literal keeps an unquoted \ as typed
				continue
			}
			s, err := expand.Literal(cfg, &syntax.Word{Parts: []syntax.WordPart{part}})
			if err != nil {
				return nil, bad("%v", err)
			}
			b.WriteString(s)
		}
		args = append(args, b.String())
		end = int(w.End().Offset())
	}
	if tail := strings.TrimSpace(rest[end:]); tail != "" {
		return nil, bad("a word starts with #: quote it ('%s')", tail)
	}
	return args, nil
}

// unescape removes a shell's backslashes outside quotes: \X is X.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
