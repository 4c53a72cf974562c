package mcp

import (
	"encoding/json"
	"testing"
)

// The fast check of simple schemas only ever accepts what the general
// validator accepts, and is used for the schemas luagent writes from a
// shorthand input.
func TestSimpleSchemaAgrees(t *testing.T) {
	schemas := []struct {
		raw    string
		simple bool
	}{
		{`{"properties":{"message":{"type":"string"}},"required":["message"],"type":"object"}`, true},
		{`{"type":"object","properties":{"a":{"type":"number","description":"x"},"b":{"type":"integer","title":"B"},"c":{"type":"boolean"},"d":{"type":"null"},"e":{"type":"object"},"f":{"type":"array"}},"required":["a","b"],"additionalProperties":false}`, true},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"n":{"type":"integer"}},"additionalProperties":true,"description":"d"}`, true},
		{`{"type":"object"}`, true},
		{`{"type":"object","required":["x"]}`, true},
		// Anything more is left to the general validator.
		{`{"type":"object","properties":{"n":{"type":"integer","minimum":1}}}`, false},
		{`{"type":"object","properties":{"t":{"type":"array","items":{"type":"string"}}}}`, false},
		{`{"type":"object","properties":{"t":{"type":["string","null"]}}}`, false},
		{`{"type":"object","properties":{"t":{}}}`, false},
		{`{"type":"object","properties":{"t":true}}`, false},
		{`{"type":"object","properties":{"e":{"type":"string","enum":["a"]}}}`, false},
		{`{"type":"object","additionalProperties":{"type":"string"}}`, false},
		{`{"properties":{"a":{"type":"string"}}}`, false}, // no type: any value
		{`{"type":"array"}`, false},
		{`{"type":"object","$defs":{}}`, false},
		{`{"type":"object","properties":{"a":{"type":"string","default":"x"}}}`, false},
		{`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"a":{"type":"string"}}}`, true},
	}
	values := []string{
		`{}`, `{"message":"hi"}`, `{"message":1}`, `{"message":null}`, `{"message":"hi","x":1}`,
		`{"a":1.5,"b":2}`, `{"a":1,"b":2.0}`, `{"a":1,"b":2.5}`, `{"a":"1","b":2}`,
		`{"a":1,"b":2,"c":true,"d":null,"e":{},"f":[]}`, `{"a":1,"b":2,"c":"true"}`, `{"a":1,"b":2,"d":0}`,
		`{"a":1,"b":2,"e":[],"f":{}}`, `{"a":1,"b":2,"z":1}`, `{"n":3}`, `{"n":3.25}`, `{"n":1e300}`, `{"x":null}`,
		`[]`, `"s"`, `null`, `1`,
	}
	for _, sc := range schemas {
		s, err := CompileSchema(json.RawMessage(sc.raw))
		if err != nil {
			t.Fatalf("%s: %v", sc.raw, err)
		}
		if (s.simple != nil) != sc.simple {
			t.Errorf("%s: simple = %v, want %v", sc.raw, s.simple != nil, sc.simple)
		}
		if s.simple == nil {
			continue
		}
		for _, vs := range values {
			var v any
			if err := json.Unmarshal([]byte(vs), &v); err != nil {
				t.Fatal(err)
			}
			full := s.rs.Validate(v)
			fast := s.simple.accepts(v)
			if fast && full != nil {
				t.Errorf("%s: the fast check accepts %s, the validator refuses it: %v", sc.raw, vs, full)
			}
			if !fast && full == nil {
				t.Errorf("%s: the fast check does not accept %s, which is valid (not wrong, but slow)", sc.raw, vs)
			}
			if got := s.Validate(v); (got == nil) != (full == nil) {
				t.Errorf("%s, %s: Validate = %v, validator = %v", sc.raw, vs, got, full)
			}
		}
	}
}

func BenchmarkValidateShorthand(b *testing.B) {
	s, err := CompileSchema(json.RawMessage(`{"properties":{"message":{"type":"string"}},"required":["message"],"type":"object"}`))
	if err != nil {
		b.Fatal(err)
	}
	args := []byte(`{"message":"hi"}`)
	b.ReportAllocs()
	for b.Loop() {
		var v any
		json.Unmarshal(args, &v)
		if err := s.Validate(v); err != nil {
			b.Fatal(err)
		}
	}
}
