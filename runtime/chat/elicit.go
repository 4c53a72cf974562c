package chat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/luagent/luagent/runtime/errs"
)

// An elicitation form, read from a server's requestedSchema (MCP's
// restricted subset: a flat object of strings, numbers, integers,
// booleans, single-choice enums and multi-choice arrays). The terminal
// asks each field in turn; Field.Parse validates what was typed before
// anything is sent.

// FieldKind is what a field holds.
type FieldKind string

// The field kinds.
const (
	KindString  FieldKind = "string"
	KindNumber  FieldKind = "number"
	KindInteger FieldKind = "integer"
	KindBool    FieldKind = "boolean"
	KindEnum    FieldKind = "enum"  // one of Options
	KindMulti   FieldKind = "multi" // any of Options
)

// Option is one choice of an enum: the value sent and its title.
type Option struct{ Value, Title string }

// Field is one property of the form.
type Field struct {
	Name, Title, Description string
	Kind                     FieldKind
	Required                 bool
	// Default is the schema's default (nil: none).
	Default any
	// Strings: MinLength, MaxLength (-1: no bound) and Format (email,
	// uri, date, date-time). Numbers: Min, Max (NaN: no bound). Multi:
	// MinItems, MaxItems (-1: no bound).
	MinLength, MaxLength int
	Format               string
	Min, Max             float64
	MinItems, MaxItems   int
	Options              []Option
}

// Form is a form-mode elicitation request.
type Form struct {
	Message string
	Fields  []Field
}

// ParseForm reads an elicitation/create request of mode form (or no
// mode). A schema outside the restricted subset is an error of kind
// invalid: decline it rather than guess.
func ParseForm(params json.RawMessage) (*Form, error) {
	var p struct {
		Message string `json:"message"`
		Schema  struct {
			Properties json.RawMessage `json:"properties"`
			Required   []string        `json:"required"`
		} `json:"requestedSchema"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, errs.Errorf(errs.Invalid, "elicit", "the request is not an elicitation: %v", err)
	}
	f := &Form{Message: p.Message}
	props, err := orderedMembers(p.Schema.Properties)
	if err != nil {
		return nil, errs.Errorf(errs.Invalid, "elicit", "requestedSchema.properties: %v", err)
	}
	// The fields in the server's order: it put them so.
	for _, m := range props {
		fd, err := parseField(m.name, m.raw)
		if err != nil {
			return nil, err
		}
		fd.Required = slices.Contains(p.Schema.Required, m.name)
		f.Fields = append(f.Fields, fd)
	}
	return f, nil
}

type member struct {
	name string
	raw  json.RawMessage
}

// orderedMembers reads a JSON object's members in their order.
func orderedMembers(raw json.RawMessage) ([]member, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("not an object")
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, member{tok.(string), v})
	}
	return out, nil
}

type propSchema struct {
	Type        string       `json:"type"`
	Title       string       `json:"title"`
	Description string       `json:"description"`
	Default     any          `json:"default"`
	MinLength   *int         `json:"minLength"`
	MaxLength   *int         `json:"maxLength"`
	Format      string       `json:"format"`
	Minimum     *float64     `json:"minimum"`
	Maximum     *float64     `json:"maximum"`
	Enum        []string     `json:"enum"`
	EnumNames   []string     `json:"enumNames"`
	OneOf       []constTitle `json:"oneOf"`
	AnyOf       []constTitle `json:"anyOf"`
	MinItems    *int         `json:"minItems"`
	MaxItems    *int         `json:"maxItems"`
	Items       *propSchema  `json:"items"`
}

type constTitle struct {
	Const string `json:"const"`
	Title string `json:"title"`
}

func options(ps *propSchema) []Option {
	var out []Option
	for i, v := range ps.Enum {
		o := Option{Value: v, Title: v}
		if i < len(ps.EnumNames) && ps.EnumNames[i] != "" {
			o.Title = ps.EnumNames[i]
		}
		out = append(out, o)
	}
	for _, c := range append(ps.OneOf, ps.AnyOf...) {
		o := Option{Value: c.Const, Title: c.Title}
		if o.Title == "" {
			o.Title = c.Const
		}
		out = append(out, o)
	}
	return out
}

func intOr(p *int, d int) int {
	if p == nil {
		return d
	}
	return *p
}

func floatOr(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

func parseField(name string, raw json.RawMessage) (Field, error) {
	var ps propSchema
	if err := json.Unmarshal(raw, &ps); err != nil {
		return Field{}, errs.Errorf(errs.Invalid, "elicit", "field %s: %v", name, err)
	}
	f := Field{Name: name, Title: ps.Title, Description: ps.Description, Default: ps.Default,
		MinLength: intOr(ps.MinLength, -1), MaxLength: intOr(ps.MaxLength, -1), Format: ps.Format,
		Min: floatOr(ps.Minimum), Max: floatOr(ps.Maximum), MinItems: intOr(ps.MinItems, -1), MaxItems: intOr(ps.MaxItems, -1)}
	switch ps.Type {
	case "string":
		f.Kind = KindString
		if f.Options = options(&ps); len(f.Options) > 0 {
			f.Kind = KindEnum
		}
	case "number", "integer", "boolean":
		f.Kind = FieldKind(ps.Type)
	case "array":
		if ps.Items == nil {
			return f, errs.Errorf(errs.Invalid, "elicit", "field %s: an array without items is not a form field", name)
		}
		f.Kind, f.Options = KindMulti, options(ps.Items)
		if len(f.Options) == 0 {
			return f, errs.Errorf(errs.Invalid, "elicit", "field %s: only arrays of enum choices are form fields", name)
		}
	default:
		return f, errs.Errorf(errs.Invalid, "elicit", "field %s has type %q: a form holds strings, numbers, integers, booleans and enums", name, ps.Type)
	}
	return f, nil
}

// Label is the field's question: its title (or name), what it takes and
// its default.
func (f Field) Label() string {
	name := f.Title
	if name == "" {
		name = f.Name
	}
	s := name + " (" + f.Rules() + ")"
	if f.Default != nil {
		b, _ := json.Marshal(f.Default)
		s += " [" + strings.Trim(string(b), `"`) + "]"
	}
	return s
}

