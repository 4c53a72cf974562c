// Package cmdfile reads command and agent files in Claude Code's format:
// slash commands from .luagent/commands/ (the project's) and
// $LUAGENT_HOME/commands/ (the user's), subagents from .luagent/agents/
// and $LUAGENT_HOME/agents/.
//
// A command file NAME.md is an optional YAML front matter block
// (description, argument-hint, model, allowed-tools) and a body, the
// prompt, in which $ARGUMENTS is the text after /NAME and $1 ... $9 its
// words (split as a shell splits them, nothing expanded). A file in a
// subfolder (frontend/test.md) is /test, its folder shown beside its
// description (project:frontend) as Claude Code shows it; /frontend:test
// names it too. A NAME.lua file computes the prompt (luabind runs it in
// the sandbox); this package only finds it.
//
// An agent file NAME.md has front matter (name, description, tools,
// model, servers) and a body, the agent's system prompt; NAME.lua returns
// agent.new{...}.
//
// This package knows nothing of Lua.
package cmdfile

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/luagent/luagent/runtime/errs"
	"go.yaml.in/yaml/v3"
)

// maxFile bounds a command or agent file: a prompt, not a data set.
const maxFile = 256 << 10

// Meta is a command file's front matter.
type Meta struct {
	Description  string
	ArgumentHint string
	// Model is the model for this command's prompt, as written ("": the
	// run's). ModelSpec maps it to luagent's spelling.
	Model string
	// AllowedTools are the tool patterns pre-approved for this command's
	// prompt, in Claude Code's syntax (Bash(git add:*), mcp__fs__read_file).
	AllowedTools []string
	// DisableModelInvocation is Claude Code's disable-model-invocation,
	// kept so such files parse; luagent offers no command to the model.
	DisableModelInvocation bool
}

// frontMatter are the YAML fields read; unknown ones are ignored, as
// Claude Code ignores them.
type frontMatter struct {
	Description            any  `yaml:"description"`
	ArgumentHint           any  `yaml:"argument-hint"`
	Model                  any  `yaml:"model"`
	AllowedTools           any  `yaml:"allowed-tools"`
	DisableModelInvocation bool `yaml:"disable-model-invocation"`
	// Agent files.
	Name    any `yaml:"name"`
	Tools   any `yaml:"tools"`
	Servers any `yaml:"servers"`
}

// Split cuts a file into its front matter (the YAML between a first line
// "---" and the next line "---"; nil when the file has none) and its
// body. A UTF-8 BOM and CRLF line ends are allowed.
func Split(doc []byte) (yml, body []byte, has bool) {
	doc = bytes.TrimPrefix(doc, []byte("\ufeff"))
	first, rest, ok := bytes.Cut(doc, []byte("\n"))
	if !ok || string(bytes.TrimRight(first, " \t\r")) != "---" {
		return nil, doc, false
	}
	pos := len(doc) - len(rest)
	for pos < len(doc) {
		line, _, _ := bytes.Cut(doc[pos:], []byte("\n"))
		next := pos + len(line) + 1
		if string(bytes.TrimRight(line, " \t\r")) == "---" {
			if next > len(doc) {
				next = len(doc)
			}
			return doc[len(doc)-len(rest) : pos], doc[next:], true
		}
		pos = next
	}
	return nil, doc, false // no closing line: all of it is the body
}

