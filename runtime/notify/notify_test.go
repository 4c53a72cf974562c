package notify

import (
	"strings"
	"testing"
)

func TestResolve(t *testing.T) {
	for _, tc := range []struct {
		mode, program, term, want string
	}{
		{"", "", "xterm-256color", Bell},
		{Auto, "iTerm.app", "xterm-256color", OSC9},
		{Auto, "WezTerm", "", OSC9},
		{Auto, "ghostty", "", OSC9},
		{Auto, "", "xterm-kitty", OSC9},
		{Auto, "Apple_Terminal", "xterm", Bell},
		{Auto, "tmux", "screen", Bell},
		{Bell, "iTerm.app", "", Bell},
		{OSC9, "", "dumb", OSC9},
		{Off, "iTerm.app", "", Off},
	} {
		env := map[string]string{"TERM_PROGRAM": tc.program, "TERM": tc.term}
		if got := Resolve(tc.mode, func(k string) string { return env[k] }); got != tc.want {
			t.Errorf("Resolve(%q, %q, %q) = %q, want %q", tc.mode, tc.program, tc.term, got, tc.want)
		}
	}
}

func TestSequence(t *testing.T) {
	n := Notice{Type: PermissionPrompt, Message: "allow srv › write?"}
	if got := Sequence(Bell, n); got != "\a" {
		t.Errorf("bell = %q", got)
	}
	if got := Sequence(OSC9, n); got != "\x1b]9;luagent: allow srv › write?\a" {
		t.Errorf("osc9 = %q", got)
	}
	if got := Sequence(Off, n); got != "" {
		t.Errorf("off = %q", got)
	}
	// A server's text cannot end the sequence or start another.
	evil := Sequence(OSC9, Notice{Message: "a\x07b\x1b]52;c;AAAA\x1b\\ \u009b2J \u202eevil\xff\n\tz"})
	if strings.Count(evil, "\a") != 1 || strings.Count(evil, "\x1b") != 1 || strings.ContainsRune(evil, 0x9b) || strings.ContainsRune(evil, 0x202e) {
		t.Errorf("unsafe: %q", evil)
	}
	if got := Safe(strings.Repeat("x", 500)); len(got) != maxText {
		t.Errorf("not bounded: %d", len(got))
	}
}

func FuzzSafe(f *testing.F) {
	f.Add("hello \x1b]0;x\x07 world")
	f.Fuzz(func(t *testing.T, s string) {
		out := Safe(s)
		for _, r := range out {
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || bidi(r) || r == '\uFFFD' && !strings.ContainsRune(s, '\uFFFD') {
				t.Fatalf("Safe(%q) = %q holds %U", s, out, r)
			}
		}
	})
}
