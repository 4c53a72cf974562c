package mcp

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The validator (jsonschema-go) stops at the first failure and words it for
// programmers ("type: x has type "string", want "number""). A caller —
// often a model — should fix every mistake in one go, so when the
// validator refuses a value, problems walks the schema beside the value and
// lists each failure of the common keywords in plain words:
//
//	argument a is a string, want a number; argument b is missing
//
// The validator alone decides whether a value is valid; the walk only
// words why not. Keywords the walk does not follow (anyOf, oneOf, not,
// if/then/else, dependent*, unevaluated*, remote $refs) are judged by the
// validator, whose first complaint is used when the walk finds nothing.

// maxProblems bounds the list (an array of a thousand bad items says so
// in a line, not a thousand).
const maxProblems = 10

// A problem is one failure: the instance field (a.b, a[]; "" is the whole
// value) and what is wrong, worded after the field's name (" is missing").
// unknown problems read "unknown <noun> <field>" instead.
type problem struct {
	field   string
	what    string
	unknown bool
	alts    [][]problem // anyOf/oneOf: what each choice would need
}

func (p problem) text(noun string) string {
	if len(p.alts) > 0 {
		choices := make([]string, len(p.alts))
		for i, alt := range p.alts {
			texts := make([]string, len(alt))
			for j, q := range alt {
				texts[j] = q.text(noun)
			}
			choices[i] = strings.Join(texts, " and ")
		}
		return strings.Join(choices, ", or ")
	}
	if p.unknown {
		return "unknown " + noun + " " + p.field
	}
	if p.field == "" {
		// "the arguments are a string, want an object"
		what, _ := strings.CutPrefix(p.what, " is ")
		if what != p.what {
			return "the " + noun + "s are " + what
		}
		return "the " + noun + "s" + p.what
	}
	return noun + " " + p.field + p.what
}

// walker walks a schema (decoded JSON) beside a value.
type walker struct {
	root    any
	draft07 bool // $ref ignores its siblings
	out     []problem
	more    bool // problems past maxProblems were dropped
}

func (w *walker) add(field, what string) { w.addProblem(problem{field: field, what: what}) }

func (w *walker) addProblem(p problem) {
	if len(w.out) == maxProblems {
		w.more = true
		return
	}
	w.out = append(w.out, p)
}

// full says to stop walking: enough is known to say "and more".
func (w *walker) full() bool { return w.more }

// walk checks v against schema s at field; depth bounds $ref loops.
func (w *walker) walk(s any, v any, field string, depth int) {
	if depth > 32 || w.full() {
		return
	}
	switch s := s.(type) {
	case bool:
		if !s {
			w.add(field, " is not allowed")
		}
		return
	case map[string]any:
		w.node(s, v, field, depth)
	}
}

func (w *walker) node(s map[string]any, v any, field string, depth int) {
	if ref, ok := s["$ref"].(string); ok {
		if target, ok := w.resolve(ref); ok {
			w.walk(target, v, field, depth+1)
		}
		if w.draft07 {
			return
		}
	}
	if all, ok := s["allOf"].([]any); ok {
		for _, sub := range all {
			w.walk(sub, v, field, depth+1)
		}
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		w.choices(s[key], v, field, depth)
	}
	if want, ok := typesOf(s["type"]); ok && !slices.ContainsFunc(want, func(t string) bool { return hasType(v, t) }) {
		got := jsonType(v)
		if got == "null" {
			w.add(field, " is null, want "+articled(want))
		} else {
			w.add(field, " is "+article(got)+", want "+articled(want))
		}
		return // the other keywords say little about a value of the wrong type
	}
	if enum, ok := s["enum"].([]any); ok && !slices.ContainsFunc(enum, func(e any) bool { return jsonEqual(e, v) }) {
		vals := make([]string, 0, len(enum))
		for _, e := range enum {
			vals = append(vals, shown(e))
		}
		w.add(field, " is "+shown(v)+", want one of "+strings.Join(vals, ", "))
	}
	if c, ok := s["const"]; ok && !jsonEqual(c, v) {
		w.add(field, " is "+shown(v)+", want "+shown(c))
	}
	switch x := v.(type) {
	case float64:
		w.number(s, x, field)
	case string:
		w.str(s, x, field)
	case []any:
		w.array(s, x, field, depth)
	case map[string]any:
		w.object(s, x, field, depth)
	}
}

