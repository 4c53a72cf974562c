// Package permission is luagent's permission rules: the "permissions"
// member of config.json ({"allow": [...], "ask": [...], "deny": [...]}),
// the user's and a project's, and --allow / --deny. A rule is a pattern
// over a tool's qualified name with an optional argument matcher; rules
// are decided before the policy (runtime/approval runs them), deny wins
// over allow and allow over ask.
//
//	fs__read_file                 one tool (server__tool)
//	fs__*   *                     a server's tools; every tool
//	mcp__fs__read_file  mcp__fs   Claude Code's spelling of the same
//	fs__write_file(path:/tmp/*)   only when the argument path matches
//	shell__run(command:git *, cwd:/src/*)   every condition must hold
//
// A glob's * is any run of characters (/ too), ? one character, \ takes
// the next one as itself (\* \, \) \\). A value is the argument's string,
// or a number's or boolean's JSON text; an argument that is missing, null,
// an object or an array matches nothing. For a glob that starts with /,
// the value is cleaned as a path first (/tmp/../etc is /etc).
package permission

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"
	"unicode/utf8"
)

// MaxPattern bounds a pattern's length.
const MaxPattern = 1024

// Pattern is a parsed rule pattern.
type Pattern struct {
	text  string // as written
	name  string // the name glob, Claude Code's spelling undone
	conds []cond // the argument matcher's conditions (nil: any arguments)
}

type cond struct {
	key  string
	glob string // unescaped pieces kept with escapes: matched by match
}

// String is the pattern as written.
func (p Pattern) String() string { return p.text }

// Parse reads a pattern. An error says what is wrong in one line (the
// caller adds where the pattern was).
func Parse(s string) (Pattern, error) {
	p := Pattern{text: s}
	if len(s) > MaxPattern {
		return p, fmt.Errorf("is longer than %d characters", MaxPattern)
	}
	name, spec, hasSpec := strings.Cut(s, "(")
	if strings.TrimSpace(s) != s {
		return p, fmt.Errorf("%q has spaces around it; remove them", s)
	}
	if name == "" {
		return p, fmt.Errorf("%q has no tool name: write server__tool, server__*, or *", s)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.' || c == '*' || c == '?') {
			return p, fmt.Errorf("%q: a tool name has letters, digits, _ - . * and ? only (not %q); write server__tool or server__tool(arg:glob)", s, string(rune(c)))
		}
	}
	p.name = claudeName(name)
	if !hasSpec {
		return p, nil
	}
	if !strings.HasSuffix(spec, ")") {
		return p, fmt.Errorf("%q: the argument matcher must end with ): server__tool(arg:glob)", s)
	}
	spec = strings.TrimSuffix(spec, ")")
	if strings.TrimSpace(spec) == "*" {
		return p, nil // Claude Code's Tool(*): the tool, whatever its arguments
	}
	parts, err := splitConds(spec)
	if err != nil {
		return p, fmt.Errorf("%q: %v", s, err)
	}
	seen := map[string]bool{}
	for _, part := range parts {
		key, glob, ok := strings.Cut(part, ":")
		key, glob = strings.TrimSpace(key), trimGlob(glob)
		if !ok || key == "" || !validKey(key) {
			return p, fmt.Errorf("%q: the argument matcher is ARG:GLOB, separated by commas, like fs__write_file(path:/tmp/*), not %q", s, strings.TrimSpace(part))
		}
		if seen[key] {
			return p, fmt.Errorf("%q: the argument %s appears twice", s, key)
		}
		seen[key] = true
		if glob == "" {
			return p, fmt.Errorf("%q: the argument %s has no glob after the colon (* matches any value)", s, key)
		}
		p.conds = append(p.conds, cond{key: key, glob: glob})
	}
	return p, nil
}

// claudeName undoes Claude Code's spelling of an MCP tool: mcp__server__tool
// is server__tool, mcp__server every tool of the server.
func claudeName(name string) string {
	rest, ok := strings.CutPrefix(name, "mcp__")
	if !ok || rest == "" {
		return name
	}
	if !strings.Contains(rest, "__") {
		return rest + "__*"
	}
	return rest
}

func validKey(k string) bool {
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.' || c == '$' || c == '@') {
			return false
		}
	}
	return true
}

// splitConds splits at the commas no backslash escapes; a ( or ) not
// escaped is an error (the pattern ends at the one closing parenthesis).
func splitConds(spec string) ([]string, error) {
	var parts []string
	start := 0
	for i := 0; i < len(spec); i++ {
		switch spec[i] {
		case '\\':
			if i+1 == len(spec) {
				return nil, fmt.Errorf("ends with a lone \\ (write \\\\ for a backslash)")
			}
			i++
		case ',':
			parts = append(parts, spec[start:i])
			start = i + 1
		case '(', ')':
			return nil, fmt.Errorf("has an unescaped %q inside the argument matcher (write \\%c)", string(spec[i]), spec[i])
		}
	}
	return append(parts, spec[start:]), nil
}

// trimGlob trims the spaces around a glob, but not an escaped one at its
// end.
func trimGlob(g string) string {
	g = strings.TrimLeft(g, " \t")
	for strings.HasSuffix(g, " ") || strings.HasSuffix(g, "\t") {
		trimmed := g[:len(g)-1]
		if n := len(trimmed) - len(strings.TrimRight(trimmed, `\`)); n%2 == 1 {
			break // the space is escaped
		}
		g = trimmed
	}
	return g
}

// Match reports whether the pattern matches a call of the tool name (a
// qualified name, server__tool, or a local tool's) with args (a JSON
// object; anything else has no arguments).
func (p Pattern) Match(name string, args json.RawMessage) bool {
	if !match(p.name, name, false) {
		return false
	}
	if len(p.conds) == 0 {
		return true
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(args, &obj) != nil {
		return false
	}
	for _, c := range p.conds {
		v, ok := value(obj[c.key])
		if !ok {
			return false
		}
		if strings.HasPrefix(c.glob, "/") && strings.HasPrefix(v, "/") {
			v = path.Clean(v)
		}
		if !match(c.glob, v, true) {
			return false
		}
	}
	return true
}

// value is an argument as a glob sees it.
func value(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 {
		return "", false
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return s, true
	case 't', 'f':
		return string(raw), true
	case 'n', '{', '[':
		return "", false
	}
	var n json.Number
	if json.Unmarshal(raw, &n) != nil {
		return "", false
	}
	return n.String(), true
}

// match is a glob match of s by g: * any run (** is the same), ? one
// character (a rune), \ escapes (when escapes). It backtracks to the last
// star only, so it takes O(len(g)*len(s)) at worst.
func match(g, s string, escapes bool) bool {
	gi, si := 0, 0
	starG, starS := -1, 0
	for si < len(s) {
		if gi < len(g) {
			switch c := g[gi]; {
			case c == '*':
				for gi < len(g) && g[gi] == '*' {
					gi++
				}
				starG, starS = gi, si
				continue
			case c == '?':
				_, n := decodeRune(s[si:])
				gi, si = gi+1, si+n
				continue
			case c == '\\' && escapes && gi+1 < len(g):
				if g[gi+1] == s[si] {
					gi, si = gi+2, si+1
					continue
				}
			default:
				if c == s[si] {
					gi, si = gi+1, si+1
					continue
				}
			}
		}
		if starG < 0 {
			return false
		}
		_, n := decodeRune(s[starS:])
		starS += n
		gi, si = starG, starS
	}
	for gi < len(g) && g[gi] == '*' {
		gi++
	}
	return gi == len(g)
}

func decodeRune(s string) (rune, int) { return utf8.DecodeRuneInString(s) }
