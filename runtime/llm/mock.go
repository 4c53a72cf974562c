package llm

import (
	"context"
	"fmt"
	"strings"
	"unicode"
)

// NewMock returns the deterministic model "mock": no network, the same
// answer for the same request.
//
//   - Offered tools, and no tool result since the last user text: it
//     calls one tool — the one whose name and description share the most
//     words with that text, else the first — with the text's k=v pairs
//     as arguments (MockArguments), ExampleArguments for the rest.
//   - With tool results: it answers with a text that quotes them.
//   - Without tools: it echoes the last user text.
func NewMock(name string) Model {
	if name == "" {
		name = ProviderMock
	}
	return Func(name, mockTurn)
}

func mockTurn(_ context.Context, req *Request) (*Response, error) {
	last := -1
	for i, m := range req.Messages {
		if m.Role == RoleUser {
			last = i
		}
	}
	prompt := ""
	if last >= 0 {
		prompt = textOf(req.Messages[last].Parts)
	}
	var results []string
	for _, m := range req.Messages[last+1:] {
		if m.Role == RoleTool {
			r := describeParts(m.Parts)
			if m.IsError {
				r = "error: " + r
			}
			results = append(results, r)
		}
	}
	usage := Usage{InputTokens: countWords(req.System) + countWords(prompt)}
	for _, r := range results {
		usage.InputTokens += countWords(r)
	}
	switch {
	case len(req.Tools) > 0 && len(results) == 0:
		t := bestTool(req.Tools, prompt)
		call := ToolCall{ID: fmt.Sprintf("mock_call_%d", len(req.Messages)), Name: t.Name, Arguments: MockArguments(t.Schema, prompt)}
		usage.OutputTokens = 1
		return &Response{Message: Message{Role: RoleAssistant, ToolCalls: []ToolCall{call}}, StopReason: StopToolCalls, Usage: usage}, nil
	case len(results) > 0:
		text := "The tool returned: " + strings.Join(quoteAll(results), "; ")
		usage.OutputTokens = countWords(text)
		return &Response{Message: Message{Role: RoleAssistant, Parts: []Part{Text(text)}}, StopReason: StopEnd, Usage: usage}, nil
	}
	text := "mock: " + prompt
	if prompt == "" {
		text = "mock: nothing to answer"
	}
	usage.OutputTokens = countWords(text)
	return &Response{Message: Message{Role: RoleAssistant, Parts: []Part{Text(text)}}, StopReason: StopEnd, Usage: usage}, nil
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// bestTool is the tool sharing the most words with text, the first on a tie.
func bestTool(tools []Tool, text string) Tool {
	want := map[string]bool{}
	for _, w := range words(text) {
		want[w] = true
	}
	best, score := 0, 0
	for i, t := range tools {
		n := 0
		seen := map[string]bool{}
		for _, w := range append(words(t.Name), words(t.Description)...) {
			if want[w] && !seen[w] {
				seen[w] = true
				n++
			}
		}
		if n > score {
			best, score = i, n
		}
	}
	return tools[best]
}

// words are the lower-case words of s (split at anything not a letter or
// digit, so "get_weather" is "get", "weather"), without short ones.
func words(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len(w) > 2 {
			out = append(out, w)
		}
	}
	return out
}

func countWords(s string) int { return len(strings.Fields(s)) }
