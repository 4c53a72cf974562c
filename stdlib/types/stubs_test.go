package types_test

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/luagent/luagent/stdlib/types"
	"github.com/yuin/gopher-lua/parse"
)

// class is what the stubs say of one ---@class: its fields and the
// functions defined on the table bound to it (function M.f, function C:m).
type class struct {
	name    string
	parent  string
	file    string
	global  string          // the global it is bound to (a module), or ""
	fields  map[string]bool // ---@field names
	methods map[string]bool // function names
}

type stubs struct {
	classes map[string]*class
	aliases map[string]bool
}

var (
	classRE  = regexp.MustCompile(`^---@class\s+([\w.]+)(?:\s*:\s*([\w.]+))?`)
	aliasRE  = regexp.MustCompile(`^---@alias\s+([\w.]+)`)
	fieldRE  = regexp.MustCompile(`^---@field\s+(\[[^\]]*\]|[\w]+)\??\s`)
	bindRE   = regexp.MustCompile(`^(local\s+)?(\w+)\s*=\s*\{\}`)
	funcRE   = regexp.MustCompile(`^function\s+(\w+)([.:])(\w+)\(([^)]*)\)\s*end$`)
	paramRE  = regexp.MustCompile(`^---@param\s+(\S+?)\??\s`)
	annotRE  = regexp.MustCompile(`^---@(\w+)`)
	stringRE = regexp.MustCompile(`"[^"]*"`)
	identRE  = regexp.MustCompile(`[A-Za-z_][\w.]*`)
)

// parseStubs reads every stub as `luagent --types` writes it.
func parseStubs(t *testing.T) *stubs {
	t.Helper()
	s := &stubs{classes: map[string]*class{}, aliases: map[string]bool{}}
	for _, name := range types.Names() {
		src, err := types.File(name)
		if err != nil {
			t.Fatal(err)
		}
		var cur *class
		vars := map[string]*class{}
		for _, line := range strings.Split(string(src), "\n") {
			if m := classRE.FindStringSubmatch(line); m != nil {
				if s.classes[m[1]] != nil {
					t.Errorf("%s: class %s is defined twice", name, m[1])
				}
				cur = &class{name: m[1], parent: m[2], file: name, fields: map[string]bool{}, methods: map[string]bool{}}
				s.classes[m[1]] = cur
				continue
			}
			if m := aliasRE.FindStringSubmatch(line); m != nil {
				s.aliases[m[1]] = true
			}
			if m := fieldRE.FindStringSubmatch(line); m != nil && cur != nil {
				f := strings.Trim(m[1], `[]"`)
				if !strings.HasPrefix(m[1], `[`) || strings.HasPrefix(m[1], `["`) {
					cur.fields[f] = true
				}
				continue
			}
			if strings.HasPrefix(line, "---") {
				continue
			}
			if m := bindRE.FindStringSubmatch(line); m != nil && cur != nil {
				vars[m[2]] = cur
				if m[1] == "" {
					cur.global = m[2]
				}
			}
			if m := funcRE.FindStringSubmatch(line); m != nil {
				c := vars[m[1]]
				if c == nil {
					t.Errorf("%s: %q defines a function on %s, which no ---@class is bound to", name, line, m[1])
					continue
				}
				c.methods[m[3]] = true
			}
			cur = nil
		}
	}
	return s
}

// fieldsOf is a class's fields with its parents'.
func (s *stubs) fieldsOf(name string) map[string]bool {
	out := map[string]bool{}
	for c := s.classes[name]; c != nil; c = s.classes[c.parent] {
		for f := range c.fields {
			out[f] = true
		}
	}
	return out
}

// Every stub is a Lua chunk: gopher-lua parses it, and so does luac5.1 -p
// where it is installed.
func TestStubsParse(t *testing.T) {
	dir := t.TempDir()
	paths, err := types.Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	luac, _ := exec.LookPath("luac5.1")
	for _, p := range paths {
		if !strings.HasSuffix(p, ".lua") {
			continue
		}
		src, err := types.File(filepath.Base(p))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := parse.Parse(bytes.NewReader(src), p); err != nil {
			t.Errorf("%s does not parse: %v", filepath.Base(p), err)
		}
		if luac != "" {
			if out, err := exec.Command(luac, "-p", p).CombinedOutput(); err != nil {
				t.Errorf("luac5.1 -p %s: %v\n%s", filepath.Base(p), err, out)
			}
		}
		if !bytes.HasPrefix(src, []byte("---@meta")) || !bytes.Contains(src, []byte("snake_case")) {
			t.Errorf("%s lacks the ---@meta line or the naming rule", filepath.Base(p))
		}
	}
	if luac == "" {
		t.Log("luac5.1 not installed: checked with gopher-lua's parser only")
	}
}

