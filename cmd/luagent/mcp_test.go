package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/oauth"
	"github.com/luagent/luagent/runtime/oauth/store"
)

func TestMCPLogout(t *testing.T) {
	home := t.TempDir()
	env := []string{"LUAGENT_HOME=" + home}
	st := store.Default(home)
	const u = "https://mcp.example.com/mcp"
	other := u + "?tenant=2"
	for _, s := range []string{u, other} {
		if err := st.Save(context.Background(), s, &oauth.Credential{ClientID: "c", AccessToken: "do-not-print-me", RefreshToken: "r"}); err != nil {
			t.Fatal(err)
		}
	}

	r := luagent(t, "", env, "mcp", "logout", u)
	if r.code != 0 || r.stdout != "removed the stored credentials for "+u+" (the authorization server was not asked to revoke them)\n" || r.stderr != "" {
		t.Fatalf("logout: code %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(st.Path(u)); !os.IsNotExist(err) {
		t.Errorf("the credential file is still there: %v", err)
	}
	if c, err := st.Load(other); err != nil || c == nil {
		t.Errorf("logout touched another URL's credentials: %v, %v", c, err)
	}

	// Absent: fine, and it says so; the URL must match exactly.
	r = luagent(t, "", env, "mcp", "logout", u)
	if r.code != 0 || r.stdout != "no stored credentials for "+u+"\n" {
		t.Fatalf("logout of an absent file: code %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "credentials are stored for "+other+" (the URL must match exactly, query included)") {
		t.Errorf("no hint about the near miss: %q", r.stderr)
	}
	if strings.Contains(r.stdout+r.stderr, "do-not-print-me") {
		t.Errorf("a token was printed")
	}

	// No credentials folder at all: nothing is created.
	empty := t.TempDir()
	r = luagent(t, "", []string{"LUAGENT_HOME=" + empty}, "mcp", "logout", u)
	if r.code != 0 || r.stdout != "no stored credentials for "+u+"\n" || r.stderr != "" {
		t.Fatalf("logout without a store: code %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(empty, "credentials")); !os.IsNotExist(err) {
		t.Errorf("logout created %s", filepath.Join(empty, "credentials"))
	}
}

func TestMCPUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"mcp"}, "luagent: mcp needs a verb (add, "},
		{[]string{"mcp", "frobnicate"}, "luagent: unknown mcp verb frobnicate (luagent mcp takes add, "},
		{[]string{"mcp", "login"}, "luagent: mcp login needs a server URL"},
		{[]string{"mcp", "login", "https://a.example/mcp", "--scope"}, "luagent: --scope needs a scope name"},
		{[]string{"mcp", "login", "https://a.example/mcp", "https://b.example/mcp"}, "luagent: mcp login takes one server URL"},
		{[]string{"mcp", "logout"}, "luagent: mcp logout needs one server URL"},
		{[]string{"mcp", "logout", "https://a.example/mcp", "https://b.example/mcp"}, "luagent: mcp logout needs one server URL"},
		{[]string{"mcp", "logout", "--all"}, "luagent: mcp logout needs one server URL"},
	} {
		r := luagent(t, "", nil, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || r.stdout != "" {
			t.Errorf("luagent %s: code %d, want 2\nstdout: %s\nstderr: %s", strings.Join(c.args, " "), r.code, r.stdout, r.stderr)
		}
	}
	if r := luagent(t, "", nil, "mcp", "--help"); !strings.Contains(r.stdout, "logout URL") || !strings.Contains(r.stdout, "login URL|NAME [--scope S]") {
		t.Errorf("the mcp usage does not list login and logout:\n%s", r.stdout)
	}
}

// A server that does not ask for authorization: nothing to log in to.
func TestMCPLoginUnprotected(t *testing.T) {
	srv := serveHTTPArgs(t, "../../examples/echo.lua", "--http", "127.0.0.1:0/mcp")
	r := luagent(t, "", []string{"LUAGENT_HOME=" + t.TempDir()}, "mcp", "login", srv.url)
	if r.code != 1 || !strings.Contains(r.stderr, "does not ask for authorization") {
		t.Errorf("code %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
}