// Rules says what the field takes: "integer, 0 to 150, required".
func (f Field) Rules() string {
	var rules []string
	switch f.Kind {
	case KindString:
		rules = append(rules, "text")
		if f.Format != "" {
			rules[0] = f.Format
		}
		switch {
		case f.MinLength >= 0 && f.MaxLength >= 0:
			rules = append(rules, fmt.Sprintf("%d-%d chars", f.MinLength, f.MaxLength))
		case f.MinLength >= 0:
			rules = append(rules, fmt.Sprintf("at least %d chars", f.MinLength))
		case f.MaxLength >= 0:
			rules = append(rules, fmt.Sprintf("at most %d chars", f.MaxLength))
		}
	case KindNumber, KindInteger:
		rules = append(rules, string(f.Kind))
		switch {
		case !math.IsNaN(f.Min) && !math.IsNaN(f.Max):
			rules = append(rules, trimNum(f.Min)+" to "+trimNum(f.Max))
		case !math.IsNaN(f.Min):
			rules = append(rules, "at least "+trimNum(f.Min))
		case !math.IsNaN(f.Max):
			rules = append(rules, "at most "+trimNum(f.Max))
		}
	case KindBool:
		rules = append(rules, "y/n")
	case KindEnum, KindMulti:
		var os []string
		for i, o := range f.Options {
			s := fmt.Sprintf("%d=%s", i+1, o.Title)
			if o.Title != o.Value {
				s += " (" + o.Value + ")"
			}
			os = append(os, s)
		}
		if f.Kind == KindEnum {
			rules = append(rules, "one of "+strings.Join(os, ", "))
		} else {
			rules = append(rules, "any of "+strings.Join(os, ", ")+"; comma-separated")
		}
	}
	if f.Required {
		rules = append(rules, "required")
	}
	return strings.Join(rules, ", ")
}

