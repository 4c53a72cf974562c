package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/jsonscan"
	"github.com/luagent/luagent/runtime/mcp"
)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func mustParse(t testing.TB, data []byte) *Config {
	t.Helper()
	c, err := Parse(data)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return c
}

func mustMarshal(t testing.TB, c *Config) []byte {
	t.Helper()
	out, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The fixture holds unknown members of every JSON type at every level (top,
// entry, oauth, env value objects) and the managed fields; it is written in
// Marshal's form, so a round trip gives it back byte for byte.
func TestRoundTrip(t *testing.T) {
	in := readFixture(t, "roundtrip.json")
	c := mustParse(t, in)
	if err := c.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	out := mustMarshal(t, c)
	if !bytes.Equal(in, out) {
		t.Fatalf("round trip changed the file:\n%s", out)
	}
	// What the fields decoded to.
	pt := c.Server("project-tools")
	if pt == nil || pt.Command != "nix" || len(pt.Args) != 3 || pt.Args[2] != "--flag=a&b<c>" || pt.Cwd != "" ||
		pt.StartupTimeout != 120*time.Second || pt.RequestTimeout != 1500*time.Millisecond || !pt.Sampling || pt.Roots ||
		pt.LogLevel != "warning" || pt.MaxConcurrentCalls != 4 || !pt.Enabled || pt.Transport() != "stdio" {
		t.Errorf("project-tools = %+v", pt)
	}
	if v := pt.Env["TOKEN"]; v.Value != "literal-é-value" {
		t.Errorf("TOKEN = %+v", v)
	}
	if v := pt.Env["GITHUB_TOKEN"]; v.Param != "github_token" || v.Value != "" {
		t.Errorf("GITHUB_TOKEN = %+v", v)
	}
	if v := pt.Env["HOME_DIR"]; v.FromEnv != "HOME" {
		t.Errorf("HOME_DIR = %+v", v)
	}
	if ie := pt.InheritEnv; !ie.IsList() || ie.Minimal || !slices.Equal(ie.Names, []string{"PATH", "HOME", "GITHUB_TOKEN"}) {
		t.Errorf("project-tools inheritEnv = %+v", ie)
	}
	if ie := c.Server("plain").InheritEnv; !ie.Minimal || ie.IsList() || ie.String() != "minimal" {
		t.Errorf("plain inheritEnv = %+v", ie)
	}
	if ie := c.Server("remote-tools").InheritEnv; !ie.IsDefault() {
		t.Errorf("remote-tools inheritEnv = %+v", ie)
	}
	rt := c.Server("remote-tools")
	if rt == nil || rt.Enabled || rt.Transport() != "http" || rt.Headers["X-Team"] != "a" || rt.OAuth == nil ||
		rt.OAuth.ClientSecret != "s3cr3t" || strings.Join(rt.OAuth.Scopes, ",") != "read,write" {
		t.Errorf("remote-tools = %+v", rt)
	}
	if c.InitStrategy != InitProgressive || c.Version != 1 || len(c.Servers) != 3 {
		t.Errorf("config = %+v", c)
	}
	if got := names(c.Enabled()); got != "project-tools,plain" {
		t.Errorf("Enabled = %s", got)
	}
	// Marshal is stable on its own output, and on a file it made.
	if again := mustMarshal(t, mustParse(t, out)); !bytes.Equal(again, out) {
		t.Errorf("second round trip differs:\n%s", again)
	}
}

func names(ss []*Server) string {
	var n []string
	for _, s := range ss {
		n = append(n, s.Name)
	}
	return strings.Join(n, ",")
}

// entryMembers returns the members of entry name in a marshalled file.
func entryMembers(t *testing.T, file []byte, name string) map[string]string {
	t.Helper()
	e := jsonscan.Member(jsonscan.Member(file, "mcpServers"), name)
	if e == nil {
		return nil
	}
	out := map[string]string{}
	ms, ok := objectMembers(e)
	if !ok {
		t.Fatalf("%s is not an object", name)
	}
	for _, m := range ms {
		out[m.name] = string(m.val)
	}
	return out
}

// Editing other entries (add, remove, enable, disable, change a field)
// leaves every member of the untouched ones, and the unchanged members of
// the changed one, with the bytes they were read with.
func TestEditKeepsOthers(t *testing.T) {
	in := readFixture(t, "roundtrip.json")
	tests := []struct {
		name    string
		edit    func(c *Config) error
		touched string // the entry the edit changes, if any
		gone    string
	}{
		{"add", func(c *Config) error {
			return c.Add(&Server{Name: "new", Enabled: true, Command: "uvx", Args: []string{"mcp-server-fetch"}}, false)
		}, "new", ""},
		{"remove", func(c *Config) error {
			if !c.Remove("plain") {
				return errors.New("no plain")
			}
			return nil
		}, "", "plain"},
		{"enable", func(c *Config) error { c.Server("remote-tools").Enabled = true; return nil }, "remote-tools", ""},
		{"disable", func(c *Config) error { c.Server("project-tools").Enabled = false; return nil }, "project-tools", ""},
		{"change an env value", func(c *Config) error {
			s := c.Server("project-tools")
			v := s.Env["GITHUB_TOKEN"]
			v.Param = "gh"
			s.Env["GITHUB_TOKEN"] = v
			return nil
		}, "project-tools", ""},
		{"add a scope", func(c *Config) error {
			o := c.Server("remote-tools").OAuth
			o.Scopes = append(o.Scopes, "admin")
			return nil
		}, "remote-tools", ""},
		{"force replace", func(c *Config) error {
			return c.Add(&Server{Name: "remote-tools", Enabled: true, URL: "https://other.example.com/mcp"}, true)
		}, "remote-tools", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustParse(t, in)
			if err := tt.edit(c); err != nil {
				t.Fatal(err)
			}
			if err := c.Validate(); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			out := mustMarshal(t, c)
			if !json.Valid(out) {
				t.Fatalf("not JSON:\n%s", out)
			}
			for _, name := range []string{"project-tools", "remote-tools", "plain"} {
				before, after := entryMembers(t, in, name), entryMembers(t, out, name)
				if name == tt.gone {
					if after != nil {
						t.Errorf("%s is still there", name)
					}
					continue
				}
				for k, v := range before {
					if name == tt.touched && after[k] != v {
						continue // the edited member
					}
					if after[k] != v {
						t.Errorf("%s.%s: %s, was %s", name, k, after[k], v)
					}
				}
				if name != tt.touched {
					e1 := jsonscan.Member(jsonscan.Member(in, "mcpServers"), name)
					e2 := jsonscan.Member(jsonscan.Member(out, "mcpServers"), name)
					if !bytes.Equal(e1, e2) {
						t.Errorf("untouched entry %s changed:\n%s\n%s", name, e1, e2)
					}
				}
			}
			for _, k := range []string{"connectionId", "connectionCredentials", "connectionGeneration", "x-object", "x-array"} {
				if got, want := entryMembers(t, out, "project-tools")[k], entryMembers(t, in, "project-tools")[k]; got != want {
					t.Errorf("managed/unknown member %s: %s, want %s", k, got, want)
				}
			}
			for _, k := range []string{"x-top-object", "x-top-array", "x-top-number", "x-top-null"} {
				if got, want := string(jsonscan.Member(out, k)), string(jsonscan.Member(in, k)); got != want {
					t.Errorf("top-level %s: %s, want %s", k, got, want)
				}
			}
			if again := mustMarshal(t, mustParse(t, out)); !bytes.Equal(again, out) {
				t.Errorf("not stable after the edit:\n%s\n%s", out, again)
			}
		})
	}
	t.Run("changed env value keeps its unknown members", func(t *testing.T) {
		c := mustParse(t, in)
		s := c.Server("project-tools")
		v := s.Env["HOME_DIR"]
		v.FromEnv = "USERPROFILE"
		s.Env["HOME_DIR"] = v
		got := entryMembers(t, mustMarshal(t, c), "project-tools")["env"]
		if !strings.Contains(got, `"fromEnv": "USERPROFILE"`) || !strings.Contains(got, `"x-meta": {"a": [1, 2.50, -3e2], "b": null}`) ||
			!strings.Contains(got, `{"param": "github_token", "note": "from the vault", "rotated": 3}`) {
			t.Errorf("env = %s", got)
		}
	})
	t.Run("force keeps the managed members", func(t *testing.T) {
		c := mustParse(t, in)
		c.Add(&Server{Name: "remote-tools", Enabled: true, URL: "https://other.example.com/mcp"}, true)
		m := entryMembers(t, mustMarshal(t, c), "remote-tools")
		if m["connectionId"] != `"conn-remote"` || m["url"] != `"https://other.example.com/mcp"` || m["oauth"] != "" {
			t.Errorf("replaced entry = %v", m)
		}
	})
}

func TestNewFile(t *testing.T) {
	c := &Config{Version: Version, InitStrategy: InitAuto}
	c.Add(&Server{Name: "everything", Enabled: true, Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-everything"},
		Env: map[string]EnvValue{"B": {Value: "2"}, "A": {Param: "a"}, "C": {FromEnv: "HOME"}}}, false)
	c.Add(&Server{Name: "web", Enabled: false, URL: "https://example.com/mcp?a=1&b=2", Headers: map[string]string{"X-Team": "t"},
		OAuth: &OAuth{ClientID: "id", Scopes: []string{"read"}}, StartupTimeout: 90 * time.Second, RequestTimeout: 2500 * time.Millisecond}, false)
	want := `{
  "version": 1,
  "mcpInitStrategy": "auto",
  "mcpServers": {
    "everything": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-everything"],
      "env": {
        "A": {
          "param": "a"
        },
        "B": "2",
        "C": {
          "fromEnv": "HOME"
        }
      },
      "enabled": true
    },
    "web": {
      "url": "https://example.com/mcp?a=1&b=2",
      "headers": {
        "X-Team": "t"
      },
      "oauth": {
        "clientId": "id",
        "scopes": ["read"]
      },
      "startupTimeoutSeconds": 90,
      "requestTimeoutSeconds": 2.5,
      "enabled": false
    }
  }
}
`
	if got := string(mustMarshal(t, c)); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := string(mustMarshal(t, &Config{})); got != "{\n  \"version\": 1,\n  \"mcpServers\": {}\n}\n" {
		t.Errorf("empty catalog: %q", got)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"empty", "  \n", []string{"empty"}},
		{"not JSON", "{\n  \"version\": 1,\n}", []string{"not valid JSON", "line 3, column 1"}},
		{"not an object", "[]", []string{"not a JSON object"}},
		{"newer version", `{"version": 2, "mcpServers": {}}`, []string{"version 2, newer than this luagent understands (1); upgrade luagent"}},
		{"bad version", `{"version": "1"}`, []string{"version: must be a whole number"}},
		{"servers not an object", `{"mcpServers": []}`, []string{"mcpServers: must be an object"}},
		{"entry not an object", `{"mcpServers": {"a": "npx"}}`, []string{"mcpServers.a: must be an object"}},
		{"duplicate entry", `{"mcpServers": {"a": {"command": "x"}, "a": {"command": "y"}}}`, []string{"mcpServers.a: appears twice"}},
		{"duplicate field", `{"mcpServers": {"a": {"command": "x", "command": "y"}}}`, []string{"mcpServers.a.command: appears twice"}},
		{"wrong types", `{"mcpServers": {"a": {"command": 1, "args": "x", "enabled": "yes", "env": [], "headers": {"a": 1}, "oauth": 3}}}`,
			[]string{"6 problems", "mcpServers.a.command: must be a string", "mcpServers.a.args: must be an array of strings",
				"mcpServers.a.enabled: must be true or false", "mcpServers.a.env: must be an object", "mcpServers.a.headers: must be an object of strings",
				"mcpServers.a.oauth: must be an object"}},
		{"zero timeout", `{"mcpServers": {"a": {"command": "x", "startupTimeoutSeconds": 0}}}`, []string{"mcpServers.a.startupTimeoutSeconds: must be a number of seconds above 0"}},
		{"huge timeout", `{"mcpServers": {"a": {"command": "x", "requestTimeoutSeconds": 1e300}}}`, []string{"requestTimeoutSeconds: must be a number of seconds above 0 and at most 86400"}},
		{"bad concurrency", `{"mcpServers": {"a": {"command": "x", "maxConcurrentCalls": 1.5}}}`, []string{"maxConcurrentCalls: must be a whole number"}},
		{"env value of two kinds", `{"mcpServers": {"a": {"command": "x", "env": {"T": {"param": "p", "fromEnv": "X"}}}}}`, []string{"mcpServers.a.env.T: must have exactly one of value, param and fromEnv"}},
		{"env value empty object", `{"mcpServers": {"a": {"command": "x", "env": {"T": {}}}}}`, []string{"mcpServers.a.env.T: must have exactly one"}},
		{"env value a number", `{"mcpServers": {"a": {"command": "x", "env": {"T": 1}}}}`, []string{"mcpServers.a.env.T: must be a string"}},
		{"inheritEnv a number", `{"mcpServers": {"a": {"command": "x", "inheritEnv": 3}}}`, []string{`mcpServers.a.inheritEnv: must be "minimal" or a list of variable names`}},
		{"inheritEnv not strings", `{"mcpServers": {"a": {"command": "x", "inheritEnv": ["PATH", 1]}}}`, []string{"mcpServers.a.inheritEnv: must be an array of strings"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.in))
			if !errs.Is(err, errs.Invalid) {
				t.Fatalf("err = %v (kind %v), want kind invalid", err, errs.KindOf(err))
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
}

// One test per rule of Validate: each bad entry gives exactly its problem,
// with the field's path.
func TestValidate(t *testing.T) {
	ok := func() *Server { return &Server{Name: "s", Enabled: true, Command: "npx"} }
	web := func() *Server { return &Server{Name: "w", Enabled: true, URL: "https://example.com/mcp"} }
	tests := []struct {
		name string
		s    *Server
		want string // "" for valid
	}{
		{"stdio ok", ok(), ""},
		{"http ok", web(), ""},
		{"name with a space", with(ok(), func(s *Server) { s.Name = "my server" }), `mcpServers."my server": the name must be 1 to 64 letters`},
		{"name with a dot", with(ok(), func(s *Server) { s.Name = "a.b" }), `mcpServers."a.b": the name must be`},
		{"name too long", with(ok(), func(s *Server) { s.Name = strings.Repeat("a", 65) }), "the name must be 1 to 64"},
		{"name of 64", with(ok(), func(s *Server) { s.Name = strings.Repeat("a", 64) }), ""},
		{"empty name", with(ok(), func(s *Server) { s.Name = "" }), "the name must be"},
		{"both command and url", with(ok(), func(s *Server) { s.URL = "https://x.example/mcp" }), "mcpServers.s: has both command and url"},
		{"neither", &Server{Name: "n"}, "mcpServers.n: needs command"},
		{"blank command", with(ok(), func(s *Server) { s.Command = "  " }), "mcpServers.s.command: must not be blank"},
		{"url not http", with(web(), func(s *Server) { s.URL = "ftp://example.com/x" }), "mcpServers.w.url: must be an http or https URL with a host"},
		{"url without host", with(web(), func(s *Server) { s.URL = "https:///mcp" }), "mcpServers.w.url: must be an http or https URL"},
		{"url relative", with(web(), func(s *Server) { s.URL = "/mcp" }), "mcpServers.w.url:"},
		{"http url ok", with(web(), func(s *Server) { s.URL = "http://127.0.0.1:8080/mcp" }), ""},
		{"args on http", with(web(), func(s *Server) { s.Args = []string{"x"} }), "mcpServers.w.args: only a stdio server"},
		{"env on http other name", with(web(), func(s *Server) { s.Env = map[string]EnvValue{"A": {Value: "1"}} }),
			"mcpServers.w.env.A: an HTTP server takes only MCP_ACCESS_TOKEN (a bearer token) and MCP_OAUTH_TOKEN_FILE (a token file) in env; remove A, or send it as a header"},
		{"env on http access token", with(web(), func(s *Server) { s.Env = map[string]EnvValue{"MCP_ACCESS_TOKEN": {Value: "t0k"}} }), ""},
		{"env on http token from env", with(web(), func(s *Server) { s.Env = map[string]EnvValue{"MCP_ACCESS_TOKEN": {FromEnv: "GH_TOKEN"}} }), ""},
		{"env on http token param", with(web(), func(s *Server) { s.Env = map[string]EnvValue{"MCP_ACCESS_TOKEN": {Param: "token"}} }), ""},
		{"env on http token file", with(web(), func(s *Server) { s.Env = map[string]EnvValue{"MCP_OAUTH_TOKEN_FILE": {Value: "/tmp/tok.json"}} }), ""},
		{"env on http both", with(web(), func(s *Server) {
			s.Env = map[string]EnvValue{"MCP_ACCESS_TOKEN": {FromEnv: "T"}, "MCP_OAUTH_TOKEN_FILE": {Value: "/tmp/tok.json"}}
		}), ""},
		{"env on http bad fromEnv", with(web(), func(s *Server) { s.Env = map[string]EnvValue{"MCP_ACCESS_TOKEN": {FromEnv: "A-B"}} }), "mcpServers.w.env.MCP_ACCESS_TOKEN.fromEnv: must be an environment variable name"},
		{"env on http lower case", with(web(), func(s *Server) { s.Env = map[string]EnvValue{"mcp_access_token": {Value: "x"}} }), "mcpServers.w.env.mcp_access_token: an HTTP server takes only MCP_ACCESS_TOKEN"},
		{"headers on stdio", with(ok(), func(s *Server) { s.Headers = map[string]string{"A": "1"} }), "mcpServers.s.headers: only an HTTP server"},
		{"oauth on stdio", with(ok(), func(s *Server) { s.OAuth = &OAuth{} }), "mcpServers.s.oauth: only an HTTP server"},
		{"secret without id", with(web(), func(s *Server) { s.OAuth = &OAuth{ClientSecret: "x"} }), "mcpServers.w.oauth.clientSecret: a client secret needs clientId"},
		{"secret with id", with(web(), func(s *Server) { s.OAuth = &OAuth{ClientID: "i", ClientSecret: "x"} }), ""},
		{"cimd not https", with(web(), func(s *Server) { s.OAuth = &OAuth{ClientIDMetadataURL: "http://example.com/c.json"} }), "mcpServers.w.oauth.clientIdMetadataUrl: must be an https URL with a path"},
		{"cimd without path", with(web(), func(s *Server) { s.OAuth = &OAuth{ClientIDMetadataURL: "https://example.com/"} }), "mcpServers.w.oauth.clientIdMetadataUrl: must be an https URL with a path"},
		{"cimd ok", with(web(), func(s *Server) { s.OAuth = &OAuth{ClientIDMetadataURL: "https://example.com/client.json"} }), ""},
		{"blank scope", with(web(), func(s *Server) { s.OAuth = &OAuth{Scopes: []string{"read", " "}} }), "mcpServers.w.oauth.scopes[1]: must be one scope name"},
		{"scope with space", with(web(), func(s *Server) { s.OAuth = &OAuth{Scopes: []string{"a b"}} }), "mcpServers.w.oauth.scopes[0]:"},
		{"protocol", with(ok(), func(s *Server) { s.Protocol = "new" }), `mcpServers.s.protocol: must be "auto", "legacy" or "modern", not "new"`},
		{"protocol ok", with(ok(), func(s *Server) { s.Protocol = "legacy" }), ""},
		{"log level", with(ok(), func(s *Server) { s.LogLevel = "warn" }), "mcpServers.s.logLevel: must be one of debug, info, notice, warning"},
		{"log level ok", with(ok(), func(s *Server) { s.LogLevel = "debug" }), ""},
		{"startup", with(ok(), func(s *Server) { s.Startup = "later" }), `mcpServers.s.startup: must be "eager" or "lazy" (or left out: eager), not "later"`},
		{"startup lazy", with(ok(), func(s *Server) { s.Startup = StartupLazy }), ""},
		{"startup eager", with(ok(), func(s *Server) { s.Startup = StartupEager }), ""},
		{"negative timeout", with(ok(), func(s *Server) { s.StartupTimeout = -time.Second }), "mcpServers.s.startupTimeoutSeconds: must be a number of seconds above 0"},
		{"huge timeout", with(ok(), func(s *Server) { s.RequestTimeout = 48 * time.Hour }), "mcpServers.s.requestTimeoutSeconds:"},
		{"negative concurrency", with(ok(), func(s *Server) { s.MaxConcurrentCalls = -1 }), "mcpServers.s.maxConcurrentCalls: must be 0 or more"},
		{"env name", with(ok(), func(s *Server) { s.Env = map[string]EnvValue{"1BAD": {Value: "x"}} }), "mcpServers.s.env.1BAD: is not a valid variable name"},
		{"env name with =", with(ok(), func(s *Server) { s.Env = map[string]EnvValue{"A=B": {Value: "x"}} }), "mcpServers.s.env.A=B: is not a valid variable name"},
		{"env two kinds", with(ok(), func(s *Server) { s.Env = map[string]EnvValue{"A": {Value: "x", Param: "p"}} }), "mcpServers.s.env.A: must be exactly one of"},
		{"env param name", with(ok(), func(s *Server) { s.Env = map[string]EnvValue{"A": {Param: "a b"}} }), "mcpServers.s.env.A.param: must be a parameter name"},
		{"env fromEnv name", with(ok(), func(s *Server) { s.Env = map[string]EnvValue{"A": {FromEnv: "A-B"}} }), "mcpServers.s.env.A.fromEnv: must be an environment variable name"},
		{"env ok", with(ok(), func(s *Server) {
			s.Env = map[string]EnvValue{"A": {Value: ""}, "B": {Param: "b.c"}, "C": {FromEnv: "HOME"}}
		}), ""},
		{"inheritEnv minimal", with(ok(), func(s *Server) { s.InheritEnv = InheritEnv{Minimal: true} }), ""},
		{"inheritEnv list", with(ok(), func(s *Server) { s.InheritEnv = InheritEnv{Names: []string{"PATH", "OPENAI_API_KEY"}} }), ""},
		{"inheritEnv empty list", with(ok(), func(s *Server) { s.InheritEnv = InheritEnv{List: true} }), ""},
		{"inheritEnv other string", with(ok(), func(s *Server) { s.InheritEnv = InheritEnv{other: "all"} }), `mcpServers.s.inheritEnv: must be "minimal" or a list of variable names`},
		{"inheritEnv bad name", with(ok(), func(s *Server) { s.InheritEnv = InheritEnv{Names: []string{"PATH", "A=B"}} }), "mcpServers.s.inheritEnv[1]: must be a variable's name"},
		{"inheritEnv windows name", with(ok(), func(s *Server) {
			s.InheritEnv = InheritEnv{Names: []string{"ProgramFiles(x86)", "__CF_USER_TEXT_ENCODING"}}
		}), ""},
		{"inheritEnv twice", with(ok(), func(s *Server) { s.InheritEnv = InheritEnv{Names: []string{"PATH", "PATH"}} }), "mcpServers.s.inheritEnv[1]: PATH appears twice"},
		{"inheritEnv on http", with(web(), func(s *Server) { s.InheritEnv = InheritEnv{Minimal: true} }), "mcpServers.w.inheritEnv: only a stdio server"},
		{"header name", with(web(), func(s *Server) { s.Headers = map[string]string{"X Team": "a"} }), "mcpServers.w.headers.X Team: is not a valid HTTP header name"},
		{"header value", with(web(), func(s *Server) { s.Headers = map[string]string{"X-Team": "a\r\nInjected: 1"} }), "mcpServers.w.headers.X-Team: the value must not hold line breaks"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Config{Version: 1, InitStrategy: InitAuto, Servers: []*Server{tt.s}}
			err := c.Validate()
			if tt.want == "" {
				if err != nil {
					t.Fatalf("unexpected: %v", err)
				}
				return
			}
			var ps Problems
			if !errs.Is(err, errs.Invalid) || !errors.As(err, &ps) {
				t.Fatalf("err = %v, want kind invalid with Problems", err)
			}
			if len(ps) != 1 || !strings.Contains(ps[0].String(), tt.want) {
				t.Errorf("problems %v, want one containing %q", ps, tt.want)
			}
		})
	}
	t.Run("init strategy", func(t *testing.T) {
		err := (&Config{InitStrategy: "lazy"}).Validate()
		if err == nil || !strings.Contains(err.Error(), `mcpInitStrategy: must be "auto", "progressive" or "wait", not "lazy"`) {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("every problem at once", func(t *testing.T) {
		c := &Config{Servers: []*Server{
			{Name: "a", URL: "ftp://x", Protocol: "x"},
			{Name: "b b", Command: "x", LogLevel: "loud"},
		}}
		var ps Problems
		if err := c.Validate(); !errors.As(err, &ps) || len(ps) != 4 || !strings.HasPrefix(err.Error(), "catalog: 4 problems: mcpServers.a.url:") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("duplicate names", func(t *testing.T) {
		c := &Config{Servers: []*Server{ok(), ok()}}
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "mcpServers.s: appears twice") {
			t.Errorf("err = %v", err)
		}
	})
}

func with(s *Server, f func(*Server)) *Server { f(s); return s }

func TestAddRemove(t *testing.T) {
	c := &Config{}
	if err := c.Add(&Server{Name: "a", Command: "x", Enabled: true}, false); err != nil {
		t.Fatal(err)
	}
	err := c.Add(&Server{Name: "a", Command: "y"}, false)
	if !errs.Is(err, errs.Invalid) || !strings.Contains(err.Error(), "already in the catalog") || !strings.Contains(err.Error(), "--force") {
		t.Errorf("second add: %v", err)
	}
	if err := c.Add(&Server{Name: "a", Command: "y"}, true); err != nil || c.Server("a").Command != "y" || len(c.Servers) != 1 {
		t.Errorf("force: %v, %+v", err, c.Servers)
	}
	if c.Add(nil, false) == nil || c.Add(&Server{}, false) == nil {
		t.Error("Add of nothing succeeded")
	}
	if !c.Remove("a") || c.Remove("a") || c.Server("a") != nil {
		t.Error("Remove")
	}
}

// The catalog keeps its own copy of MCP's log levels (it stays below
// runtime/mcp in the layering); they must not drift apart.
func TestLogLevelsAreMCPs(t *testing.T) {
	if !slices.Equal(logLevels, mcp.LogLevels) {
		t.Errorf("catalog %v, mcp %v", logLevels, mcp.LogLevels)
	}
}

// ParseServers reads entries as the file's and holds them to its rules.
func TestParseServers(t *testing.T) {
	list, err := ParseServers([]byte(`{"fs": {"command": "npx", "args": ["-y", "x"]}}`))
	if err != nil || len(list) != 1 || list[0].Name != "fs" || list[0].Command != "npx" || !list[0].Enabled {
		t.Errorf("ParseServers = %+v, %v", list, err)
	}
	if _, err := ParseServers([]byte(`{"fs": {}}`)); err == nil {
		t.Error("an entry with neither command nor url was accepted")
	}
}

// nameRule matches exactly what the regexps it replaced matched.
func TestNameRuleIsTheRegexp(t *testing.T) {
	for _, c := range []struct {
		r  nameRule
		re string
	}{{nameRE, `^[A-Za-z0-9_-]{1,64}$`}, {paramRE, `^[A-Za-z0-9_.-]{1,128}$`}, {modelNameRE, `^[A-Za-z0-9_.-]{1,64}$`}} {
		re := regexp.MustCompile(c.re)
		for _, s := range []string{"", "a", "A-z_0", "a.b", "a b", "é", "a\n", strings.Repeat("x", 64), strings.Repeat("x", 65),
			strings.Repeat("y", 128), strings.Repeat("y", 129), "-", ".", "a/b", "a:b", "ab\x00"} {
			if got, want := c.r.MatchString(s), re.MatchString(s); got != want {
				t.Errorf("%s on %q: %v, the regexp says %v", c.re, s, got, want)
			}
		}
	}
}

// inheritEnv written, changed and removed by an edit; an empty list stays
// a list (it passes nothing), apart from the member left out.
func TestInheritEnvEdit(t *testing.T) {
	c := mustParse(t, []byte(`{"version": 1, "mcpServers": {"a": {"command": "x", "inheritEnv": "minimal"}, "b": {"command": "y"}}}`))
	c.Server("a").InheritEnv = InheritEnv{}
	c.Server("b").InheritEnv = InheritEnv{List: true}
	out := mustMarshal(t, c)
	if m := entryMembers(t, out, "a"); m["inheritEnv"] != "" {
		t.Errorf("a still has inheritEnv %s", m["inheritEnv"])
	}
	if m := entryMembers(t, out, "b"); m["inheritEnv"] != "[]" {
		t.Errorf("b: inheritEnv = %q\n%s", m["inheritEnv"], out)
	}
	again := mustParse(t, out)
	if ie := again.Server("b").InheritEnv; !ie.IsList() || len(ie.Names) != 0 || ie.IsDefault() {
		t.Errorf("b read back as %+v", ie)
	}
	if !again.Server("a").InheritEnv.IsDefault() {
		t.Errorf("a read back as %+v", again.Server("a").InheritEnv)
	}
}

// "startup" is read, kept by an edit of another member, and written when
// set in Go.
func TestStartupMember(t *testing.T) {
	c := mustParse(t, []byte(`{"version": 1, "mcpServers": {"a": {"command": "x", "startup": "lazy"}, "b": {"command": "y"}}}`))
	if !c.Server("a").Lazy() || c.Server("b").Lazy() {
		t.Fatalf("lazy: a %v, b %v", c.Server("a").Lazy(), c.Server("b").Lazy())
	}
	c.Server("a").Args = []string{"--v"}
	c.Server("b").Startup = StartupLazy
	out := mustMarshal(t, c)
	if m := entryMembers(t, out, "a"); m["startup"] != `"lazy"` {
		t.Errorf("a: startup = %q\n%s", m["startup"], out)
	}
	if m := entryMembers(t, out, "b"); m["startup"] != `"lazy"` {
		t.Errorf("b: startup = %q\n%s", m["startup"], out)
	}
}
