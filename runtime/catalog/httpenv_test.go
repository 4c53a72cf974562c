package catalog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/errs"
)

// An HTTP entry's env takes MCP_ACCESS_TOKEN and MCP_OAUTH_TOKEN_FILE,
// written as a stdio entry's values are (a literal, {"param"},
// {"fromEnv"}); they are kept as written when the file is edited,
// resolved as stdio env is, and hidden when shown. Any other name is
// refused in one line that names the field and what to do.
func TestHTTPEnv(t *testing.T) {
	const file = `{"version": 1, "mcpServers": {"w": {"url": "https://example.com/mcp",
	  "env": {"MCP_ACCESS_TOKEN": {"fromEnv": "W_TOKEN"}, "MCP_OAUTH_TOKEN_FILE": "/tmp/w-token.json"}},
	  "p": {"url": "https://example.com/p", "env": {"MCP_ACCESS_TOKEN": {"param": "ptok"}}},
	  "l": {"url": "https://example.com/l", "env": {"MCP_ACCESS_TOKEN": "lit-SECRET"}}}}`
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(path)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	w := c.Server("w")
	env, err := w.ResolveEnv(nil, func(k string) (string, bool) { return "tok-" + k, k == "W_TOKEN" })
	if err != nil || env["MCP_ACCESS_TOKEN"] != "tok-W_TOKEN" || env["MCP_OAUTH_TOKEN_FILE"] != "/tmp/w-token.json" {
		t.Errorf("ResolveEnv = %v, %v", env, err)
	}
	if _, err := c.Server("p").ResolveEnv(Params{}, nil); err == nil || !strings.Contains(err.Error(), "env MCP_ACCESS_TOKEN needs the parameter ptok: pass --set ptok=VALUE") {
		t.Errorf("an unset parameter: %v", err)
	}
	if env, _ := c.Server("p").ResolveEnv(Params{"ptok": "x"}, nil); env["MCP_ACCESS_TOKEN"] != "x" {
		t.Errorf("param: %v", env)
	}
	b, err := c.Marshal()
	if err != nil || !strings.Contains(string(b), `"MCP_ACCESS_TOKEN": {"fromEnv": "W_TOKEN"}`) || !strings.Contains(string(b), `"MCP_ACCESS_TOKEN": "lit-SECRET"`) {
		t.Errorf("Marshal: %v\n%s", err, b)
	}
	m, _ := c.Masked().Marshal()
	if strings.Contains(string(m), "lit-SECRET") || !strings.Contains(string(m), `"MCP_ACCESS_TOKEN": "<hidden>"`) {
		t.Errorf("Masked shows the token:\n%s", m)
	}
	if got := SecretsIn(c.Server("l")); len(got) != 1 || got[0] != "lit-SECRET" {
		t.Errorf("SecretsIn = %q", got)
	}

	bad := `{"version": 1, "mcpServers": {"w": {"url": "https://example.com/mcp", "env": {"MCP_ACCESS_TOKEN": "t", "API_KEY": "k-SECRET"}}}}`
	if err := os.WriteFile(path, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Load(path)
	want := "mcpServers.w.env.API_KEY: an HTTP server takes only MCP_ACCESS_TOKEN (a bearer token) and MCP_OAUTH_TOKEN_FILE (a token file) in env; remove API_KEY, or send it as a header"
	if !errs.Is(err, errs.Invalid) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "SECRET") {
		t.Errorf("Load = %v, want one line with %q", err, want)
	}
}

// The mcp add command that saves an HTTP entry again gives its env too,
// a literal token as "...".
func TestAddCommandHTTPEnv(t *testing.T) {
	s := &Server{Name: "w", Enabled: true, URL: "https://example.com/mcp",
		Env: map[string]EnvValue{"MCP_ACCESS_TOKEN": {Value: "lit-SECRET"}, "MCP_OAUTH_TOKEN_FILE": {FromEnv: "TOKFILE"}}}
	want := "luagent mcp add --force w --transport http https://example.com/mcp --env MCP_ACCESS_TOKEN=... --env-from MCP_OAUTH_TOKEN_FILE=TOKFILE"
	if got := s.AddCommand(); got != want {
		t.Errorf("AddCommand() = %s\nwant %s", got, want)
	}
}
