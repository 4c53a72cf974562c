package mcpclient_test

import (
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
	luar "layeh.com/gopher-luar"

	"github.com/luagent/luagent/luabind/host"
	"github.com/luagent/luagent/runtime/oauth"
)

// The unattended-grant fields of an oauth table, as mcp_client.lua reads
// them and gopher-luar hands them to Go.
func TestGrantOptions(t *testing.T) {
	h := host.New(host.Config{Clean: true})
	defer h.Close()
	L := h.L
	// grant reads src as an oauth table: the oauth.Config, or the error.
	grant := func(src string) (oauth.Config, string) {
		t.Helper()
		if err := L.DoString(`local cfg, err = require("mcp._client")._oauth_config(` + src + `)
			result = cfg or err`); err != nil {
			t.Fatal(err)
		}
		var cfg oauth.Config
		switch v := L.GetGlobal("result").(type) {
		case lua.LString:
			return cfg, string(v)
		case *lua.LTable:
			L.Push(luar.New(L, func(c oauth.Config) { cfg = c }))
			L.Push(v)
			L.Call(1, 0)
		}
		return cfg, ""
	}

	cfg, err := grant(`{ grant = "client_credentials", private_key_pem = "PEM", signing_algorithm = "ES256" }`)
	if err != "" {
		t.Fatal(err)
	}
	if cfg.Grant != oauth.GrantClientCredentials || cfg.PrivateKeyPEM != "PEM" || cfg.SigningAlgorithm != "ES256" || cfg.IdP != (oauth.IdentityProvider{}) {
		t.Errorf("client_credentials options read as %+v", cfg)
	}

	cfg, err = grant(`{ grant = "jwt_bearer", idp = { token_endpoint = "https://idp/token", client_id = "c", client_secret = "s", id_token = "t" } }`)
	if err != "" {
		t.Fatal(err)
	}
	want := oauth.IdentityProvider{TokenEndpoint: "https://idp/token", ClientID: "c", ClientSecret: "s", IDToken: "t"}
	if cfg.Grant != oauth.GrantJWTBearer || cfg.IdP != want {
		t.Errorf("jwt_bearer options read as grant %q, idp %v", cfg.Grant, cfg.IdP)
	}

	if _, err := grant(`{ idp = "https://idp/token" }`); !strings.Contains(err, "oauth.idp must be a table") {
		t.Errorf("idp as a string: %v", err)
	}
}
