package chat

import (
	"slices"
	"sort"
	"strings"
)

// Complete returns Tab completions for the line up to the cursor: command
// names after "/", "prompt" after "/mcp ", server names after
// "/mcp prompt ", and that server's prompt names after
// "/mcp prompt SERVER ". head is the text before the word completed; each
// candidate is the whole word. Plain messages complete nothing.
func Complete(text string, servers []string, prompts func(server string) []string) (head string, cands []string) {
	if !strings.HasPrefix(text, "/") {
		return text, nil
	}
	start := strings.LastIndexAny(text, " \t") + 1
	head, word := text[:start], text[start:]
	fields := strings.Fields(head)
	var pool []string
	switch {
	case len(fields) == 0:
		for _, n := range names() {
			pool = append(pool, "/"+n)
		}
		head, word = "", text
	case (fields[0] == "/mcp" || fields[0] == "/mcps") && len(fields) == 1:
		pool = append([]string{"auth", "disable", "enable", "prompt", "restart"}, servers...)
	case (fields[0] == "/mcp" || fields[0] == "/mcps") && slices.Contains([]string{"prompt", "restart", "enable", "disable", "auth"}, fields[1]) && len(fields) == 2:
		pool = servers
	case (fields[0] == "/mcp" || fields[0] == "/mcps") && fields[1] == "prompt" && len(fields) == 3 && prompts != nil:
		pool = prompts(fields[2])
	}
	for _, c := range pool {
		if strings.HasPrefix(c, word) {
			cands = append(cands, c)
		}
	}
	sort.Strings(cands)
	return head, cands
}
