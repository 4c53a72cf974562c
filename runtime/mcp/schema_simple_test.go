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
		// For the raw check: spacing, escapes, duplicate keys.
		` { "message" : "hi" } `, `{"mess\u0061ge":"hi"}`, `{"message":"h\"i"}`, `{"a":"x","a":1,"b":2}`,
		`{"a":1,"a":2}`, `{"b":2,"b":3}`, `{"a":-0.5e3,"b":-7}`, `{"a":1,"b":2,"\u007a":1}`,
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
			if s.AcceptsJSON([]byte(vs)) && full != nil {
				t.Errorf("%s: the raw check accepts %s, the validator refuses it: %v", sc.raw, vs, full)
			}
		}
	}
	// The shapes clients send are accepted without decoding.
	s, _ := CompileSchema(json.RawMessage(schemas[0].raw))
	for _, vs := range []string{`{"message":"hi"}`, ` { "message" : "hi" } `, `{"message":"h\"i"}`, `{"message":"hi","x":1}`} {
		if !s.AcceptsJSON([]byte(vs)) {
			t.Errorf("the raw check does not accept %s", vs)
		}
	}
}

// FuzzAcceptsJSON: whatever valid JSON the raw check accepts, the general
// validator accepts, for each simple schema.
func FuzzAcceptsJSON(f *testing.F) {
	raws := []string{
		`{"properties":{"message":{"type":"string"}},"required":["message"],"type":"object"}`,
		`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"integer"},"c":{"type":"boolean"},"d":{"type":"null"},"e":{"type":"object"},"f":{"type":"array"}},"required":["a","b"],"additionalProperties":false}`,
		`{"type":"object","required":["x"]}`,
	}
	var schemas []*Schema
	for _, r := range raws {
		s, err := CompileSchema(json.RawMessage(r))
		if err != nil || s.simple == nil {
			f.Fatalf("%s: %v", r, err)
		}
		schemas = append(schemas, s)
	}
	for _, v := range []string{`{"message":"hi"}`, `{"a":1,"b":2,"c":true,"d":null,"e":{},"f":[]}`, `{"a":1,"a":"x","b":2}`, `{"x":1e5}`} {
		f.Add([]byte(v))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var v any
		if json.Unmarshal(raw, &v) != nil {
			return
		}
		for i, s := range schemas {
			if s.AcceptsJSON(raw) {
				if err := s.rs.Validate(v); err != nil {
					t.Fatalf("schema %d: the raw check accepts %s, the validator refuses it: %v", i, raw, err)
				}
			}
		}
	})
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
