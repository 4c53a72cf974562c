package skills

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestParseFrontmatter(t *testing.T) {
	tests := []struct {
		name, doc string
		want      map[string]any // nil: an error
		body      string
	}{
		{"plain", "---\nname: a\ndescription: b\n---\nbody\n", map[string]any{"name": "a", "description": "b"}, "body\n"},
		{"bom and crlf", "\ufeff---\r\nname: a\r\ndescription: b\r\n---\r\nbody\r\n", map[string]any{"name": "a", "description": "b"}, "body\r\n"},
		{"blanks after the closing line", "---\nname: a\n--- \t\nbody", map[string]any{"name": "a"}, "body"},
		{"closing line at the end", "---\nname: a\n---", map[string]any{"name": "a"}, ""},
		{"values", "---\nn: 3\nf: 1.5\nb: true\nz: null\nd: 2024-01-02\nq: '7'\nl: [1, x]\nm: {k: v}\n---\n",
			map[string]any{"n": int64(3), "f": 1.5, "b": true, "z": nil, "d": "2024-01-02", "q": "7", "l": []any{int64(1), "x"}, "m": map[string]any{"k": "v"}}, ""},
		{"alias", "---\na: &x [1]\nb: *x\n---\n", map[string]any{"a": []any{int64(1)}, "b": []any{int64(1)}}, ""},
		{"no front matter", "# Title\n", nil, ""},
		{"opening line with blanks", "--- \nname: a\n---\n", nil, ""},
		{"not closed", "---\nname: a\n", nil, ""},
		{"not a mapping", "---\n- a\n---\n", nil, ""},
		{"empty", "---\n---\n", nil, ""},
		{"bad yaml", "---\nname: [a\n---\n", nil, ""},
		{"duplicate key", "---\nname: a\nname: b\n---\n", nil, ""},
		{"alias bomb", "---\n" + aliasBomb() + "---\n", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fm, body, err := ParseFrontmatter([]byte(tt.doc))
			if tt.want == nil {
				if err == nil {
					t.Fatalf("no error: %v", fm)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !Equal(map[string]any(fm), tt.want) || string(body) != tt.body {
				t.Errorf("got %#v body %q", fm, body)
			}
		})
	}
}

// aliasBomb doubles a list ten times over through aliases.
func aliasBomb() string {
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i <= 10; i++ {
		prev := "*a" + itoa(i-1)
		b.WriteString("a" + itoa(i) + ": &a" + itoa(i) + " [" + strings.Repeat(prev+", ", 9) + prev + "]\n")
	}
	return b.String()
}

func itoa(i int) string { return string(rune('0'+i/10)) + string(rune('0'+i%10)) }

func TestDifferences(t *testing.T) {
	js := func(s string) map[string]any {
		v, err := decodeJSON(json.RawMessage(s))
		if err != nil {
			t.Fatal(err)
		}
		return v.(map[string]any)
	}
	yml := func(s string) map[string]any {
		fm, _, err := ParseFrontmatter([]byte("---\n" + s + "\n---\n"))
		if err != nil {
			t.Fatal(err)
		}
		return fm
	}
	tests := []struct {
		name, yaml, json string
		want             []string
	}{
		{"same", "name: a\ndescription: b", `{"name":"a","description":"b"}`, nil},
		{"a number and its JSON", "n: 3\nf: 2.50\nbig: 9007199254740993", `{"n":3,"f":2.5,"big":9007199254740993}`, nil},
		{"an integer as a float", "n: 3.0", `{"n":3}`, nil},
		{"a missing field is null", "name: a\nx: null", `{"name":"a","y":null}`, nil},
		{"a changed description", "name: a\ndescription: Exfiltrate", `{"name":"a","description":"b"}`, []string{"description"}},
		{"a field only in the file", "name: a\nextra: 1", `{"name":"a"}`, []string{"extra"}},
		{"a field only in the entry", "name: a", `{"name":"a","allowed-tools":"Read"}`, []string{"allowed-tools"}},
		{"a number for a string", "v: 1", `{"v":"1"}`, []string{"v"}},
		{"nested", "metadata:\n  k: [1, {a: b}]", `{"metadata":{"k":[1,{"a":"b"}]}}`, nil},
		{"nested differ", "metadata:\n  k: [1, 2]", `{"metadata":{"k":[1]}}`, []string{"metadata"}},
		{"nested null is not missing", "metadata: {k: null}", `{"metadata":{}}`, []string{"metadata"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Differences(yml(tt.yaml), js(tt.json)); !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// The parser never panics; what it accepts has a body that ends the
// input, and a front matter that, as JSON, compares equal to itself.
func FuzzFrontmatter(f *testing.F) {
	for _, s := range []string{
		"---\nname: a\ndescription: b\n---\nbody\n",
		"\ufeff---\r\nname: a\r\n---\r\n",
		"---\na: &x [1, {b: *x}]\n---\n",
		"---\nn: 0x1F\nf: .inf\nd: 2001-12-14t21:59:43.10-05:00\n---",
		"---\n? [a, b]\n: c\n---\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		fm, body, err := ParseFrontmatter(doc)
		if err != nil {
			return
		}
		if !strings.HasSuffix(string(doc), string(body)) {
			t.Fatalf("body %q is not the end of the document", body)
		}
		raw, err := json.Marshal(fm)
		if err != nil {
			return // NaN or an infinity: no JSON entry can match it
		}
		back, err := decodeJSON(raw)
		if err != nil {
			t.Fatal(err)
		}
		if d := Differences(fm, back.(map[string]any)); len(d) > 0 {
			t.Fatalf("%s differs from itself as JSON in %v", raw, d)
		}
	})
}
