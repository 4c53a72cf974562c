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

// Secrets written into a server's URL or command line are hidden too:
// what names itself a secret (a flag, a NAME=, a header, a query
// parameter, a URL's password); references and everything else stay.
func TestMaskedArgsAndURL(t *testing.T) {
	for _, c := range []struct{ in, want []string }{
		{[]string{"--api-key=sk-SECRET", "--port=8080"}, []string{"--api-key=<hidden>", "--port=8080"}},
		{[]string{"--token", "tok-SECRET", "--verbose", "dir"}, []string{"--token", "<hidden>", "--verbose", "dir"}},
		{[]string{"run", "-e", "GITHUB_TOKEN=ghp-SECRET", "-e", "LOG=debug", "img"}, []string{"run", "-e", "GITHUB_TOKEN=<hidden>", "-e", "LOG=debug", "img"}},
		{[]string{"--header", "Authorization: Bearer b-SECRET", "--header", "Accept: text/plain"}, []string{"--header", "Authorization: <hidden>", "--header", "Accept: text/plain"}},
		{[]string{"mcp-remote", "https://x.example/mcp?api_key=q-SECRET&team=a"}, []string{"mcp-remote", "https://x.example/mcp?api_key=<hidden>&team=a"}},
		{[]string{"--api-key=${API_KEY}", "--token", "${TOKEN}", "SECRET_KEY=${K}"}, []string{"--api-key=${API_KEY}", "--token", "${TOKEN}", "SECRET_KEY=${K}"}},
		{[]string{"-y", "@modelcontextprotocol/server-filesystem", "/tmp"}, []string{"-y", "@modelcontextprotocol/server-filesystem", "/tmp"}},
	} {
		got := (&Server{Args: c.in}).Masked().Args
		if strings.Join(got, "\x00") != strings.Join(c.want, "\x00") {
			t.Errorf("Masked args of %q = %q, want %q", c.in, got, c.want)
		}
	}
	for in, want := range map[string]string{
		"https://example.com/mcp":                        "https://example.com/mcp",
		"https://example.com/mcp?x=1&y=%20":              "https://example.com/mcp?x=1&y=%20",
		"https://u:p-SECRET@example.com/mcp":             "https://u:<hidden>@example.com/mcp",
		"https://example.com/mcp?access_token=a-SECRET":  "https://example.com/mcp?access_token=<hidden>",
		"https://example.com/mcp?Key=k-SECRET&region=eu": "https://example.com/mcp?Key=<hidden>&region=eu",
		"https://example.com/%zz?token=t-SECRET":         Hidden,
	} {
		s := &Server{URL: in}
		if got := s.Masked().URL; got != want {
			t.Errorf("Masked URL of %s = %s, want %s", in, got, want)
		}
		if s.URL != in {
			t.Error("masking changed the server's URL")
		}
	}
}

// SecretsIn lists exactly what Masked hides, for masking it in text that
// repeats it.
func TestSecretsIn(t *testing.T) {
	s := &Server{URL: "https://u:pw-SECRET@example.com/mcp?token=a%2Fb-SECRET&x=1",
		Args:    []string{"--api-key=k-SECRET", "--token", "${T}", "GITHUB_TOKEN=g-SECRET", "Authorization: Bearer h-SECRET", "plain"},
		Env:     map[string]EnvValue{"A": {Value: "e-SECRET"}, "B": {Param: "p"}, "C": {FromEnv: "HOME"}},
		Headers: map[string]string{"X-Key": "x-SECRET"}, OAuth: &OAuth{ClientID: "id", ClientSecret: "c-SECRET"}}
	got := SecretsIn(s)
	want := []string{"e-SECRET", "x-SECRET", "c-SECRET", "pw-SECRET", "a/b-SECRET", "k-SECRET", "g-SECRET", "Bearer h-SECRET"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("SecretsIn = %q, want %q", got, want)
	}
}

// Shown is the line people see for an entry: quoted where a shell would
// split, with its secrets hidden.
func TestShown(t *testing.T) {
	for s, want := range map[*Server]string{
		{Command: "npx", Args: []string{"-y", "srv", "--api-key=k-SECRET", "a b"}}: `npx -y srv "--api-key=<hidden>" "a b"`,
		{URL: "https://example.com/mcp?token=t-SECRET"}:                            "https://example.com/mcp?token=<hidden>",
		{Command: "/bin/x"}: "/bin/x",
		// an imported entry's control characters show as escapes
		{Command: "npx", Args: []string{"a\x1b]0;title\x07", "\u202eevil"}}: `npx "a\x1b]0;title\a" "\u202eevil"`,
		{URL: "https://example.com/\u202emcp"}:                              `https://example.com/\u202emcp`,
	} {
		if got := s.Shown(); got != want {
			t.Errorf("Shown() = %s, want %s", got, want)
		}
	}
}
