package llm

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// PromptPairs are the k=v words of a prompt, as the mock model reads them:
// a key (a letter or _, then letters, digits, _ or -) right before "=",
// at the start or after a blank; the value runs to the next blank, and
// quotes hold blanks as a shell's do (k="a b", k='a b'; \" and \\ inside
// double quotes). An unclosed quote runs to the end. A later pair wins.
func PromptPairs(prompt string) map[string]string {
	var out map[string]string
	i := 0
	for i < len(prompt) {
		// At the start of a word.
		j := i
		for j < len(prompt) && isKeyByte(prompt[j], j == i) {
			j++
		}
		if j > i && j < len(prompt) && prompt[j] == '=' {
			key := prompt[i:j]
			val, next := promptValue(prompt, j+1)
			if out == nil {
				out = map[string]string{}
			}
			out[key] = val
			i = next
		} else {
			for i < len(prompt) && !isBlank(prompt[i]) {
				i++
			}
		}
		for i < len(prompt) && isBlank(prompt[i]) {
			i++
		}
	}
	return out
}

// promptValue reads a value from i to the next blank outside quotes.
func promptValue(s string, i int) (string, int) {
	var b strings.Builder
	for i < len(s) && !isBlank(s[i]) {
		switch q := s[i]; q {
		case '"', '\'':
			i++
			for i < len(s) && s[i] != q {
				if q == '"' && s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
					i++
				}
				b.WriteByte(s[i])
				i++
			}
			i++ // the closing quote (or past the end)
		default:
			b.WriteByte(q)
			i++
		}
	}
	return b.String(), min(i, len(s))
}

func isKeyByte(c byte, first bool) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || !first && (c == '-' || c >= '0' && c <= '9')
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// MockArguments are the arguments the mock model sends: the prompt's k=v
// pairs (PromptPairs), each typed as the schema's property says (integer,
// number, boolean, null, or JSON for an array or object; a value that is
// not of that type is sent as the string typed, for the schema check to
// name), over ExampleArguments for what the prompt does not give. A key
// the schema does not name is sent unless additionalProperties is false.
func MockArguments(schema json.RawMessage, prompt string) json.RawMessage {
	base := ExampleArguments(schema)
	pairs := PromptPairs(prompt)
	if len(pairs) == 0 {
		return base
	}
	args := map[string]any{}
	if json.Unmarshal(base, &args) != nil {
		return base
	}
	var root map[string]any
	_ = json.Unmarshal(schema, &root) // a schema it cannot read: strings, as typed
	g := &exampler{root: root}
	props, _ := root["properties"].(map[string]any)
	closed := root["additionalProperties"] == false
	for k, v := range pairs {
		ps, known := props[k]
		if !known && closed {
			continue
		}
		args[k] = v
		if x, ok := g.typed(ps, v, 0); ok {
			args[k] = x
		}
	}
	b, err := json.Marshal(args)
	if err != nil {
		return base
	}
	return b
}

// typed converts v to the first type of s it parses as (false: none).
func (g *exampler) typed(s any, v string, depth int) (any, bool) {
	m, ok := s.(map[string]any)
	if !ok || depth > maxExampleDepth {
		return nil, false
	}
	if ref, ok := m["$ref"].(string); ok {
		if t := g.resolve(ref); t != nil {
			return g.typed(t, v, depth+1)
		}
	}
	var kinds []string
	switch t := m["type"].(type) {
	case string:
		kinds = []string{t}
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok {
				kinds = append(kinds, s)
			}
		}
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := m[k].([]any); ok {
			for _, a := range alts {
				if x, ok := g.typed(a, v, depth+1); ok {
					return x, true
				}
			}
		}
	}
	for _, k := range kinds {
		if x, ok := parseAs(k, v); ok {
			return x, true
		}
	}
	return nil, false
}

func parseAs(kind, v string) (any, bool) {
	switch kind {
	case "string":
		return v, true
	case "integer":
		n, err := strconv.ParseInt(v, 10, 64)
		return n, err == nil
	case "number":
		f, err := strconv.ParseFloat(v, 64)
		return f, err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
	case "boolean":
		return v == "true", v == "true" || v == "false"
	case "null":
		return nil, v == "null"
	case "array":
		var a []any
		return a, json.Unmarshal([]byte(v), &a) == nil && a != nil
	case "object":
		var o map[string]any
		return o, json.Unmarshal([]byte(v), &o) == nil && o != nil
	}
	return nil, false
}
