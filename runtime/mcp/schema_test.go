package mcp

import (
	"encoding/json"
	"errors"
	"testing"
)

// What a user reads when arguments do not match a tool's schema.
func TestValidationProblem(t *testing.T) {
	const schema2020 = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",
		"$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"city":{"type":"string"}}}},
		"properties":{"n":{"type":"integer","minimum":1},"address":{"$ref":"#/$defs/address"},
			"tags":{"type":"array","items":{"type":"string"}},"contactMethod":{"enum":["phone","email"]},
			"phone":{"type":"string"},"email":{"type":"string"}},
		"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},
		"then":{"required":["phone"]},"else":{"required":["email"]},
		"additionalProperties":false}`
	s, err := CompileSchema(json.RawMessage(schema2020))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, args string
		want       string // "" = valid
	}{
		{"valid", `{"email":"a@b","n":2}`, ""},
		{"too small", `{"email":"a@b","n":0}`, "argument 'n': minimum: 0 is less than 1"},
		{"missing at top", `{"n":2}`, "missing required argument email"},
		{"if/then", `{"contactMethod":"phone","email":"x"}`, "missing required argument phone"},
		{"nested through $ref", `{"email":"x","address":{"city":3}}`, `argument 'city': type: 3 has type "integer", want "string"`},
		{"array item", `{"email":"x","tags":["a",1]}`, `argument 'tags[]': type: 1 has type "integer", want "string"`},
		{"extra property", `{"email":"x","zip":"1"}`, "unknown argument zip"},
		{"fraction", `{"email":"x","n":1.5}`, `argument 'n': type: 1.5 has type "number", want "integer"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var v any
			json.Unmarshal([]byte(tc.args), &v)
			err := s.Validate(v)
			if tc.name == "valid" {
				if err != nil {
					t.Fatalf("valid arguments refused: %v", err)
				}
				return
			}
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("got %v, want a *ValidationError", err)
			}
			got := ve.Problem("argument")
			if tc.want != "" && got != tc.want {
				t.Errorf("Problem = %q, want %q", got, tc.want)
			}
			t.Logf("%s", got)
		})
	}
}
