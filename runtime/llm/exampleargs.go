package llm

import (
	"encoding/json"
	"strings"
)

// ExampleArguments returns arguments that satisfy a tool's JSON Schema, as
// the mock model sends them: every required property, strings their
// schema's first example if it fits, else "example" (padded or cut to
// minLength/maxLength), numbers and integers 1 (moved
// into minimum/maximum), booleans true, enums and const their first
// value, arrays minItems copies of an example item ([] when 0), objects
// recursively; anyOf/oneOf take the first branch, allOf merges objects,
// local $refs ("#/$defs/x") are followed. A schema it cannot read gives {}.
func ExampleArguments(schema json.RawMessage) json.RawMessage {
	var root any
	if len(schema) == 0 || json.Unmarshal(schema, &root) != nil {
		return json.RawMessage("{}")
	}
	g := &exampler{root: root}
	v := g.value(root, 0)
	if _, ok := v.(map[string]any); !ok {
		v = map[string]any{}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage("{}")
	}
	return b
}

type exampler struct{ root any }

const maxExampleDepth = 16

func (g *exampler) value(s any, depth int) any {
	m, ok := s.(map[string]any)
	if !ok || depth > maxExampleDepth {
		return nil
	}
	if ref, ok := m["$ref"].(string); ok {
		if t := g.resolve(ref); t != nil {
			return g.value(t, depth+1)
		}
	}
	if c, ok := m["const"]; ok {
		return c
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := m[k].([]any); ok && len(alts) > 0 {
			// The first branch that is not null.
			for _, a := range alts {
				if am, ok := a.(map[string]any); ok && am["type"] != "null" {
					return g.value(a, depth+1)
				}
			}
			return g.value(alts[0], depth+1)
		}
	}
	if all, ok := m["allOf"].([]any); ok && len(all) > 0 {
		merged := map[string]any{}
		for _, a := range all {
			if v, ok := g.value(a, depth+1).(map[string]any); ok {
				for k, x := range v {
					merged[k] = x
				}
			}
		}
		if own, ok := g.object(m, depth).(map[string]any); ok && m["properties"] != nil {
			for k, x := range own {
				merged[k] = x
			}
		}
		return merged
	}
	switch typeOf(m) {
	case "string":
		return exampleString(m)
	case "integer":
		return exampleNumber(m, true)
	case "number":
		return exampleNumber(m, false)
	case "boolean":
		return true
	case "null":
		return nil
	case "array":
		n := intOf(m["minItems"])
		out := make([]any, 0, n)
		for i := 0; i < n; i++ {
			out = append(out, g.value(m["items"], depth+1))
		}
		return out
	}
	return g.object(m, depth)
}

func (g *exampler) object(m map[string]any, depth int) any {
	out := map[string]any{}
	props, _ := m["properties"].(map[string]any)
	req, _ := m["required"].([]any)
	for _, r := range req {
		name, ok := r.(string)
		if !ok {
			continue
		}
		ps, ok := props[name]
		if !ok {
			ps = map[string]any{"type": "string"}
		}
		out[name] = g.value(ps, depth+1)
	}
	return out
}

// resolve follows a local JSON pointer ("#/$defs/item").
func (g *exampler) resolve(ref string) any {
	if !strings.HasPrefix(ref, "#") {
		return nil
	}
	cur := g.root
	for _, tok := range strings.Split(strings.TrimPrefix(ref, "#"), "/") {
		if tok == "" {
			continue
		}
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[tok]
	}
	return cur
}

// typeOf is the schema's type: the first non-null of a list; "object"
// when it has properties and no type; "" when it says nothing.
func typeOf(m map[string]any) string {
	switch t := m["type"].(type) {
	case string:
		return t
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok && s != "null" {
				return s
			}
		}
		if len(t) > 0 {
			return "null"
		}
	}
	if _, ok := m["properties"]; ok {
		return "object"
	}
	return ""
}

func exampleString(m map[string]any) string {
	// The schema's own first example, when it is a string that fits.
	if ex, ok := m["examples"].([]any); ok && len(ex) > 0 {
		if s, ok := ex[0].(string); ok && len(s) >= intOf(m["minLength"]) {
			if _, capped := m["maxLength"]; !capped || len(s) <= intOf(m["maxLength"]) {
				return s
			}
		}
	}
	s := "example"
	for n := intOf(m["minLength"]); len(s) < n; {
		s += "-example"
	}
	if _, ok := m["maxLength"]; ok {
		if n := intOf(m["maxLength"]); len(s) > n {
			s = s[:n]
		}
	}
	if n := intOf(m["minLength"]); len(s) < n {
		s += strings.Repeat("x", n-len(s))
	}
	return s
}

func exampleNumber(m map[string]any, integer bool) any {
	v := 1.0
	if f, ok := m["minimum"].(float64); ok && v < f {
		v = f
	}
	if f, ok := m["exclusiveMinimum"].(float64); ok && v <= f {
		v = f + 1
	}
	if f, ok := m["maximum"].(float64); ok && v > f {
		v = f
	}
	if f, ok := m["exclusiveMaximum"].(float64); ok && v >= f {
		v = f - 1
		if !integer {
			v = f - 0.5
		}
	}
	if integer {
		return int64(v)
	}
	return v
}

func intOf(v any) int {
	f, _ := v.(float64)
	if f < 0 || f > 1000 {
		return 0
	}
	return int(f)
}
