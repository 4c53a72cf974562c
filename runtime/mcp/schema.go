package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/jsonscan"
)

// Tool arguments are checked against the tool's inputSchema before they are
// sent (client) or before the handler runs (server), so a mistake is
// reported with the field's name. The validator is
// github.com/google/jsonschema-go: maintained with the official Go MCP SDK,
// draft 2020-12 and draft-07, and it refuses remote $refs unless given a
// loader (the 2026 spec forbids dereferencing them automatically).
// santhosh-tekuri/jsonschema/v6 was tried first and dropped: it compiles
// every draft's meta-schema at package init, ~10 ms of every process start.

// Schema is a compiled JSON Schema.
type Schema struct {
	rs     *jsonschema.Resolved
	raw    json.RawMessage // the document, walked to word a failure
	simple *simpleSchema   // set when the fast check can accept values
}

// CompileSchema compiles raw (a JSON Schema document). Dialects other than
// 2020-12 and draft-07, and references to other documents, are errors.
func CompileSchema(raw json.RawMessage) (*Schema, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("not a JSON Schema: %v", err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return nil, err
	}
	// The dialect is checked when validating, first thing: find out now.
	if err := rs.Validate(nil); err != nil && strings.HasPrefix(err.Error(), "cannot validate version") {
		return nil, err
	}
	return &Schema{rs: rs, raw: raw, simple: simpleOf(raw)}, nil
}

// Validate checks v (decoded JSON) and returns nil or a *ValidationError
// listing every problem found (see problems).
func (s *Schema) Validate(v any) error {
	if s == nil {
		return nil
	}
	if s.simple != nil && s.simple.accepts(v) {
		return nil
	}
	err := s.rs.Validate(v)
	if err == nil {
		return nil
	}
	w := &walker{}
	if json.Unmarshal(s.raw, &w.root) == nil {
		if m, ok := w.root.(map[string]any); ok {
			d, _ := m["$schema"].(string)
			w.draft07 = strings.HasPrefix(d, "http://json-schema.org/draft-07/schema")
		}
		w.walk(w.root, v, "", 0)
		// By field (a before a.b), else in the order found.
		slices.SortStableFunc(w.out, func(a, b problem) int { return strings.Compare(a.field, b.field) })
	}
	return &ValidationError{msg: err.Error(), problems: w.out, more: w.more}
}

// ValidationError says what in a value does not match its schema.
type ValidationError struct {
	msg      string    // the validator's first complaint
	problems []problem // what the walk found; empty: msg says it
	more     bool      // the list was cut
}

func (e *ValidationError) Error() string { return e.Problem("field") }

// Problem lists every problem, naming each field as "<noun> a.b", e.g.
// "argument a is a string, want a number; argument b is missing".
func (e *ValidationError) Problem(noun string) string {
	ps := e.problems
	if len(ps) == 0 {
		ps = firstProblem(e.msg)
	}
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.text(noun)
	}
	if e.more {
		parts = append(parts, "and more")
	}
	return strings.Join(parts, "; ")
}

// firstProblem words the validator's own complaint, for failures the walk
// does not see: "validating root: validating /then: required: missing
// properties: ["phone"]" is "argument phone is missing".
func firstProblem(msg string) []problem {
	var chain []string
	const prefix = "validating "
	for {
		rest, ok := strings.CutPrefix(msg, prefix)
		if !ok {
			break
		}
		j := strings.Index(rest, ": ")
		if j < 0 {
			break
		}
		chain = append(chain, rest[:j])
		msg = rest[j+2:]
	}
	field := fieldOfChain(chain)
	child := func(k string) string {
		if field == "" {
			return k
		}
		return field + "." + k
	}
	if m := typeComplaint().FindStringSubmatch(msg); m != nil {
		want := strings.Fields(strings.NewReplacer("[", "", "]", "", `"`, "").Replace(m[2]))
		if m[1] == "null" {
			return []problem{{field: field, what: " is null, want " + articled(want)}}
		}
		return []problem{{field: field, what: " is " + article(m[1]) + ", want " + articled(want)}}
	}
	var out []problem
	if names, ok := strings.CutPrefix(msg, "unexpected additional properties "); ok {
		for _, n := range quotedNames(names) {
			out = append(out, problem{field: child(n), unknown: true})
		}
	}
	if names, ok := strings.CutPrefix(msg, "required: missing properties: "); ok {
		for _, n := range quotedNames(names) {
			out = append(out, problem{field: child(n), what: " is missing"})
		}
	}
	if len(out) > 0 {
		return out
	}
	return []problem{{field: field, what: ": " + plainNumbers().ReplaceAllStringFunc(msg, plainNumber)}}
}

