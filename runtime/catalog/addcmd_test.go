package catalog

import "testing"

// shQuote's words read back as the same word in a POSIX shell: bare when
// safe, else single-quoted, a ' inside as '\”.
func TestShQuote(t *testing.T) {
	for in, want := range map[string]string{
		"greet.lua":      "greet.lua",
		"a b":            "'a b'",
		"$HOME":          "'$HOME'",
		"it's":           `'it'\''s'`,
		"it's $HOME":     `'it'\''s $HOME'`,
		"":               "''",
		"Authorization:": "Authorization:",
	} {
		if got := shQuote(in); got != want {
			t.Errorf("shQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