var builtinTypes = map[string]bool{
	"nil": true, "any": true, "boolean": true, "string": true, "number": true, "integer": true,
	"table": true, "function": true, "thread": true, "userdata": true, "fun": true, "self": true,
	"true": true, "false": true, "unknown": true,
}

// The annotations hang together as lua-language-server reads them (it is
// not installable here): every type named is a class, an alias, a
// generic or a builtin, and every ---@param names the function's
// parameters in order.
func TestStubsAnnotations(t *testing.T) {
	s := parseStubs(t)
	for _, name := range types.Names() {
		src, _ := types.File(name)
		var params, generics []string
		for i, line := range strings.Split(string(src), "\n") {
			where := name + ":" + strconv.Itoa(i+1)
			m := annotRE.FindStringSubmatch(line)
			if m == nil {
				if f := funcRE.FindStringSubmatch(line); f != nil {
					var want []string
					for _, p := range strings.Split(f[4], ",") {
						if p = strings.TrimSpace(p); p != "" {
							want = append(want, p)
						}
					}
					if !slices.Equal(params, want) {
						t.Errorf("%s: ---@param %v, but the function takes %v", where, params, want)
					}
				}
				if !strings.HasPrefix(line, "---") {
					params, generics = nil, nil
				}
				continue
			}
			rest := strings.TrimSpace(strings.TrimPrefix(line, m[0]))
			var expr string
			switch m[1] {
			case "param":
				p := paramRE.FindStringSubmatch(line)
				if p == nil {
					t.Errorf("%s: unreadable ---@param", where)
					continue
				}
				params = append(params, p[1])
				_, after, _ := strings.Cut(rest, " ")
				expr = typeExpr(after)
			case "field":
				_, after, _ := strings.Cut(rest, " ")
				expr = typeExpr(after)
			case "return", "type", "overload":
				expr = typeExpr(rest)
			case "alias":
				_, after, _ := strings.Cut(rest, " ")
				expr = typeExpr(after)
			case "generic":
				g, _, _ := strings.Cut(rest, ":")
				generics = append(generics, strings.TrimSpace(g))
			case "class", "meta":
			default:
				t.Errorf("%s: unexpected annotation ---@%s", where, m[1])
			}
			for _, id := range typeNames(expr) {
				if !builtinTypes[id] && s.classes[id] == nil && !s.aliases[id] && !slices.Contains(generics, id) {
					t.Errorf("%s: type %s is not defined", where, id)
				}
			}
		}
	}
}

// typeExpr is the type at the start of an annotation's text, before its
// description: it ends at a space outside brackets that neither follows
// nor precedes ':', '|' or ','.
func typeExpr(s string) string {
	depth := 0
	inStr := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			inStr = !inStr
		case inStr:
		case strings.ContainsRune("([{<", rune(c)):
			depth++
		case strings.ContainsRune(")]}>", rune(c)):
			depth--
		case c == ' ' && depth == 0:
			prev := strings.TrimRight(s[:i], " ")
			next := strings.TrimLeft(s[i:], " ")
			if prev != "" && strings.ContainsAny(prev[len(prev)-1:], ":|,") || next != "" && strings.ContainsAny(next[:1], ":|") {
				continue
			}
			return s[:i]
		}
	}
	return s
}

// typeNames are the type names a type expression uses: not string
// literals, fun, or the names of a fun's parameters and a table type's
// keys (followed by ':').
func typeNames(expr string) []string {
	expr = stringRE.ReplaceAllString(expr, `""`)
	var out []string
	for _, loc := range identRE.FindAllStringIndex(expr, -1) {
		id := expr[loc[0]:loc[1]]
		after := strings.TrimLeft(expr[loc[1]:], "? ")
		if id == "fun" || strings.HasPrefix(after, ":") {
			continue
		}
		if loc[0] > 0 && expr[loc[0]-1] == '.' { // "..." varargs
			continue
		}
		out = append(out, id)
	}
	return out
}
