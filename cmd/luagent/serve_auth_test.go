package main

import (
	"strings"
	"testing"
)

// serve's bearer-token options: what is refused at start-up, and how.
// (Serving with a token is tested end to end in luabind/mod/mcp,
// server_auth_test.go.)
func TestServeAuthStartupErrors(t *testing.T) {
	dir := t.TempDir()
	echo := writeFile(t, dir, "echo.lua", `local s = mcp.server{ name = "echo" }
s:tool{ name = "echo", handler = function(a) return "x" end }
return s`)
	validated := writeFile(t, dir, "validated.lua", `local s = mcp.server{ name = "v" }
s:auth(function(token) return token == "good" end)
return s`)
	noValidate := writeFile(t, dir, "novalidate.lua", `local s = mcp.server{ name = "nv" }
s:auth{ authorization_servers = { "https://auth.example.com" } }
return s`)
	const secret = "do-not-print-me"
	for _, c := range []struct {
		name string
		env  []string
		args []string
		code int
		want string
	}{
		{"token without --http", nil, []string{"serve", echo, "--auth-token-env", "X"}, 2, "--auth-token-env and --auth-server are for HTTP: add --http"},
		{"auth server without --http", nil, []string{"serve", echo, "--auth-server", "https://a.example"}, 2, "are for HTTP"},
		{"no variable name", nil, []string{"serve", echo, "--http", "127.0.0.1:0", "--auth-token-env"}, 2, "--auth-token-env needs the name of an environment variable"},
		{"unset variable", nil, []string{"serve", echo, "--http", "127.0.0.1:0", "--auth-token-env", "LUAGENT_TEST_UNSET_TOKEN"},
			2, "environment variable LUAGENT_TEST_UNSET_TOKEN is not set: export LUAGENT_TEST_UNSET_TOKEN=<token>"},
		{"empty variable", []string{"LUAGENT_TEST_EMPTY_TOKEN="}, []string{"serve", echo, "--http", "127.0.0.1:0", "--auth-token-env=LUAGENT_TEST_EMPTY_TOKEN"},
			2, "environment variable LUAGENT_TEST_EMPTY_TOKEN is empty"},
		{"token with a space", []string{"LUAGENT_TEST_TOKEN=" + secret + " x"}, []string{"serve", echo, "--http", "127.0.0.1:0", "--auth-token-env", "LUAGENT_TEST_TOKEN"},
			2, "the token in LUAGENT_TEST_TOKEN has spaces"},
		{"http auth server", nil, []string{"serve", echo, "--http", "127.0.0.1:0", "--auth-server", "http://auth.example.com"},
			2, `--auth-server: authorization server "http://auth.example.com" must use https`},
		{"auth server without a check", nil, []string{"serve", echo, "--http", "127.0.0.1:0", "--auth-server", "https://auth.example.com"},
			1, "--auth-server needs a token check: add --auth-token-env NAME"},
		{"validator and token", []string{"LUAGENT_TEST_TOKEN=" + secret}, []string{"serve", validated, "--http", "127.0.0.1:0", "--auth-token-env", "LUAGENT_TEST_TOKEN"},
			1, "the script's s:auth validator and --auth-token-env both check tokens: use one of them"},
		{"s:auth without validate", nil, []string{"serve", noValidate, "--http", "127.0.0.1:0"}, 1, "s:auth{...} has no validate function"},
		{"s:auth over stdio", nil, []string{"serve", validated}, 0, "s:auth applies to HTTP (--http) only"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := luagent(t, "", c.env, c.args...)
			if r.code != c.code || !strings.Contains(r.stderr, c.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d and %q", r.code, r.stderr, c.code, c.want)
			}
			if strings.Contains(r.stderr, secret) || strings.Count(r.stderr, "\n") > 1 {
				t.Errorf("want one line, without the token:\n%s", r.stderr)
			}
			noGoStack(t, r.stderr)
		})
	}
	if r := luagent(t, "", nil, "serve", "--help"); !strings.Contains(r.stdout, "--auth-token-env NAME") || !strings.Contains(r.stdout, "--auth-server URL") {
		t.Errorf("serve's usage does not list the auth options:\n%s", r.stdout)
	}
}

// s:auth's arguments are checked where the script calls it.
func TestServerAuthArguments(t *testing.T) {
	code := `local s = mcp.server{ name = "x" }
for _, a in ipairs({ 42, { bogus = 1 }, { validate = "yes" }, { authorization_servers = { "http://evil.example" } },
    { authorization_servers = "https://a.example" }, { resource = "/mcp" } }) do
  local ok, err = pcall(s.auth, s, a)
  print(ok, (tostring(err):gsub("^.-: ", "", 1)))
end
print(pcall(s.auth, s, { validate = function() return true end, authorization_servers = { "https://a.example" },
  scopes_supported = { "read" }, resource = "https://mcp.example.com/mcp" }))`
	r := luagent(t, "", nil, "-e", code)
	for _, want := range []string{
		"a validator function(token, req) or a table",
		"unknown field bogus (s:auth takes validate, authorization_servers, scopes_supported, resource)",
		"validate must be a function(token, req)",
		`authorization server "http://evil.example" must use https`,
		"authorization_servers must be a list of strings",
		"resource must be the endpoint's public URL",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("missing %q in:\n%s%s", want, r.stdout, r.stderr)
		}
	}
	if lines := strings.Split(strings.TrimSpace(r.stdout), "\n"); len(lines) != 7 || lines[6] != "true" || strings.Count(r.stdout, "false") != 6 {
		t.Errorf("got:\n%s%s", r.stdout, r.stderr)
	}
}
