package mcp

import (
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/catalog"
)

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
