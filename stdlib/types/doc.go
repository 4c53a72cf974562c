package types

import (
	"regexp"
	"strings"
	"sync"
)

// Doc is what the stubs say, read back for help(): each class with its
// functions' signatures and first sentences. help() reads it at run time
// so the REPL's help and the editors' stubs are one text.
type Doc struct {
	Classes map[string]*Class
	// Order is the classes' names in the order the stubs define them.
	Order []string
}

// Class is one ---@class: a module (Global set) or an object's methods.
type Class struct {
	Name    string
	Global  string // the global a module is bound to ("mcp"), or ""
	Var     string // the receiver's name in signatures ("conn"), or Global
	Summary string // the first sentence of its description
	Funcs   []*Func
	Fields  []*Field
}

// Func is a function of a module (mcp.connect) or a method (Conn:call).
type Func struct {
	Name    string
	Method  bool
	Params  []Param
	Returns []string
	Summary string
}

// Param is one ---@param.
type Param struct {
	Name, Type string
	Optional   bool
}

// Field is one ---@field.
type Field struct{ Name, Type, Summary string }

// Func returns the class's function named name, or nil.
func (c *Class) Func(name string) *Func {
	for _, f := range c.Funcs {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// Signature is how help shows f: "mcp.connect(opts: mcp.ConnectOptions) ->
// mcp.Conn", "conn:call(name: string, args?: table, ...)".
func (c *Class) Signature(f *Func) string {
	var b strings.Builder
	b.WriteString(c.Var)
	if f.Method {
		b.WriteByte(':')
	} else {
		b.WriteByte('.')
	}
	b.WriteString(f.Name)
	b.WriteByte('(')
	for i, p := range f.Params {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.Name)
		if p.Optional {
			b.WriteByte('?')
		}
		if p.Type != "" && p.Name != "..." {
			b.WriteString(": " + shortType(p.Type))
		}
	}
	b.WriteByte(')')
	if len(f.Returns) > 0 {
		rs := make([]string, len(f.Returns))
		for i, r := range f.Returns {
			rs[i] = shortType(r)
		}
		b.WriteString(" -> " + strings.Join(rs, ", "))
	}
	return b.String()
}

// shortType keeps a signature on one line: an inline table or function
// type reads as "table" or "function".
func shortType(t string) string {
	if len(t) <= 40 {
		return t
	}
	opt := strings.HasSuffix(t, "?")
	switch {
	case strings.HasPrefix(t, "{"):
		t = "table"
	case strings.HasPrefix(t, "fun("):
		t = "function"
	default:
		return t
	}
	if opt {
		t += "?"
	}
	return t
}

var (
	docOnce sync.Once
	doc     *Doc
)

// Docs parses the embedded stubs once.
func Docs() *Doc {
	docOnce.Do(func() {
		compileDocPatterns()
		doc = &Doc{Classes: map[string]*Class{}}
		for _, name := range Names() {
			src, err := files.ReadFile(name)
			if err == nil {
				doc.parse(string(src))
			}
		}
	})
	return doc
}

// The stubs' line patterns, compiled on first use (Docs): every luagent
// process links this package, and only help() reads the stubs.
var (
	docClassRE, docBindRE, docFuncRE, docAnnotRE *regexp.Regexp
)

func compileDocPatterns() {
	docClassRE = regexp.MustCompile(`^---@class\s+([\w.]+)`)
	docBindRE = regexp.MustCompile(`^(local\s+)?(\w+)\s*=\s*\{\}`)
	docFuncRE = regexp.MustCompile(`^function\s+(\w+)([.:])(\w+)\(`)
	docAnnotRE = regexp.MustCompile(`^---@(\w+)\s*(.*)$`)
}

// parse reads one stub: description lines (---text) and annotations
// gather until the class or function they describe.
func (d *Doc) parse(src string) {
	var (
		desc     []string
		params   []Param
		returns  []string
		fields   []*Field
		cur      *Class
		module   string // the file's opening `-- name: ...` comment
		headDone bool
		vars     = map[string]*Class{}
	)
	reset := func() { desc, params, returns, fields = nil, nil, nil, nil }
	for _, line := range strings.Split(src, "\n") {
		line = strings.TrimRight(line, " \t\r")
		if module != "" && !strings.HasPrefix(line, "-- ") {
			headDone = true
		}
		switch {
		case strings.HasPrefix(line, "---@"):
			m := docAnnotRE.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			switch m[1] {
			case "class":
				name := docClassRE.FindStringSubmatch(line)[1]
				cur = &Class{Name: name, Summary: sentence(desc)}
				d.Classes[name] = cur
				d.Order = append(d.Order, name)
				desc = nil
			case "field":
				n, rest := firstWord(m[2])
				t, rest := typeToken(rest)
				fields = append(fields, &Field{Name: strings.TrimSuffix(n, "?"), Type: t, Summary: strings.TrimSpace(rest)})
				if cur != nil {
					cur.Fields = append(cur.Fields, fields[len(fields)-1])
				}
			case "param":
				n, rest := firstWord(m[2])
				t, _ := typeToken(rest)
				params = append(params, Param{Name: strings.TrimSuffix(n, "?"), Type: t, Optional: strings.HasSuffix(n, "?")})
			case "return":
				t, _ := typeToken(m[2])
				returns = append(returns, t)
			}
		case strings.HasPrefix(line, "---"):
			desc = append(desc, strings.TrimSpace(strings.TrimPrefix(line, "---")))
		case strings.HasPrefix(line, "-- ") && !headDone:
			module += " " + strings.TrimPrefix(line, "-- ")
		case docBindRE.MatchString(line):
			m := docBindRE.FindStringSubmatch(line)
			if cur != nil {
				vars[m[2]] = cur
				cur.Var = strings.ToLower(m[2])
				if m[1] == "" {
					cur.Global, cur.Var = m[2], m[2]
					if _, after, ok := strings.Cut(module, ": "); ok {
						cur.Summary = firstSentence(after)
					}
				}
			}
			cur = nil
			reset()
		case docFuncRE.MatchString(line):
			m := docFuncRE.FindStringSubmatch(line)
			if c := vars[m[1]]; c != nil {
				if len(params) == 0 {
					// Unannotated parameters: the names in the definition.
					in := line[strings.Index(line, "(")+1:]
					in = in[:strings.Index(in, ")")]
					for _, p := range strings.Split(in, ",") {
						if p = strings.TrimSpace(p); p != "" {
							params = append(params, Param{Name: p})
						}
					}
				}
				c.Funcs = append(c.Funcs, &Func{Name: m[3], Method: m[2] == ":", Params: params, Returns: returns, Summary: sentence(desc)})
			}
			cur = nil
			reset()
		default:
			if line == "" {
				cur = nil
			}
			reset()
		}
	}
}

// sentence is the first sentence of a description's lines.
func sentence(lines []string) string { return firstSentence(strings.Join(lines, " ")) }

// firstSentence ends at the first ". ", and keeps to about one line.
func firstSentence(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	const max = 100
	if len(s) > max {
		cut := strings.LastIndex(s[:max], " ")
		if cut < max/2 {
			cut = max
		}
		s = strings.TrimRight(s[:cut], ",;:") + " ..."
	}
	return s
}

func firstWord(s string) (string, string) {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, " \t"); i >= 0 {
		return s[:i], s[i+1:]
	}
	return s, ""
}

// typeToken reads one LuaLS type off s: up to a blank outside brackets
// ("{a: string, b: integer}", "fun(x: T): R", "table<string, any>").
func typeToken(s string) (string, string) {
	s = strings.TrimSpace(s)
	depth := 0
	for i, r := range s {
		switch r {
		case '(', '{', '<', '[':
			depth++
		case ')', '}', '>', ']':
			depth--
		case ' ', '\t':
			if depth <= 0 {
				// "fun(x): R" continues after the colon.
				if strings.HasSuffix(s[:i], ":") || strings.HasSuffix(s[:i], ",") || strings.HasPrefix(s[i:], " |") || strings.HasSuffix(s[:i], "|") {
					continue
				}
				return s[:i], strings.TrimSpace(s[i:])
			}
		}
	}
	return s, ""
}