// choices words an anyOf/oneOf that no choice satisfies: what each would
// need. A choice the walk finds nothing wrong with may still fail (or, for
// oneOf, match along with another): the validator judges those.
func (w *walker) choices(list any, v any, field string, depth int) {
	subs, _ := list.([]any)
	if len(subs) == 0 {
		return
	}
	var alts [][]problem
	for _, sub := range subs {
		cw := &walker{root: w.root, draft07: w.draft07}
		cw.walk(sub, v, field, depth+1)
		if len(cw.out) == 0 {
			return
		}
		alts = append(alts, cw.out)
	}
	w.addProblem(problem{field: field, alts: alts})
}

func (w *walker) number(s map[string]any, n float64, field string) {
	bound := func(k string) (float64, bool) { f, ok := s[k].(float64); return f, ok }
	if m, ok := bound("minimum"); ok && n < m {
		w.add(field, " is "+num(n)+", want at least "+num(m))
	}
	if m, ok := bound("maximum"); ok && n > m {
		w.add(field, " is "+num(n)+", want at most "+num(m))
	}
	if m, ok := bound("exclusiveMinimum"); ok && n <= m {
		w.add(field, " is "+num(n)+", want more than "+num(m))
	}
	if m, ok := bound("exclusiveMaximum"); ok && n >= m {
		w.add(field, " is "+num(n)+", want less than "+num(m))
	}
	if m, ok := bound("multipleOf"); ok && m > 0 {
		if q := n / m; q != math.Trunc(q) {
			w.add(field, " is "+num(n)+", want a multiple of "+num(m))
		}
	}
}

func (w *walker) str(s map[string]any, x string, field string) {
	n := utf8.RuneCountInString(x)
	if m, ok := s["minLength"].(float64); ok && float64(n) < m {
		w.add(field, " has "+plural(n, "character")+", want at least "+num(m))
	}
	if m, ok := s["maxLength"].(float64); ok && float64(n) > m {
		w.add(field, " has "+plural(n, "character")+", want at most "+num(m))
	}
	if p, ok := s["pattern"].(string); ok {
		if re, err := regexp.Compile(p); err == nil && !re.MatchString(x) {
			w.add(field, " is "+shown(x)+", which does not match the pattern "+p)
		}
	}
}

func (w *walker) array(s map[string]any, a []any, field string, depth int) {
	if m, ok := s["minItems"].(float64); ok && float64(len(a)) < m {
		w.add(field, " has "+plural(len(a), "item")+", want at least "+num(m))
	}
	if m, ok := s["maxItems"].(float64); ok && float64(len(a)) > m {
		w.add(field, " has "+plural(len(a), "item")+", want at most "+num(m))
	}
	if u, _ := s["uniqueItems"].(bool); u {
	dup:
		for i := range a {
			for j := i + 1; j < len(a); j++ {
				if jsonEqual(a[i], a[j]) {
					w.add(field, " has the same item twice, want each item once")
					break dup
				}
			}
		}
	}
	// prefixItems (2020-12) or an items array (draft-07) check positions;
	// items (2020-12, after the prefix) or additionalItems the rest.
	prefix, rest := s["prefixItems"], s["items"]
	if list, ok := rest.([]any); ok {
		prefix, rest = list, s["additionalItems"]
	}
	pre, _ := prefix.([]any)
	item := field + "[]"
	for i, x := range a {
		if w.full() {
			return
		}
		if i < len(pre) {
			w.walk(pre[i], x, item, depth+1)
		} else if rest != nil {
			w.walk(rest, x, item, depth+1)
		}
	}
}

