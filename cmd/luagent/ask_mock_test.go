package main

import (
	"strings"
	"testing"
)

// The mock model sends the prompt's k=v pairs as the tool's arguments, so
// `luagent ask "call echo with message=hi"` shows a real result.
func TestAskMockUsesPromptPairs(t *testing.T) {
	home, _ := askHome(t)
	for _, tc := range []struct {
		prompt, call, result string
	}{
		{"call echo with message=hi", `echo {"message":"hi"}`, "pong:hi"},
		{`call echo with message="hello world"`, `echo {"message":"hello world"}`, "pong:hello world"},
		{"call echo", `echo {"message":"example"}`, "pong:example"},
	} {
		r := luagent(t, "", []string{"LUAGENT_HOME=" + home}, "ask", tc.prompt)
		if r.code != 0 || !strings.Contains(r.stderr, tc.call) || !strings.Contains(r.stdout, tc.result) {
			t.Errorf("ask %q: exit %d\nstdout: %q\nstderr: %s", tc.prompt, r.code, r.stdout, r.stderr)
		}
	}
}
