package oauth

import (
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/errs"
)

func TestParseChallenge(t *testing.T) {
	tests := []struct {
		name, header string
		want         Challenge
	}{
		{"empty", "", Challenge{}},
		{"not bearer", `Basic realm="x"`, Challenge{}},
		{"bare bearer", "Bearer", Challenge{Bearer: true}},
		{"401 with metadata and scope", `Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", scope="files:read"`,
			Challenge{Bearer: true, ResourceMetadata: "https://mcp.example.com/.well-known/oauth-protected-resource", Scope: "files:read"}},
		{"403 step-up, multi-line", "Bearer error=\"insufficient_scope\",\n\t scope=\"files:read files:write\",\n\t resource_metadata=\"https://m/.well-known/oauth-protected-resource\",\n\t error_description=\"File write permission required\"",
			Challenge{Bearer: true, Error: "insufficient_scope", Scope: "files:read files:write", ResourceMetadata: "https://m/.well-known/oauth-protected-resource", ErrorDescription: "File write permission required"}},
		{"case-insensitive scheme and names", `bearer Resource_Metadata="https://a/b", SCOPE=x`, Challenge{Bearer: true, ResourceMetadata: "https://a/b", Scope: "x"}},
		{"token values and odd spacing", `Bearer   error = invalid_token ,scope=a`, Challenge{Bearer: true, Error: "invalid_token", Scope: "a"}},
		{"escapes and commas in quotes", `Bearer error_description="a \"quoted\", comma\\ok", scope="s"`, Challenge{Bearer: true, ErrorDescription: `a "quoted", comma\ok`, Scope: "s"}},
		{"after another challenge", `Basic realm="x, y", Bearer scope="b", resource_metadata="https://r"`, Challenge{Bearer: true, Scope: "b", ResourceMetadata: "https://r"}},
		{"token68 before", `Negotiate abc==, Bearer scope="b"`, Challenge{Bearer: true, Scope: "b"}},
		{"params of a later challenge are not Bearer's", `Bearer scope="a", DPoP algs="ES256", scope="z"`, Challenge{Bearer: true, Scope: "a"}},
		{"first duplicate wins", `Bearer scope="a", scope="b"`, Challenge{Bearer: true, Scope: "a"}},
		{"unterminated quote", `Bearer scope="a b`, Challenge{Bearer: true, Scope: "a b"}},
		{"garbage", `=,,"" Bearer/ ;;`, Challenge{Bearer: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ParseChallenge(tt.header); got != tt.want {
				t.Errorf("ParseChallenge(%q)\n got %+v\nwant %+v", tt.header, got, tt.want)
			}
		})
	}
	c := ParseChallenge(`Bearer error="insufficient_scope", scope="a  b"`)
	if !c.InsufficientScope() || strings.Join(c.Scopes(), ",") != "a,b" {
		t.Errorf("%+v: InsufficientScope %v Scopes %q", c, c.InsufficientScope(), c.Scopes())
	}
}

func TestValidate(t *testing.T) {
	ok := "https://mcp.example.com/mcp"
	tests := []struct {
		name string
		cfg  Config
		want string // "" valid; else a substring of the error
	}{
		{"minimal", Config{ServerURL: ok}, ""},
		{"full", Config{ServerURL: ok, ClientID: "id", ClientSecret: "s", ClientIssuer: "https://as", ClientIDMetadataURL: "https://app.example.com/client.json", Scopes: []string{"a", "b:c"}, RedirectURL: "http://localhost:3000/callback"}, ""},
		{"no server", Config{}, "no MCP server URL"},
		{"relative server", Config{ServerURL: "mcp.example.com/mcp"}, "not an absolute URL"},
		{"ws server", Config{ServerURL: "ws://mcp.example.com"}, "not http or https"},
		{"secret without id", Config{ServerURL: ok, ClientSecret: "s"}, "clientSecret is set without oauth.clientId"},
		{"issuer without id", Config{ServerURL: ok, ClientIssuer: "https://as"}, "without oauth.clientId"},
		{"metadata URL http", Config{ServerURL: ok, ClientIDMetadataURL: "http://app.example.com/client.json"}, "https URL with a path"},
		{"metadata URL without path", Config{ServerURL: ok, ClientIDMetadataURL: "https://app.example.com/"}, "https URL with a path"},
		{"metadata URL not a URL", Config{ServerURL: ok, ClientIDMetadataURL: "client.json"}, "https URL with a path"},
		{"blank scope", Config{ServerURL: ok, Scopes: []string{"a", " "}}, "blank entry"},
		{"two scopes in one", Config{ServerURL: ok, Scopes: []string{"a b"}}, "not one scope"},
		{"redirect not loopback", Config{ServerURL: ok, RedirectURL: "http://example.com/cb"}, "loopback"},
		{"https redirect needs Browse", Config{ServerURL: ok, RedirectURL: "https://app.example.com/cb"}, "Browse"},
		{"https redirect with Browse", Config{ServerURL: ok, RedirectURL: "https://app.example.com/cb", Browse: fetchLocation}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			wantErr(t, nil, err, errs.Invalid, tt.want)
			if _, nerr := New(tt.cfg); nerr == nil {
				t.Error("New accepted an invalid config")
			}
		})
	}
}

func TestCanonicalResource(t *testing.T) {
	for in, want := range map[string]string{
		"https://mcp.example.com":           "https://mcp.example.com",
		"https://mcp.example.com/":          "https://mcp.example.com",
		"HTTPS://MCP.Example.COM/Mcp":       "https://mcp.example.com/Mcp",
		"https://mcp.example.com:8443/a/b/": "https://mcp.example.com:8443/a/b",
		"https://mcp.example.com/mcp?x=1#f": "https://mcp.example.com/mcp",
	} {
		if got, err := CanonicalResource(in); err != nil || got != want {
			t.Errorf("CanonicalResource(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}
