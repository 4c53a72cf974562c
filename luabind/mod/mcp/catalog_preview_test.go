package mcp

import (
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/catalog"
)

func TestLineDiff(t *testing.T) {
	for _, tc := range []struct{ name, a, b, want string }{
		{"same", "a\nb\n", "a\nb\n", ""},
		{"added in the middle", "1\n2\n3\n4\n5\n6\n", "1\n2\n3\nx\n4\n5\n6\n", "  2\n  3\n+ x\n  4\n  5\n"},
		{"removed at the end", "1\n2\n3\n", "1\n2\n", "  1\n  2\n- 3\n"},
		{"changed", "a\nb\nc\n", "a\nB\nc\n", "  a\n- b\n+ B\n  c\n"},
		{"two hunks apart", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "x\n2\n3\n4\n5\n6\n7\n8\ny\n", "- 1\n+ x\n  2\n  3\n  ...\n  7\n  8\n- 9\n+ y\n"},
		{"from nothing", "", "a\nb\n", "+ a\n+ b\n"},
		{"to nothing", "a\n", "", "- a\n"},
	} {
		if got := lineDiff(tc.a, tc.b, 2); got != tc.want {
			t.Errorf("%s: got\n%s\nwant\n%s", tc.name, got, tc.want)
		}
	}
}

// A catalog as shown hides every secret and keeps the rest as written.
func TestMaskedHidesSecrets(t *testing.T) {
	c, err := catalog.Parse([]byte(`{"version": 1, "mcpServers": {
		"s": {"command": "x", "env": {"A": "lit-SECRET", "B": {"value": "obj-SECRET"}, "C": {"fromEnv": "HOME"}, "D": {"param": "tok"}}},
		"h": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer hdr-SECRET"},
		      "oauth": {"clientId": "id", "clientSecret": "cs-SECRET"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := masked(c).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	out := string(b)
	if strings.Contains(out, "SECRET") {
		t.Errorf("a secret shows:\n%s", out)
	}
	for _, want := range []string{`"A": "<hidden>"`, `"value": "<hidden>"`, `"C": {"fromEnv": "HOME"}`, `"D": {"param": "tok"}`,
		`"Authorization": "<hidden>"`, `"clientSecret": "<hidden>"`, `"clientId": "id"`} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %s:\n%s", want, out)
		}
	}
	// The original is untouched: it is what gets written.
	if real, _ := c.Marshal(); !strings.Contains(string(real), "lit-SECRET") || c.Servers[0].Env["A"].Value != "lit-SECRET" {
		t.Error("masking changed the catalog itself")
	}
	if got := entryText(b, "h"); !strings.HasPrefix(got, `    "h": {`) || !strings.HasSuffix(got, "\n    }") {
		t.Errorf("entryText(h) = %q", got)
	}
	if entryText(b, "nope") != "" {
		t.Error("entryText of a missing entry")
	}
}