func trimNum(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// Parse validates what was typed for the field and returns the value to
// send; ok false with an empty input means "left out" (an optional field
// without default). The error says what is wrong, to ask again.
func (f Field) Parse(input string) (v any, set bool, err error) {
	in := strings.TrimSpace(input)
	if in == "" {
		if f.Default != nil {
			return f.Default, true, nil
		}
		if f.Required {
			return nil, false, fmt.Errorf("%s is required", f.Name)
		}
		return nil, false, nil
	}
	switch f.Kind {
	case KindString:
		n := len([]rune(in))
		if f.MinLength >= 0 && n < f.MinLength || f.MaxLength >= 0 && n > f.MaxLength {
			return nil, false, fmt.Errorf("%d chars; %s takes %s", n, f.Name, f.Rules())
		}
		if err := checkFormat(f.Format, in); err != nil {
			return nil, false, err
		}
		return in, true, nil
	case KindNumber, KindInteger:
		x, err := strconv.ParseFloat(in, 64)
		if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
			return nil, false, fmt.Errorf("%q is not a number", in)
		}
		if f.Kind == KindInteger && x != math.Trunc(x) {
			return nil, false, fmt.Errorf("%q is not an integer", in)
		}
		if !math.IsNaN(f.Min) && x < f.Min || !math.IsNaN(f.Max) && x > f.Max {
			return nil, false, fmt.Errorf("%s is out of range; %s takes %s", in, f.Name, f.Rules())
		}
		if f.Kind == KindInteger {
			return int64(x), true, nil
		}
		return x, true, nil
	case KindBool:
		switch strings.ToLower(in) {
		case "y", "yes", "true":
			return true, true, nil
		case "n", "no", "false":
			return false, true, nil
		}
		return nil, false, fmt.Errorf("answer y or n, not %q", in)
	case KindEnum:
		o, err := f.choice(in)
		if err != nil {
			return nil, false, err
		}
		return o, true, nil
	case KindMulti:
		var out []string
		for _, part := range strings.Split(in, ",") {
			if part = strings.TrimSpace(part); part == "" {
				continue
			}
			o, err := f.choice(part)
			if err != nil {
				return nil, false, err
			}
			if !slices.Contains(out, o) {
				out = append(out, o)
			}
		}
		if f.MinItems >= 0 && len(out) < f.MinItems || f.MaxItems >= 0 && len(out) > f.MaxItems {
			return nil, false, fmt.Errorf("%d chosen: choose %s", len(out), itemBounds(f.MinItems, f.MaxItems))
		}
		return out, true, nil
	}
	return nil, false, fmt.Errorf("field %s has no kind", f.Name)
}

func itemBounds(lo, hi int) string {
	switch {
	case lo >= 0 && hi >= 0:
		return fmt.Sprintf("%d to %d", lo, hi)
	case lo >= 0:
		return fmt.Sprintf("at least %d", lo)
	}
	return fmt.Sprintf("at most %d", hi)
}

// choice reads an option by its number, value or title.
func (f Field) choice(in string) (string, error) {
	if n, err := strconv.Atoi(in); err == nil && n >= 1 && n <= len(f.Options) {
		return f.Options[n-1].Value, nil
	}
	for _, o := range f.Options {
		if strings.EqualFold(in, o.Value) || strings.EqualFold(in, o.Title) {
			return o.Value, nil
		}
	}
	return "", fmt.Errorf("%q is not one of the choices (give its number or name)", in)
}

func checkFormat(format, s string) error {
	switch format {
	case "email":
		if a, err := mail.ParseAddress(s); err != nil || a.Address != s {
			return fmt.Errorf("%q is not an email address", s)
		}
	case "uri":
		if u, err := url.Parse(s); err != nil || u.Scheme == "" {
			return fmt.Errorf("%q is not a URI (scheme:...)", s)
		}
	case "date":
		if _, err := time.Parse("2006-01-02", s); err != nil {
			return fmt.Errorf("%q is not a date (YYYY-MM-DD)", s)
		}
	case "date-time":
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			return fmt.Errorf("%q is not a date-time (RFC 3339: 2026-12-02T10:00:00Z)", s)
		}
	}
	return nil
}

// Elicitation answers.

// Accept is an accepted form's result.
func Accept(content map[string]any) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"action": "accept", "content": content})
	return b
}

// Decline and Cancel are the other two answers: the user said no, or
// dismissed the question.
var (
	Decline = json.RawMessage(`{"action":"decline"}`)
	Cancel  = json.RawMessage(`{"action":"cancel"}`)
	// AcceptURL is a URL-mode consent.
	AcceptURL = json.RawMessage(`{"action":"accept"}`)
)

// URLRequest is a URL-mode elicitation.
type URLRequest struct {
	Message, URL, ID string
}

// ParseURLRequest reads a URL-mode request; ok is false for form mode.
func ParseURLRequest(params json.RawMessage) (URLRequest, bool) {
	var p struct {
		Mode          string `json:"mode"`
		Message       string `json:"message"`
		URL           string `json:"url"`
		ElicitationID string `json:"elicitationId"`
	}
	if json.Unmarshal(params, &p) != nil || p.Mode != "url" {
		return URLRequest{}, false
	}
	return URLRequest{Message: p.Message, URL: p.URL, ID: p.ElicitationID}, true
}
