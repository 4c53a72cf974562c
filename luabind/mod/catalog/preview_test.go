package catalog

import (
	"strings"
	"testing"

	rcatalog "github.com/luagent/luagent/runtime/catalog"
)

// cat:show's text is the entry's lines in the file as shown: secrets
// hidden (rcatalog's Masked, tested there), the rest as written.
func TestEntryText(t *testing.T) {
	c, err := rcatalog.Parse([]byte(`{"version": 1, "mcpServers": {
		"s": {"command": "x", "env": {"A": "lit-SECRET", "B": {"value": "obj-SECRET"}, "C": {"fromEnv": "HOME"}, "D": {"param": "tok"}}},
		"h": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer hdr-SECRET"},
		      "oauth": {"clientId": "id", "clientSecret": "cs-SECRET"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.Masked().Marshal()
	if err != nil {
		t.Fatal(err)
	}
	got := entryText(b, "h")
	if !strings.HasPrefix(got, `    "h": {`) || !strings.HasSuffix(got, "\n    }") {
		t.Errorf("entryText(h) = %q", got)
	}
	if strings.Contains(got, "SECRET") || !strings.Contains(got, `"Authorization": "<hidden>"`) || !strings.Contains(got, `"clientId": "id"`) {
		t.Errorf("entryText(h) shows:\n%s", got)
	}
	if s := entryText(b, "s"); !strings.Contains(s, `"C": {"fromEnv": "HOME"}`) || strings.Contains(s, "SECRET") {
		t.Errorf("entryText(s) shows:\n%s", s)
	}
	if entryText(b, "nope") != "" {
		t.Error("entryText of a missing entry")
	}
}