// hintLine is a top-level argument-hint line. Claude Code's own examples
// write it unquoted (argument-hint: [pr-number] [priority]), which YAML
// reads as a broken list: its value is taken as written instead.
var hintLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^argument-hint:[ \t]*(.*?)[ \t]*\r?$`)
})

// parseMeta decodes the front matter.
func parseMeta(yml []byte) (frontMatter, string, error) {
	var fm frontMatter
	hint := ""
	if m := hintLine().FindSubmatchIndex(yml); m != nil {
		hint = unquote(string(yml[m[2]:m[3]]))
		yml = append(append(append([]byte{}, yml[:m[0]]...), "argument-hint: ''"...), yml[m[1]:]...)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(yml, &root); err != nil {
		return fm, "", fmt.Errorf("the front matter is not valid YAML: %s", oneLine(err.Error()))
	}
	if len(root.Content) == 0 {
		return fm, hint, nil // empty front matter
	}
	if root.Content[0].Kind != yaml.MappingNode {
		return fm, "", fmt.Errorf("the front matter is not a YAML mapping (field: value lines)")
	}
	if countNodes(&root, 0) > 2000 {
		return fm, "", fmt.Errorf("the front matter is too large")
	}
	if err := root.Content[0].Decode(&fm); err != nil {
		return fm, "", fmt.Errorf("the front matter: %s", oneLine(err.Error()))
	}
	return fm, hint, nil
}

// countNodes counts nodes, aliases expanded, stopping early: a front
// matter must not grow into a billion laughs.
func countNodes(n *yaml.Node, depth int) int {
	if depth > 32 {
		return 1 << 20
	}
	c := 1
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return c + countNodes(n.Alias, depth+1)
	}
	for _, k := range n.Content {
		c += countNodes(k, depth+1)
		if c > 2000 {
			return c
		}
	}
	return c
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		return s[1 : len(s)-1]
	}
	return s
}

// text is a scalar field as a string: a list's items joined by sep.
func text(field string, v any, sep string) (string, error) {
	switch v := v.(type) {
	case nil:
		return "", nil
	case string:
		return v, nil
	case bool, int, float64:
		return fmt.Sprint(v), nil
	case []any:
		parts := make([]string, 0, len(v))
		for _, x := range v {
			s, err := text(field, x, sep)
			if err != nil {
				return "", err
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, sep), nil
	}
	return "", fmt.Errorf("%s must be text, not a mapping", field)
}

// list is a field holding names: a YAML list, or one string of names
// split at commas (outside parentheses: Bash(a, b) is one) and, with
// spaces, at white space outside parentheses too.
func list(field string, v any) ([]string, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case []any:
		var out []string
		for _, x := range v {
			s, err := text(field, x, ",")
			if err != nil {
				return nil, err
			}
			out = append(out, splitNames(s)...)
		}
		return out, nil
	}
	s, err := text(field, v, ",")
	if err != nil {
		return nil, err
	}
	return splitNames(s), nil
}

// splitNames splits "Read, Grep Bash(git add:*)" into its names: at
// commas and white space outside parentheses.
func splitNames(s string) []string {
	var out []string
	depth, start := 0, 0
	flush := func(end int) {
		if w := strings.TrimSpace(s[start:end]); w != "" {
			out = append(out, w)
		}
	}
	for i, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0 && (r == ',' || r == ' ' || r == '\t' || r == '\n'):
			flush(i)
			start = i + 1
		}
	}
	flush(len(s))
	return out
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// ParseCommand reads a command file's bytes (path only names it in
// errors): an error of kind invalid names the file and what is wrong in
// one line.
func ParseCommand(path string, doc []byte) (Meta, string, error) {
	if len(doc) > maxFile {
		return Meta{}, "", errs.Errorf(errs.Invalid, "commands", "%s: larger than %d KiB: a command is a prompt", path, maxFile>>10)
	}
	yml, body, has := Split(doc)
	var m Meta
	if has {
		fm, hint, err := parseMeta(yml)
		if err != nil {
			return Meta{}, "", errs.Errorf(errs.Invalid, "commands", "%s: %v; fix the file (its other commands still load)", path, err)
		}
		if err := fill(&m, fm, hint); err != nil {
			return Meta{}, "", errs.Errorf(errs.Invalid, "commands", "%s: %v; fix the file", path, err)
		}
	}
	return m, string(body), nil
}

func fill(m *Meta, fm frontMatter, hint string) error {
	var err error
	if m.Description, err = text("description", fm.Description, " "); err != nil {
		return err
	}
	m.ArgumentHint = hint
	if m.Model, err = text("model", fm.Model, " "); err != nil {
		return err
	}
	if m.AllowedTools, err = list("allowed-tools", fm.AllowedTools); err != nil {
		return err
	}
	m.DisableModelInvocation = fm.DisableModelInvocation
	return nil
}

// ModelSpec is a front matter's model in luagent's spelling: Claude
// model ids (claude-...) are anthropic:ID, OpenAI's (gpt-..., o1..., o3...,
// o4...) openai:ID; "inherit" and "" are the run's own (""); anything else
// (provider:model, a name in config.json's models) as written.
func ModelSpec(m string) string {
	m = strings.TrimSpace(m)
	switch {
	case m == "" || m == "inherit":
		return ""
	case strings.Contains(m, ":"):
		return m
	case strings.HasPrefix(m, "claude-"):
		return "anthropic:" + m
	case strings.HasPrefix(m, "gpt-") || len(m) > 1 && m[0] == 'o' && '1' <= m[1] && m[1] <= '9':
		return "openai:" + m
	}
	return m
}
