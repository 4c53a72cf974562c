package chat

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/errs"
)

const formParams = `{"mode": "form", "message": "Tell me about you", "requestedSchema": {"type": "object",
  "properties": {
    "name": {"type": "string", "title": "Your name", "minLength": 2, "maxLength": 10},
    "email": {"type": "string", "format": "email"},
    "age": {"type": "integer", "minimum": 0, "maximum": 150},
    "ratio": {"type": "number", "maximum": 1},
    "agree": {"type": "boolean", "default": false},
    "color": {"type": "string", "enum": ["r", "g"], "enumNames": ["Red", "Green"], "default": "g"},
    "size": {"type": "string", "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}]},
    "tags": {"type": "array", "items": {"anyOf": [{"const": "a", "title": "Alpha"}, {"const": "b", "title": "Beta"}]}, "minItems": 1, "maxItems": 2},
    "when": {"type": "string", "format": "date"}
  },
  "required": ["name", "age"]}}`

func TestParseFormKeepsTheServersOrder(t *testing.T) {
	f, err := ParseForm(json.RawMessage(formParams))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, fd := range f.Fields {
		names = append(names, fd.Name)
	}
	if strings.Join(names, " ") != "name email age ratio agree color size tags when" || f.Message != "Tell me about you" {
		t.Fatalf("fields %v, message %q", names, f.Message)
	}
	labels := map[string]string{}
	for _, fd := range f.Fields {
		labels[fd.Name] = fd.Label()
	}
	for name, want := range map[string]string{
		"name":  "Your name (text, 2-10 chars, required)",
		"age":   "age (integer, 0 to 150, required)",
		"ratio": "ratio (number, at most 1)",
		"agree": "agree (y/n) [false]",
		"color": "color (one of 1=Red (r), 2=Green (g)) [g]",
		"tags":  "tags (any of 1=Alpha (a), 2=Beta (b); comma-separated)",
		"email": "email (email)",
	} {
		if labels[name] != want {
			t.Errorf("label of %s = %q, want %q", name, labels[name], want)
		}
	}
}

func TestFieldParse(t *testing.T) {
	f, err := ParseForm(json.RawMessage(formParams))
	if err != nil {
		t.Fatal(err)
	}
	field := map[string]Field{}
	for _, fd := range f.Fields {
		field[fd.Name] = fd
	}
	for _, tc := range []struct {
		field, in string
		want      any
		set       bool
		bad       string // part of the error
	}{
		{"name", "Ada", "Ada", true, ""},
		{"name", "A", nil, false, "1 chars"},
		{"name", "Adalovelace!", nil, false, "12 chars"},
		{"name", "", nil, false, "required"},
		{"email", "ada@example.com", "ada@example.com", true, ""},
		{"email", "ada at example", nil, false, "not an email"},
		{"email", "", nil, false, ""},
		{"age", "42", int64(42), true, ""},
		{"age", "4.5", nil, false, "not an integer"},
		{"age", "abc", nil, false, "not a number"},
		{"age", "151", nil, false, "out of range"},
		{"age", "-1", nil, false, "out of range"},
		{"ratio", "0.25", 0.25, true, ""},
		{"ratio", "2", nil, false, "out of range"},
		{"agree", "y", true, true, ""},
		{"agree", "No", false, true, ""},
		{"agree", "", false, true, ""}, // the default
		{"agree", "maybe", nil, false, "answer y or n"},
		{"color", "1", "r", true, ""},
		{"color", "green", "g", true, ""},
		{"color", "", "g", true, ""},
		{"color", "blue", nil, false, "not one of the choices"},
		{"size", "Large", "l", true, ""},
		{"tags", "1, beta", []string{"a", "b"}, true, ""},
		{"tags", "a,a", []string{"a"}, true, ""},
		{"tags", "1,2,1", []string{"a", "b"}, true, ""},
		{"tags", "c", nil, false, "not one of the choices"},
		{"when", "2026-12-02", "2026-12-02", true, ""},
		{"when", "12/02/2026", nil, false, "not a date"},
	} {
		v, set, err := field[tc.field].Parse(tc.in)
		if tc.bad != "" {
			if err == nil || !strings.Contains(err.Error(), tc.bad) {
				t.Errorf("%s %q: %v, %v, %v; want an error with %q", tc.field, tc.in, v, set, err, tc.bad)
			}
			continue
		}
		if err != nil || set != tc.set || !reflect.DeepEqual(v, tc.want) {
			t.Errorf("%s %q = %#v, %v, %v; want %#v, %v", tc.field, tc.in, v, set, err, tc.want, tc.set)
		}
	}
}

func TestParseFormRefusesWhatIsNotAForm(t *testing.T) {
	for _, params := range []string{
		`{"message": "m", "requestedSchema": {"properties": {"x": {"type": "object"}}}}`,
		`{"message": "m", "requestedSchema": {"properties": {"x": {"type": "array"}}}}`,
		`{"message": "m", "requestedSchema": {"properties": {"x": {"type": "array", "items": {"type": "string"}}}}}`,
		`{"message": "m", "requestedSchema": {"properties": [1]}}`,
		`not json`,
	} {
		if _, err := ParseForm(json.RawMessage(params)); errs.KindOf(err) != errs.Invalid {
			t.Errorf("ParseForm(%s): %v, want kind invalid", params, err)
		}
	}
	if f, err := ParseForm(json.RawMessage(`{"message": "ok?"}`)); err != nil || len(f.Fields) != 0 {
		t.Errorf("a form without fields: %v, %v", f, err)
	}
}

func TestURLRequest(t *testing.T) {
	u, ok := ParseURLRequest(json.RawMessage(`{"mode": "url", "url": "https://example.com/a?b=c", "message": "Sign in", "elicitationId": "e1"}`))
	if !ok || u.URL != "https://example.com/a?b=c" || u.Message != "Sign in" || u.ID != "e1" {
		t.Errorf("%+v %v", u, ok)
	}
	if _, ok := ParseURLRequest(json.RawMessage(formParams)); ok {
		t.Error("a form read as a URL request")
	}
	if string(Accept(map[string]any{"n": 1})) != `{"action":"accept","content":{"n":1}}` {
		t.Errorf("Accept: %s", Accept(map[string]any{"n": 1}))
	}
}
