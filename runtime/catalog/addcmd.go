package catalog

import (
	"slices"
	"strings"

	"github.com/luagent/luagent/runtime/visible"
)

// AddCommand is the `luagent mcp add --force` command line that saves s
// again with extra (more flags, such as -H 'K: V'): complete, so that it
// runs as printed. Values luagent never prints (literal env values,
// credential headers) are "..." for the user to fill in; URL and args are
// masked as Shown masks them.
func (s *Server) AddCommand(extra ...string) string {
	m := s.Masked()
	words := []string{"luagent", "mcp", "add", "--force", shQuote(s.Name)}
	if !s.Enabled {
		words = append(words, "--disabled")
	}
	for _, t := range s.EnabledTools {
		words = append(words, "--enable-tool", shQuote(t))
	}
	for _, t := range s.DisabledTools {
		words = append(words, "--disable-tool", shQuote(t))
	}
	if s.URL != "" {
		words = append(words, "--transport", "http", shQuote(m.URL))
		for _, k := range sortedKeys(s.Headers) {
			v := s.Headers[k]
			if SecretName(k) || secretValue(v) {
				v = "..."
			}
			words = append(words, "-H", shQuote(k+": "+v))
		}
		if s.OAuth != nil {
			for _, sc := range s.OAuth.Scopes {
				words = append(words, "--scope", shQuote(sc))
			}
			if s.OAuth.ClientID != "" {
				words = append(words, "--client-id", shQuote(s.OAuth.ClientID))
			}
		}
		words = s.envWords(words)
		for _, e := range extra {
			words = append(words, shQuote(e))
		}
		return strings.Join(words, " ")
	}
	if s.Cwd != "" {
		words = append(words, "--cwd", shQuote(s.Cwd))
	}
	words = s.envWords(words)
	switch ie := s.InheritEnv; {
	case ie.Minimal:
		words = append(words, "--inherit-env", InheritMinimal)
	case ie.IsList():
		words = append(words, "--inherit-env", shQuote(strings.Join(ie.Names, ",")))
	}
	for _, e := range extra {
		words = append(words, shQuote(e))
	}
	words = append(words, "--", shQuote(s.Command))
	for _, a := range m.Args {
		words = append(words, shQuote(a))
	}
	return strings.Join(words, " ")
}

// envWords appends the --env, --env-param and --env-from flags that give
// s's env (a literal value is "...").
func (s *Server) envWords(words []string) []string {
	for _, k := range sortedKeys(s.Env) {
		switch v := s.Env[k]; {
		case v.Param != "":
			words = append(words, "--env-param", shQuote(k+"="+v.Param))
		case v.FromEnv != "":
			words = append(words, "--env-from", shQuote(k+"="+v.FromEnv))
		default:
			words = append(words, "--env", shQuote(k+"=..."))
		}
	}
	return words
}

// secretValue says whether a header value carries a credential scheme.
func secretValue(v string) bool {
	v = strings.ToLower(strings.TrimSpace(v))
	return slices.ContainsFunc([]string{"bearer ", "basic ", "token "}, func(p string) bool { return strings.HasPrefix(v, p) })
}

// shQuote is a as a POSIX shell reads it back: bare when shellWord leaves
// it bare, else in single quotes, where nothing expands (a single quote
// inside closes them, is escaped, and opens them again). A control
// character cannot be typed back: it stays shellWord's visible escape.
func shQuote(a string) string {
	if w := shellWord(a); w == a || visible.Line(a) != a {
		return w
	}
	return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
}
