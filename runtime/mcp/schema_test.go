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
		{"too small", `{"email":"a@b","n":0}`, "argument n is 0, want at least 1"},
		{"missing at top", `{"n":2}`, "argument email is missing"},
		{"if/then", `{"contactMethod":"phone","email":"x"}`, "argument phone is missing"},
		{"nested through $ref", `{"email":"x","address":{"city":3}}`, `argument address.city is an integer, want a string`},
		{"array item", `{"email":"x","tags":["a",1]}`, `argument tags[] is an integer, want a string`},
		{"extra property", `{"email":"x","zip":"1"}`, "unknown argument zip"},
		{"fraction", `{"email":"x","n":1.5}`, `argument n is a number, want an integer`},
		// The validator prints a null as "<invalid reflect.Value>".
		{"null", `{"email":"x","n":null}`, `argument n is null, want an integer`},
		{"null nested", `{"email":"x","address":{"city":null}}`, `argument address.city is null, want a string`},
		{"null item", `{"email":"x","tags":[null]}`, `argument tags[] is null, want a string`},
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
	if got, want := ve.Problem("argument"), "argument a is null, want an integer or a string"; got != want {
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
		{`{"region":null}`, `argument region is missing`},
		{`{"region":"eu","verbose":"yes"}`, `argument verbose is a string, want a boolean`},
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

// Every problem is listed, in plain words, not only the validator's first.
func TestValidationListsEveryProblem(t *testing.T) {
	const schema = `{"type":"object","additionalProperties":false,
		"required":["a","b","c"],
		"properties":{
			"a":{"type":"number"},"b":{"type":"string"},"c":{"type":"boolean"},
			"color":{"enum":["red","green"]},
			"n":{"type":"integer","minimum":1,"maximum":10},
			"name":{"type":"string","minLength":2,"maxLength":5,"pattern":"^[a-z]+$"},
			"opt":{"type":"object","required":["x"],"properties":{"b":{"type":"integer"},"x":{"type":"string"}}},
			"tags":{"type":"array","maxItems":2,"items":{"type":"string"}},
			"z":{"type":["string","null"]}, "y":{"type":"string"}}}`
	s, err := CompileSchema(json.RawMessage(schema))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, args, want string }{
		{"type and missing", `{"a":"x"}`, `argument a is a string, want a number; argument b is missing; argument c is missing`},
		{"unknown", `{"a":1,"b":"","c":true,"zip":1,"city":"x"}`, `unknown argument city; unknown argument zip`},
		{"enum", `{"a":1,"b":"","c":true,"color":"blue"}`, `argument color is "blue", want one of "red", "green"`},
		{"min and max", `{"a":1,"b":"","c":true,"n":0}`, `argument n is 0, want at least 1`},
		{"max", `{"a":1,"b":"","c":true,"n":11}`, `argument n is 11, want at most 10`},
		{"string limits", `{"a":1,"b":"","c":true,"name":"ABCDEF"}`, `argument name has 6 characters, want at most 5; argument name is "ABCDEF", which does not match the pattern ^[a-z]+$`},
		{"nested", `{"a":1,"b":"","c":true,"opt":{"b":"x"}}`, `argument opt.b is a string, want an integer; argument opt.x is missing`},
		{"items", `{"a":1,"b":"","c":true,"tags":["a",2,null]}`, `argument tags has 3 items, want at most 2; argument tags[] is an integer, want a string; argument tags[] is null, want a string`},
		{"null", `{"a":null,"b":"","c":true,"y":null,"z":null}`, `argument a is null, want a number; argument y is null, want a string`},
		{"all at once", `{"a":"1","c":1,"n":0.5,"zip":0}`, `argument a is a string, want a number; argument b is missing; argument c is an integer, want a boolean; argument n is a number, want an integer; unknown argument zip`},
		{"not an object", `"x"`, `the arguments are a string, want an object`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var v any
			if err := json.Unmarshal([]byte(tc.args), &v); err != nil {
				t.Fatal(err)
			}
			var ve *ValidationError
			if err := s.Validate(v); !errors.As(err, &ve) {
				t.Fatalf("got %v, want a *ValidationError", err)
			}
			if got := ve.Problem("argument"); got != tc.want {
				t.Errorf("Problem =\n %q, want\n %q", got, tc.want)
			}
		})
	}
	// A long list is cut.
	var v any
	json.Unmarshal([]byte(`{"a":1,"b":"","c":true,"tags":[1,2,3,4,5,6,7,8,9,10,11,12]}`), &v)
	var ve *ValidationError
	if err := s.Validate(v); !errors.As(err, &ve) || !strings.HasSuffix(ve.Problem("argument"), "; and more") || strings.Count(ve.Problem("argument"), ";") != 10 {
		t.Errorf("a long list: %v", ve)
	}
}

// anyOf and oneOf with no choice satisfied say what each choice needs.
func TestValidationProblemsChoices(t *testing.T) {
	s, err := CompileSchema(json.RawMessage(`{"type":"object",
		"properties":{"id":{"oneOf":[{"type":"string","minLength":3},{"type":"integer","minimum":1}]}},
		"anyOf":[{"required":["phone"]},{"required":["email","name"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var v any
	json.Unmarshal([]byte(`{"id":"ab","name":"x"}`), &v)
	var ve *ValidationError
	if err := s.Validate(v); !errors.As(err, &ve) {
		t.Fatalf("got %v", err)
	}
	want := "argument phone is missing, or argument email is missing; " +
		"argument id has 2 characters, want at least 3, or argument id is a string, want an integer"
	if got := ve.Problem("argument"); got != want {
		t.Errorf("Problem =\n %q, want\n %q", got, want)
	}
}

// Draft-07: an items array checks positions, and $ref ignores its siblings.
func TestValidationProblemsDraft07(t *testing.T) {
	s, err := CompileSchema(json.RawMessage(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object",
		"definitions":{"s":{"type":"string"}},
		"properties":{"pair":{"type":"array","items":[{"type":"string"},{"type":"number"}]},
			"r":{"$ref":"#/definitions/s","type":"number"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	var v any
	json.Unmarshal([]byte(`{"pair":[1,"x"],"r":5}`), &v)
	var ve *ValidationError
	if err := s.Validate(v); !errors.As(err, &ve) {
		t.Fatalf("got %v", err)
	}
	if got, want := ve.Problem("argument"), "argument pair[] is an integer, want a string; argument pair[] is a string, want a number; argument r is an integer, want a string"; got != want {
		t.Errorf("Problem =\n %q, want\n %q", got, want)
	}
}