// typeComplaint is the validator's "type: 3 has type "integer", want
// "string"" (or want one of ["a" "b"]).
var typeComplaint = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^type: .* has type "(\w+)", want (?:one of )?(.*)$`)
})

// quotedNames reads the validator's %q of a []string: ["a" "b"].
func quotedNames(s string) []string {
	var out []string
	for _, q := range quotedString().FindAllString(s, -1) {
		if n, err := strconv.Unquote(q); err == nil {
			out = append(out, n)
		}
	}
	return out
}

var quotedString = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"(?:[^"\\]|\\.)*"`) })

// The validator prints numbers as rationals ("0/1") and with six decimals.
var plainNumbers = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`-?\d+(/1\b|\.\d+)`) })

func plainNumber(s string) string {
	if n, ok := strings.CutSuffix(s, "/1"); ok {
		return n
	}
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// fieldOfChain turns the validator's chain of schema paths (root,
// /properties/a, /$defs/t, /$defs/t/properties/b/items) into the instance's
// field (a.b[]): each step that extends the one before adds its properties
// and items; a step elsewhere is a $ref jump and adds nothing.
func fieldOfChain(chain []string) string {
	var out []string
	prev := ""
	for _, p := range chain {
		if p == "root" {
			p = ""
		}
		rel, ok := strings.CutPrefix(p, prev)
		prev = p
		if !ok {
			continue
		}
		parts := strings.Split(strings.Trim(rel, "/"), "/")
		for i := 0; i < len(parts); i++ {
			switch parts[i] {
			case "properties":
				if i+1 < len(parts) {
					out = append(out, parts[i+1])
					i++
				}
			case "items":
				if len(out) > 0 {
					out[len(out)-1] += "[]"
				}
			}
		}
	}
	return strings.Join(out, ".")
}

// schemaCache compiles each distinct schema once.
type schemaCache struct {
	mu sync.Mutex
	m  map[string]*Schema
}

// compile returns the compiled schema for raw, cached by its text. A schema
// that cannot be compiled gives nil: the arguments are then sent unchecked
// (the server still validates them).
func (sc *schemaCache) compile(raw json.RawMessage) *Schema {
	if len(raw) == 0 {
		return nil
	}
	key := string(raw)
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if s, ok := sc.m[key]; ok {
		return s
	}
	if sc.m == nil {
		sc.m = make(map[string]*Schema)
	}
	s, _ := CompileSchema(raw)
	sc.m[key] = s
	return s
}

// validateArgs checks args (decoded JSON) against schema and returns an
// error of kind errs.Invalid naming the failing field.
func validateArgs(s *Schema, tool string, args any) error {
	if s == nil {
		return nil
	}
	if args == nil {
		args = map[string]any{}
	}
	// A null argument is one not given (as for Mcp-Param-* headers): a
	// server may accept it for an optional parameter, so it is sent as is
	// and only checked like a missing one.
	if m, ok := args.(map[string]any); ok {
		for _, v := range m {
			if v == nil {
				args = withoutNulls(m)
				break
			}
		}
	}
	err := s.Validate(args)
	if err == nil {
		return nil
	}
	var ve *ValidationError
	if errors.As(err, &ve) {
		return errs.Errorf(errs.Invalid, "tools/call", "arguments for tool %q do not match its input schema: %s", tool, ve.Problem("argument"))
	}
	return errs.Errorf(errs.Invalid, "tools/call", "arguments for tool %q do not match its input schema: %v", tool, err)
}

func withoutNulls(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if v != nil {
			out[k] = v
		}
	}
	return out
}

