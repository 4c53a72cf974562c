package mcp

import (
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/luagent/luagent/runtime/oauth"
)

func TestGrantOptions(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	eval := func(src string) *lua.LTable {
		t.Helper()
		if err := L.DoString("opts = " + src); err != nil {
			t.Fatal(err)
		}
		return L.GetGlobal("opts").(*lua.LTable)
	}

	var cfg oauth.Config
	if err := grantOptions(eval(`{ grant = "client_credentials", private_key_pem = "PEM", signing_algorithm = "ES256" }`), &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Grant != oauth.GrantClientCredentials || cfg.PrivateKeyPEM != "PEM" || cfg.SigningAlgorithm != "ES256" || cfg.IdP != (oauth.IdentityProvider{}) {
		t.Errorf("client_credentials options read as %+v", cfg)
	}

	cfg = oauth.Config{}
	if err := grantOptions(eval(`{ grant = "jwt_bearer", idp = { token_endpoint = "https://idp/token", client_id = "c", client_secret = "s", id_token = "t" } }`), &cfg); err != nil {
		t.Fatal(err)
	}
	want := oauth.IdentityProvider{TokenEndpoint: "https://idp/token", ClientID: "c", ClientSecret: "s", IDToken: "t"}
	if cfg.Grant != oauth.GrantJWTBearer || cfg.IdP != want {
		t.Errorf("jwt_bearer options read as grant %q, idp %v", cfg.Grant, cfg.IdP)
	}

	if err := grantOptions(eval(`{ idp = "https://idp/token" }`), &cfg); err == nil || !strings.Contains(err.Error(), "oauth.idp must be a table") {
		t.Errorf("idp as a string: %v", err)
	}
}