func (w *walker) object(s map[string]any, o map[string]any, field string, depth int) {
	child := func(k string) string {
		if field == "" {
			return k
		}
		return field + "." + k
	}
	if req, ok := s["required"].([]any); ok {
		for _, r := range req {
			if k, ok := r.(string); ok {
				if _, has := o[k]; !has {
					w.add(child(k), " is missing")
				}
			}
		}
	}
	props, _ := s["properties"].(map[string]any)
	patterns, _ := s["patternProperties"].(map[string]any)
	extra, hasExtra := s["additionalProperties"]
	keys := make([]string, 0, len(o))
	for k := range o {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if w.full() {
			return
		}
		matched := false
		if ps, ok := props[k]; ok {
			matched = true
			w.walk(ps, o[k], child(k), depth+1)
		}
		for p, ps := range patterns {
			if re, err := regexp.Compile(p); err == nil && re.MatchString(k) {
				matched = true
				w.walk(ps, o[k], child(k), depth+1)
			}
		}
		if matched || !hasExtra {
			continue
		}
		if b, ok := extra.(bool); ok && !b {
			w.addProblem(problem{field: child(k), unknown: true})
			continue
		}
		w.walk(extra, o[k], child(k), depth+1)
	}
	if m, ok := s["minProperties"].(float64); ok && float64(len(o)) < m {
		w.add(field, " has "+plural(len(o), "property")+", want at least "+num(m))
	}
	if m, ok := s["maxProperties"].(float64); ok && float64(len(o)) > m {
		w.add(field, " has "+plural(len(o), "property")+", want at most "+num(m))
	}
}

// resolve finds a reference inside the document: "#", a JSON pointer
// ("#/$defs/a") or an anchor ("#a"). Others are the validator's business.
func (w *walker) resolve(ref string) (any, bool) {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, false
	}
	if frag == "" || strings.HasPrefix(frag, "/") {
		cur := w.root
		for _, tok := range strings.Split(frag, "/")[1:] {
			tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
			switch c := cur.(type) {
			case map[string]any:
				cur, ok = c[tok]
			case []any:
				i, err := strconv.Atoi(tok)
				ok = err == nil && i >= 0 && i < len(c)
				if ok {
					cur = c[i]
				}
			default:
				ok = false
			}
			if !ok {
				return nil, false
			}
		}
		return cur, true
	}
	return findAnchor(w.root, frag)
}

func findAnchor(s any, name string) (any, bool) {
	switch x := s.(type) {
	case map[string]any:
		if a, _ := x["$anchor"].(string); a == name {
			return x, true
		}
		if id, _ := x["$id"].(string); id == "#"+name { // draft-07
			return x, true
		}
		for _, c := range x {
			if r, ok := findAnchor(c, name); ok {
				return r, true
			}
		}
	case []any:
		for _, c := range x {
			if r, ok := findAnchor(c, name); ok {
				return r, true
			}
		}
	}
	return nil, false
}

// typesOf reads "type": one name or a list.
func typesOf(t any) ([]string, bool) {
	switch t := t.(type) {
	case string:
		return []string{t}, true
	case []any:
		var out []string
		for _, x := range t {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out, len(out) > 0
	}
	return nil, false
}

// jsonType names the JSON type of v (as encoding/json decodes into any).
func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case float64:
		if x == math.Trunc(x) && !math.IsInf(x, 0) {
			return "integer"
		}
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

func article(t string) string {
	switch t {
	case "null":
		return "null"
	case "integer", "object", "array":
		return "an " + t
	}
	return "a " + t
}

func articled(types []string) string {
	parts := make([]string, len(types))
	for i, t := range types {
		parts[i] = article(t)
	}
	return strings.Join(parts, " or ")
}

func jsonEqual(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}

// shown renders a value for a message, cut to a readable length.
func shown(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 60 {
		return string(b[:57]) + "..."
	}
	return string(b)
}

func num(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "y") {
		return strconv.Itoa(n) + " " + strings.TrimSuffix(noun, "y") + "ies"
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