// ParamHeaders reads the x-mcp-header annotations of a tool's inputSchema
// (header name → argument name) and checks them as 2026-07-28 requires: a
// non-empty token of visible ASCII without separators, unique without
// regard to case, on a string, integer or boolean property directly under
// the root's properties. An annotation anywhere else makes the tool
// invalid, as does a property of another type carrying one.
func ParamHeaders(schema json.RawMessage) (map[string]string, error) {
	// Most schemas have none, and decoding one (reflection, the first
	// time) was a third of a Lua s:tool's time. Without a backslash the key
	// can only be spelt as itself, in any case (json matches field names
	// without regard to case).
	if !bytes.ContainsRune(schema, '\\') && !mayContainFold(schema, "x-mcp-header") {
		return nil, nil
	}
	var root struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if len(schema) == 0 || json.Unmarshal(schema, &root) != nil {
		return nil, nil
	}
	var out map[string]string
	seen := map[string]string{}
	for arg, raw := range root.Properties {
		var p struct {
			Type   any             `json:"type"`
			Header json.RawMessage `json:"x-mcp-header"`
		}
		if json.Unmarshal(raw, &p) != nil || p.Header == nil {
			continue
		}
		var name string
		if json.Unmarshal(p.Header, &name) != nil || !isToken(name) {
			return nil, fmt.Errorf("argument %s: x-mcp-header %s is not a valid header name", arg, p.Header)
		}
		if t, _ := p.Type.(string); t != "string" && t != "integer" && t != "boolean" {
			return nil, fmt.Errorf("argument %s: x-mcp-header is only allowed on string, integer or boolean properties", arg)
		}
		if other, dup := seen[strings.ToLower(name)]; dup {
			return nil, fmt.Errorf("arguments %s and %s: x-mcp-header %q is used twice", other, arg, name)
		}
		seen[strings.ToLower(name)] = arg
		if out == nil {
			out = map[string]string{}
		}
		out[name] = arg
	}
	// Annotations below the top level are not allowed either.
	var nested func(v any, top bool) bool
	nested = func(v any, top bool) bool {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				if k == "x-mcp-header" && !top {
					return true
				}
				if k == "properties" && top {
					if props, ok := c.(map[string]any); ok {
						for _, p := range props {
							if pm, ok := p.(map[string]any); ok {
								for k2, c2 := range pm {
									if k2 != "x-mcp-header" && nested(c2, false) {
										return true
									}
								}
							}
						}
					}
					continue
				}
				if nested(c, false) {
					return true
				}
			}
		case []any:
			for _, c := range x {
				if nested(c, false) {
					return true
				}
			}
		}
		return false
	}
	var whole any
	json.Unmarshal(schema, &whole)
	if nested(whole, true) {
		return nil, fmt.Errorf("x-mcp-header is only allowed on properties directly under the root")
	}
	return out, nil
}

// mayContainFold reports whether b may contain s (ASCII, lower case) in
// any mix of cases: it can answer true wrongly (a '\r' passes for a '-'),
// never false.
func mayContainFold(b []byte, s string) bool {
	for i := 0; i+len(s) <= len(b); i++ {
		j := 0
		for j < len(s) && b[i+j]|0x20 == s[j] {
			j++
		}
		if j == len(s) {
			return true
		}
	}
	return false
}

// isToken reports whether s is an RFC 9110 token.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= 0x20 || c >= 0x7f || strings.IndexByte("\"(),/:;<=>?@[\\]{}", c) >= 0 {
			return false
		}
	}
	return true
}

// AcceptsJSON reports whether raw, a JSON value known to be valid (a member
// of a decoded message), is certainly valid for s without decoding it: the
// fast check of a simple schema (below) on the raw members. False means
// "decode and Validate": it decides, and words the error.
func (s *Schema) AcceptsJSON(raw []byte) bool {
	if s == nil {
		return true
	}
	return s.simple != nil && s.simple.acceptsJSON(raw)
}

// simpleSchema is the fast check of the schemas most tools have — what
// luagent writes for a shorthand input such as { message = "string" }: an
// object whose properties each name one JSON type, a required list, maybe
// additionalProperties false. The general validator costs a few µs a call
// even then (it formats a description of the schema for every keyword it
// visits, whether or not the value fails); this check costs a map lookup
// per argument. It only ever accepts: a value it does not accept (invalid,
// or of a Go type it does not know) goes to the general validator, which
// decides and words the error, so the outcome is always the validator's.
type simpleSchema struct {
	props    map[string]string // property → JSON type
	required []string
	closed   bool // additionalProperties: false
}

