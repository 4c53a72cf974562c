package main

import (
	"strings"
	"testing"
)

// A resumed chat names only the model it goes on with: not the default
// (nor the note about the mock) first and the saved one after.
func TestChatResumeNamesOneModel(t *testing.T) {
	home := t.TempDir()
	for _, tc := range []struct {
		name, saved string
		env         []string
		want, not   string
	}{
		{"no model configured", "ollama:llama3", nil, "model ollama:llama3", "mock"},
		{"LUAGENT_MODEL", "mock", []string{"LUAGENT_MODEL=ollama:llama3"}, "model mock", "ollama"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := writeFile(t, home, "saved.json", `{"version": 1, "model": "`+tc.saved+`", "start": "2026-12-02T03:00:00Z", "messages": [], "turns": []}`)
			r := luagent(t, "", append([]string{"LUAGENT_HOME=" + home}, tc.env...), "chat", "--resume", file)
			out := r.stdout + r.stderr
			if r.code != 0 || !strings.Contains(out, tc.want) || strings.Contains(out, tc.not) {
				t.Errorf("exit %d: want %q and no %q:\n%s", r.code, tc.want, tc.not, out)
			}
		})
	}
}
