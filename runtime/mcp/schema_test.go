package mcp

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/errs"
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
		// The validator prints a null as "<invalid reflect.Value>".
		{"null", `{"email":"x","n":null}`, `argument 'n' is null; want integer`},
		{"null nested", `{"email":"x","address":{"city":null}}`, `argument 'city' is null; want string`},
		{"null item", `{"email":"x","tags":[null]}`, `argument 'tags[]' is null; want string`},
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

// A null against a union of types names them all.
func TestValidationProblemNullUnion(t *testing.T) {
	s, err := CompileSchema(json.RawMessage(`{"type":"object","properties":{"a":{"type":["integer","string"]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	var ve *ValidationError
	if err := s.Validate(map[string]any{"a": nil}); !errors.As(err, &ve) {
		t.Fatalf("got %v, want a *ValidationError", err)
	}
	if got, want := ve.Problem("argument"), "argument 'a' is null; want integer or string"; got != want {
		t.Errorf("Problem = %q, want %q", got, want)
	}
}

// A null argument passes the client's check like an omitted one (SEP-2243
// servers read null as "not provided"), and a null required one is missing.
func TestValidateArgsNull(t *testing.T) {
	s, err := CompileSchema(json.RawMessage(`{"type":"object","properties":{"region":{"type":"string"},"verbose":{"type":"boolean"}},"required":["region"]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ args, want string }{
		{`{"region":"eu","verbose":null}`, ""},
		{`{"region":null}`, `missing required argument region`},
		{`{"region":"eu","verbose":"yes"}`, `argument 'verbose': type: yes has type "string", want "boolean"`},
	} {
		var v any
		json.Unmarshal([]byte(tc.args), &v)
		err := validateArgs(s, "t", v)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s refused: %v", tc.args, err)
		case tc.want != "" && (err == nil || !strings.HasSuffix(err.Error(), tc.want) || errs.KindOf(err) != errs.Invalid):
			t.Errorf("%s: got %v, want kind invalid ending %q", tc.args, err, tc.want)
		}
	}
}
