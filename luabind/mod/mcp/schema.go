package mcp

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/luagent/luagent/luabind/value"
	lua "github.com/yuin/gopher-lua"
)

// A tool's input may be written as a shorthand:
//
//	input = { a = "number", b = { type = "string", description = "…", default = "x" },
//	          c = "string?", tags = "string[]" }
//
// Each key is a property; "T" is required, "T?" optional, "T[]" an array of
// T; a table is the property's own schema (optional when it has a default
// or optional = true). A table that looks like a JSON Schema itself (it has
// type, $schema, properties, $defs, anyOf, oneOf, allOf or $ref at the top)
// is used exactly as written.

var schemaKeys = []string{"type", "$schema", "properties", "$defs", "anyOf", "oneOf", "allOf", "$ref", "additionalProperties"}

func isFullSchema(t *lua.LTable) bool {
	for _, k := range schemaKeys {
		if t.RawGetString(k) != lua.LNil {
			return true
		}
	}
	return false
}

// isPlainShorthand reports whether a tool's input (or output) field is
// absent or a shorthand of type names only: luagent then writes the whole
// schema itself, and it cannot fail to compile.
func isPlainShorthand(v lua.LValue) bool {
	if v == lua.LNil {
		return true
	}
	t, ok := v.(*lua.LTable)
	if !ok || isFullSchema(t) {
		return false
	}
	plain := true
	t.ForEach(func(_, v lua.LValue) {
		if _, ok := v.(lua.LString); !ok {
			plain = false
		}
	})
	return plain
}

var jsonTypes = map[string]bool{"string": true, "number": true, "integer": true, "boolean": true, "object": true, "array": true, "null": true}

// inputSchema turns a tool's input field into a JSON Schema.
func inputSchema(v lua.LValue) (json.RawMessage, error) {
	switch t := v.(type) {
	case *lua.LNilType:
		return json.RawMessage(`{"type":"object","additionalProperties":false}`), nil
	case *lua.LTable:
		if isFullSchema(t) {
			return value.Encode(t, value.EncodeOptions{})
		}
		return expandShorthand(t)
	}
	return nil, fmt.Errorf("input must be a table (a shorthand or a JSON Schema), not a %s", v.Type())
}

// schemaOf is mcp.schema(input): the JSON Schema a tool's input shorthand
// (or nil, or a full schema) stands for, as a table — for tools defined
// outside mcp.server (an agent's own tools).
func schemaOf(L *lua.LState) int {
	raw, err := inputSchema(L.Get(1))
	if err != nil {
		L.ArgError(1, err.Error())
	}
	v, err := value.Decode(L, raw)
	if err != nil {
		L.RaiseError("%s", err.Error())
	}
	L.Push(v)
	return 1
}

// outputSchema encodes a tool's output schema (a full schema, or a
// shorthand as for input).
func outputSchema(v lua.LValue) (json.RawMessage, error) {
	if v == lua.LNil {
		return nil, nil
	}
	return inputSchema(v)
}

func expandShorthand(t *lua.LTable) (json.RawMessage, error) {
	props := map[string]any{}
	var required []string
	var bad error
	t.ForEach(func(k, v lua.LValue) {
		if bad != nil {
			return
		}
		name, ok := k.(lua.LString)
		if !ok {
			bad = fmt.Errorf("input shorthand keys must be property names, not %s", k.Type())
			return
		}
		switch pv := v.(type) {
		case lua.LString:
			s := string(pv)
			opt := strings.HasSuffix(s, "?")
			s = strings.TrimSuffix(s, "?")
			if !jsonTypes[strings.TrimRight(s, "[]")] {
				bad = fmt.Errorf("input.%s: unknown type %q (string, number, integer, boolean, object, array or null; add ? for optional, [] for a list)", name, string(pv))
				return
			}
			props[string(name)] = typeSchema(s)
			if !opt {
				required = append(required, string(name))
			}
		case *lua.LTable:
			opt := lua.LVAsBool(pv.RawGetString("optional")) || pv.RawGetString("default") != lua.LNil
			raw, err := value.FromLua(pv)
			if err != nil {
				bad = fmt.Errorf("input.%s: %v", name, err)
				return
			}
			if m, ok := raw.(map[string]any); ok {
				delete(m, "optional")
				if ts, ok := m["type"].(string); ok && strings.HasSuffix(ts, "[]") {
					for k, v := range typeSchema(ts) {
						m[k] = v
					}
				}
			}
			props[string(name)] = raw
			if !opt {
				required = append(required, string(name))
			}
		default:
			bad = fmt.Errorf("input.%s must be a type name (\"string\", \"number?\") or a schema table, not a %s", name, v.Type())
		}
	})
	if bad != nil {
		return nil, bad
	}
	sort.Strings(required)
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return json.Marshal(s)
}

// typeSchema is the schema of a shorthand type name: "string", "integer",
// "number", "boolean", "object", "array", or "T[]".
func typeSchema(s string) map[string]any {
	if strings.HasSuffix(s, "[]") {
		return map[string]any{"type": "array", "items": typeSchema(strings.TrimSuffix(s, "[]"))}
	}
	return map[string]any{"type": s}
}
