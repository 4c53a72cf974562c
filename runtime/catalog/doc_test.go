package catalog

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

// The field reference in stdlib/doc/catalog.md has a row for every member
// Parse knows, with its type and default: a field added to the parser
// without a row fails here. The members are read from parse.go and
// models.go themselves — the string cases of each switch on a member's
// name — so the list cannot go stale.
func TestDocListsEveryField(t *testing.T) {
	known := knownMembers(t)
	doc, err := os.ReadFile("../../stdlib/doc/catalog.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, sec := range []struct{ fn, heading string }{
		{"Parse", "## Top level"},
		{"parseServer", "## An entry"},
		{"parseOAuth", "### `oauth`"},
		{"parseModels", "### `models`"},
	} {
		names := known[sec.fn]
		if len(names) < 4 {
			t.Fatalf("%s knows only %q: is the parser still a switch on the member's name?", sec.fn, names)
		}
		rows, err := fieldTable(string(doc), sec.heading)
		if err != nil {
			t.Errorf("catalog.md, %s: %v", sec.heading, err)
			continue
		}
		for _, name := range names {
			r, ok := rows[name]
			switch {
			case !ok:
				t.Errorf("catalog.md, %s: no row for `%s` (%s reads it): add its type, default and meaning", sec.heading, name, sec.fn)
			case r.typ == "" || r.def == "" || r.meaning == "":
				t.Errorf("catalog.md, %s: the row of `%s` lacks its type, default or meaning: %+v", sec.heading, name, r)
			}
		}
	}
}

// knownMembers are the member names each parsing function reads, by
// function: the string literals of the cases of a switch on X.name.
func knownMembers(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	fset := token.NewFileSet()
	for _, file := range []string{"parse.go", "models.go"} {
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				sw, ok := n.(*ast.SwitchStmt)
				if !ok {
					return true
				}
				if sel, ok := sw.Tag.(*ast.SelectorExpr); !ok || sel.Sel.Name != "name" {
					return true
				}
				for _, st := range sw.Body.List {
					for _, e := range st.(*ast.CaseClause).List {
						if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
							s, _ := strconv.Unquote(lit.Value)
							out[fn.Name.Name] = append(out[fn.Name.Name], s)
						}
					}
				}
				return true
			})
		}
	}
	return out
}

type fieldRow struct{ typ, def, meaning string }

// fieldTable reads the first table after heading: its rows by the
// member in their first cell (`name`), with the type, default and
// meaning columns its header names.
func fieldTable(doc, heading string) (map[string]fieldRow, error) {
	_, after, ok := strings.Cut(doc, "\n"+heading+"\n")
	if !ok {
		return nil, errString("no such heading")
	}
	var header []string
	rows := map[string]fieldRow{}
	for _, l := range strings.Split(after, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "#") {
			break
		}
		if !strings.HasPrefix(l, "|") {
			if header != nil {
				break // the table ended
			}
			continue
		}
		cells := tableCells(l)
		switch {
		case header == nil:
			header = cells
			continue
		case strings.HasPrefix(cells[0], "---"):
			continue
		}
		col := func(name string) string {
			for i, h := range header {
				if h == name && i < len(cells) {
					return cells[i]
				}
			}
			return ""
		}
		name := strings.Trim(cells[0], "`")
		rows[name] = fieldRow{typ: col("type"), def: col("default"), meaning: col("meaning")}
	}
	if header == nil {
		return nil, errString("no table after it")
	}
	return rows, nil
}

// tableCells splits a Markdown table row, \| being a | inside a cell.
func tableCells(l string) []string {
	l = strings.ReplaceAll(strings.Trim(l, "|"), `\|`, "\x00")
	var out []string
	for _, c := range strings.Split(l, "|") {
		out = append(out, strings.TrimSpace(strings.ReplaceAll(c, "\x00", "|")))
	}
	return out
}

type errString string

func (e errString) Error() string { return string(e) }
