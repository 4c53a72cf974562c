package render_test

import (
	"testing"

	"github.com/luagent/luagent/runtime/render"
)

// OneLine shows a server's or a model's text on one line: white space
// folded, control characters visible, cut at n runes.
func TestOneLine(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"a  b\n\tc", 100, "a b c"},
		{"ok\rEVIL", 100, "ok EVIL"},
		{"x\x1b]0;title\x07y", 100, `x\x1b]0;title\x07y`},
		{"a\u009b31m\u202eb", 100, `a\u009b31m\u202eb`},
		{"abcdef", 3, "abc…"},
	} {
		if got := render.OneLine(c.in, c.n); got != c.want {
			t.Errorf("OneLine(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}