// simpleOf returns the fast check for raw, or nil when raw uses anything
// besides type "object", properties whose schemas are only a single type
// (with title/description), required, additionalProperties true/false,
// title, description and a supported $schema.
func simpleOf(raw json.RawMessage) *simpleSchema {
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil {
		return nil
	}
	s := &simpleSchema{props: map[string]string{}}
	sawObject := false
	for k, v := range top {
		switch k {
		case "title", "description":
			if len(v) == 0 || v[0] != '"' {
				return nil // not a schema that surely compiles
			}
		case "$schema":
			var d string
			json.Unmarshal(v, &d)
			if d != "https://json-schema.org/draft/2020-12/schema" && d != "http://json-schema.org/draft-07/schema#" {
				return nil
			}
		case "type":
			var t string
			if json.Unmarshal(v, &t) != nil || t != "object" {
				return nil
			}
			sawObject = true
		case "required":
			if json.Unmarshal(v, &s.required) != nil {
				return nil
			}
		case "additionalProperties":
			switch string(v) {
			case "true":
			case "false":
				s.closed = true
			default:
				return nil
			}
		case "properties":
			var props map[string]map[string]json.RawMessage
			if json.Unmarshal(v, &props) != nil {
				return nil
			}
			for name, ps := range props {
				var typ string
				for pk, pv := range ps {
					switch pk {
					case "title", "description":
						if len(pv) == 0 || pv[0] != '"' {
							return nil
						}
					case "type":
						if json.Unmarshal(pv, &typ) != nil || !simpleTypes[typ] {
							return nil
						}
					default:
						return nil
					}
				}
				if typ == "" {
					return nil
				}
				s.props[name] = typ
			}
		default:
			return nil
		}
	}
	if !sawObject {
		return nil
	}
	return s
}

var simpleTypes = map[string]bool{"string": true, "number": true, "integer": true, "boolean": true, "object": true, "array": true, "null": true}

// accepts reports whether v (as encoding/json decodes into any) is valid
// for certain; false means "ask the general validator".
func (s *simpleSchema) accepts(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for _, r := range s.required {
		if _, ok := m[r]; !ok {
			return false
		}
	}
	for k, x := range m {
		typ, ok := s.props[k]
		if !ok {
			if s.closed {
				return false
			}
			continue
		}
		if !hasType(x, typ) {
			return false
		}
	}
	return true
}

// acceptsJSON is accepts on raw JSON: the type of each member is read off
// its first byte (an integer must have neither fraction nor exponent).
func (s *simpleSchema) acceptsJSON(raw []byte) bool {
	i := jsonscan.SkipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' || len(s.required) > 64 {
		return false
	}
	var seen uint64 // bit k: required[k] is present
	good := true
	obj := jsonscan.Members(raw, func(key, val []byte) bool {
		name, plain := jsonscan.UnquoteSimple(key)
		typ, known := s.props[name]
		switch {
		case !plain:
			good = false
		case !known:
			good = !s.closed
		default:
			if k := slices.Index(s.required, name); k >= 0 {
				seen |= 1 << k
			}
			good = rawHasType(val, typ)
		}
		return good // stop at the first doubt
	})
	return obj && good && seen == 1<<len(s.required)-1
}

func rawHasType(v []byte, typ string) bool {
	if len(v) == 0 {
		return false
	}
	switch typ {
	case "string":
		return v[0] == '"'
	case "boolean":
		return string(v) == "true" || string(v) == "false"
	case "null":
		return string(v) == "null"
	case "object":
		return v[0] == '{'
	case "array":
		return v[0] == '['
	case "number":
		return v[0] == '-' || '0' <= v[0] && v[0] <= '9'
	case "integer":
		if !(v[0] == '-' || '0' <= v[0] && v[0] <= '9') {
			return false
		}
		return !bytes.ContainsAny(v, ".eE")
	}
	return false
}

// hasType: x is of JSON type typ, as the general validator sees it (an
// integer is a number with no fraction; "number" includes integers).
func hasType(x any, typ string) bool {
	switch typ {
	case "string":
		_, ok := x.(string)
		return ok
	case "boolean":
		_, ok := x.(bool)
		return ok
	case "null":
		return x == nil
	case "object":
		_, ok := x.(map[string]any)
		return ok
	case "array":
		_, ok := x.([]any)
		return ok
	case "number":
		f, ok := x.(float64)
		return ok && !math.IsNaN(f) && !math.IsInf(f, 0)
	case "integer":
		f, ok := x.(float64)
		if !ok {
			return false
		}
		_, frac := math.Modf(f)
		return frac == 0
	}
	return false
}

// argSchemas are the schemas ValidateArguments has compiled.
var argSchemas schemaCache

// ValidateArguments checks args (a JSON object) against a tool's input
// schema (none: anything goes) as a client does before tools/call, with
// the same errors (errs.Invalid, naming the field): an agent checks a call
// before it asks a person about it.
func ValidateArguments(tool string, schema, args json.RawMessage) error {
	s := argSchemas.compile(schema)
	if s == nil {
		return nil
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return errs.Errorf(errs.Invalid, "tools/call", "arguments for tool %q are not JSON: %v", tool, err)
	}
	return validateArgs(s, tool, v)
}
