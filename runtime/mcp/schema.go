package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Tool arguments are checked against the tool's inputSchema before they are
// sent, so a mistake is reported with the field's name instead of as a
// server's free-form complaint. The validator is
// github.com/santhosh-tekuri/jsonschema/v6: maintained, complete for draft
// 2020-12 (the MCP default dialect), and able to refuse network $refs (the
// 2026 spec forbids dereferencing them automatically).

type schemaCache struct {
	mu sync.Mutex
	m  map[string]*jsonschema.Schema // by schema text
}

type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("not loading %s: schemas may not reference other documents", url)
}

var printer = message.NewPrinter(language.English)

// compile returns the compiled schema for raw, cached by its text. A schema
// the validator cannot compile is not an error of the call: it returns nil
// (arguments are then sent unchecked; the server still validates).
func (sc *schemaCache) compile(raw json.RawMessage) *jsonschema.Schema {
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
		sc.m = make(map[string]*jsonschema.Schema)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	var s *jsonschema.Schema
	if err == nil {
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft2020)
		c.UseLoader(noLoader{})
		if c.AddResource("mcp:tool-input-schema", doc) == nil {
			s, _ = c.Compile("mcp:tool-input-schema")
		}
	}
	sc.m[key] = s
	return s
}

// validateArgs checks args (decoded JSON) against schema and returns an
// error of kind errs.Invalid naming each failing field.
func validateArgs(s *jsonschema.Schema, tool string, args any) error {
	if s == nil {
		return nil
	}
	if args == nil {
		args = map[string]any{}
	}
	err := s.Validate(args)
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return errs.Errorf(errs.Invalid, "tools/call", "arguments for tool %q do not match its input schema: %v", tool, err)
	}
	var problems []string
	collect(ve, &problems)
	sort.Strings(problems)
	problems = dedupe(problems)
	return errs.Errorf(errs.Invalid, "tools/call", "arguments for tool %q do not match its input schema: %s", tool, strings.Join(problems, "; "))
}

// collect gathers the leaf errors: the ones that say what is wrong where.
func collect(ve *jsonschema.ValidationError, out *[]string) {
	if len(ve.Causes) > 0 {
		for _, c := range ve.Causes {
			collect(c, out)
		}
		return
	}
	where := "the arguments"
	if len(ve.InstanceLocation) > 0 {
		where = "argument '" + strings.Join(ve.InstanceLocation, ".") + "'"
	}
	*out = append(*out, where+": "+ve.ErrorKind.LocalizedString(printer))
}

func dedupe(s []string) []string {
	out := s[:0]
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}
