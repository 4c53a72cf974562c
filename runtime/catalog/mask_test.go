package catalog

import (
	"strings"
	"testing"
)

// A catalog as shown hides every secret — env values (literal and
// {"value": ...}), header values, the oauth client secret — and keeps the
// rest as written, references included.
func TestMaskedHidesSecrets(t *testing.T) {
	c, err := Parse([]byte(`{"version": 1, "mcpServers": {
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
	if real, _ := c.Marshal(); !strings.Contains(string(real), "lit-SECRET") || c.Servers[0].Env["A"].Value != "lit-SECRET" ||
		c.Servers[1].Headers["Authorization"] != "Bearer hdr-SECRET" || c.Servers[1].OAuth.ClientSecret != "cs-SECRET" {
		t.Error("masking changed the catalog itself")
	}
}

// A server made in Go (the chat's add form) is masked the same way.
func TestMaskedServerMadeInGo(t *testing.T) {
	s := &Server{Name: "n", Enabled: true, URL: "https://example.com/mcp", Headers: map[string]string{"X-Key": "k-SECRET"},
		Env: map[string]EnvValue{"T": {Value: "t-SECRET"}, "R": {Param: "p"}}, OAuth: &OAuth{ClientID: "id", ClientSecret: "c-SECRET"}}
	m := s.Masked()
	if m.Headers["X-Key"] != Hidden || m.Env["T"].Value != Hidden || m.Env["R"].Param != "p" || m.OAuth.ClientSecret != Hidden || m.OAuth.ClientID != "id" {
		t.Errorf("Masked() = %+v", m)
	}
	if s.Headers["X-Key"] != "k-SECRET" || s.Env["T"].Value != "t-SECRET" || s.OAuth.ClientSecret != "c-SECRET" {
		t.Error("masking changed the server itself")
	}
}
