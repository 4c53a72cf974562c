package skills

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// Limits of the front matter parser: a YAML block is small, and aliases
// must not expand into a huge value (the billion-laughs document).
const (
	maxFrontmatter = 64 << 10
	maxNodes       = 10000
	maxDepth       = 64
)

var errNoFrontmatter = errors.New("it does not begin with a front matter block (a line ---, YAML, a line ---)")

// ParseFrontmatter splits a SKILL.md into its front matter, decoded to
// JSON-like values (map[string]any, []any, string, bool, nil, int64,
// float64), and the body after it. The document may start with a UTF-8
// BOM and use CRLF line ends; the block opens with a line "---" and
// closes with a line "---" (trailing blanks allowed), as the skills
// extension reads it.
func ParseFrontmatter(doc []byte) (fm map[string]any, body []byte, err error) {
	yml, body, ok := splitFrontmatter(doc)
	if !ok {
		return nil, nil, errNoFrontmatter
	}
	var root yaml.Node
	if err := yaml.Unmarshal(yml, &root); err != nil {
		return nil, nil, fmt.Errorf("its front matter is not valid YAML: %v", err)
	}
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		c := &conv{}
		v, err := c.value(root.Content[0], 0)
		if err != nil {
			return nil, nil, fmt.Errorf("its front matter: %v", err)
		}
		if m, ok := v.(map[string]any); ok {
			return m, body, nil
		}
	}
	return nil, nil, errors.New("its front matter is not a YAML mapping of fields")
}

// splitFrontmatter finds the YAML between the --- lines. The closing line
// is looked for in the first maxFrontmatter bytes only.
func splitFrontmatter(doc []byte) (yml, body []byte, ok bool) {
	doc = bytes.TrimPrefix(doc, []byte("\ufeff"))
	first, ok := cutLine(doc)
	if !ok || !first.newline || string(first.line) != "---" {
		return nil, nil, false
	}
	for pos := first.next; pos < len(doc) && pos-first.next <= maxFrontmatter; {
		l, _ := cutLine(doc[pos:])
		if string(bytes.TrimRight(l.line, " \t")) == "---" {
			return doc[first.next:pos], doc[pos+l.next:], true
		}
		pos += l.next
	}
	return nil, nil, false
}

type line struct {
	line    []byte // without its \r\n or \n
	next    int    // offset of the next line
	newline bool   // the line ended with a newline
}

func cutLine(b []byte) (line, bool) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return line{line: b, next: len(b)}, len(b) > 0
	}
	return line{line: bytes.TrimSuffix(b[:i], []byte("\r")), next: i + 1, newline: true}, true
}

// conv turns YAML nodes into JSON-like values, counting nodes so that
// aliases cannot multiply them.
type conv struct{ nodes int }

func (c *conv) value(n *yaml.Node, depth int) (any, error) {
	c.nodes++
	if c.nodes > maxNodes || depth > maxDepth {
		return nil, errors.New("it is too large or too deeply nested")
	}
	switch n.Kind {
	case yaml.AliasNode:
		return c.value(n.Alias, depth+1)
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, err := c.value(n.Content[i], depth+1)
			if err != nil {
				return nil, err
			}
			key := keyString(k)
			if _, dup := m[key]; dup {
				return nil, fmt.Errorf("the key %q appears twice", key)
			}
			v, err := c.value(n.Content[i+1], depth+1)
			if err != nil {
				return nil, err
			}
			m[key] = v
		}
		return m, nil
	case yaml.SequenceNode:
		list := make([]any, 0, len(n.Content))
		for _, e := range n.Content {
			v, err := c.value(e, depth+1)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		return list, nil
	case yaml.ScalarNode:
		return scalar(n)
	}
	return nil, fmt.Errorf("unexpected YAML node at line %d", n.Line)
}

// scalar resolves a scalar as YAML's core schema does. Timestamps, binary
// and custom tags stay the strings they are written as, which is what a
// JSON entry carries for them.
func scalar(n *yaml.Node) (any, error) {
	switch n.ShortTag() {
	case "!!null":
		return nil, nil
	case "!!bool":
		return decodeAs[bool](n)
	case "!!int":
		if i, err := decodeAs[int64](n); err == nil {
			return i, nil
		}
		return decodeAs[float64](n) // beyond int64: as JSON numbers are, a float
	case "!!float":
		return decodeAs[float64](n)
	}
	return n.Value, nil
}

func decodeAs[T any](n *yaml.Node) (any, error) {
	var v T
	if err := n.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

func keyString(k any) string {
	switch k := k.(type) {
	case string:
		return k
	case nil:
		return "null"
	case float64:
		return strconv.FormatFloat(k, 'g', -1, 64)
	}
	return fmt.Sprint(k)
}

// decodeJSON decodes a JSON value keeping numbers exact (json.Number).
func decodeJSON(raw json.RawMessage) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

// Differences compares front matter field by field: a (decoded from YAML)
// against b (decoded from JSON, numbers as json.Number). A field missing
// on one side equals null on the other. It returns the fields that differ,
// sorted.
func Differences(a, b map[string]any) []string {
	var out []string
	for k, v := range a {
		if !Equal(v, b[k]) {
			out = append(out, k)
		}
	}
	for k, v := range b {
		if _, seen := a[k]; !seen && !Equal(nil, v) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// Equal is deep equality of JSON-like values where numbers compare by
// value whatever their Go type (int64, float64, json.Number).
func Equal(a, b any) bool {
	if x, ok := number(a); ok {
		y, ok := number(b)
		return ok && x.equal(y)
	}
	switch a := a.(type) {
	case nil:
		return b == nil
	case string, bool:
		return a == b
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(a) != len(bm) {
			return false
		}
		for k, v := range a {
			w, ok := bm[k]
			if !ok || !Equal(v, w) {
				return false
			}
		}
		return true
	case []any:
		bl, ok := b.([]any)
		if !ok || len(a) != len(bl) {
			return false
		}
		for i := range a {
			if !Equal(a[i], bl[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

// num is a number as an exact integer when it is one, else a float.
type num struct {
	i     int64
	f     float64
	isInt bool
}

func (x num) equal(y num) bool {
	if x.isInt && y.isInt {
		return x.i == y.i
	}
	return x.float() == y.float()
}

func (x num) float() float64 {
	if x.isInt {
		return float64(x.i)
	}
	return x.f
}

func number(v any) (num, bool) {
	switch v := v.(type) {
	case int64:
		return num{i: v, isInt: true}, true
	case int:
		return num{i: int64(v), isInt: true}, true
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1<<63 {
			return num{i: int64(v), isInt: true}, true
		}
		return num{f: v}, true
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return num{i: i, isInt: true}, true
		}
		f, err := v.Float64()
		if err != nil {
			return num{}, false
		}
		return number(f)
	}
	return num{}, false
}
