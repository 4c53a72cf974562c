package mcp

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"github.com/luagent/luagent/runtime/oauth"
)

// grantOptions reads the unattended-grant fields of an oauth table:
//
//	grant = "client_credentials" | "jwt_bearer"   (default: the browser flow)
//	private_key_pem, signing_algorithm           private_key_jwt client auth
//	idp = { token_endpoint, client_id, client_secret, id_token }   jwt_bearer
//	assertion = jwt                  jwt_bearer with the workload's own JWT
//	dpop = true                      DPoP-bound tokens (RFC 9449), any grant
//
// oauth.Config.Validate checks them together.
func grantOptions(v *lua.LTable, cfg *oauth.Config) error {
	cfg.Grant = firstString(v, "grant")
	cfg.PrivateKeyPEM = firstString(v, "private_key_pem", "privateKeyPem")
	cfg.SigningAlgorithm = firstString(v, "signing_algorithm", "signingAlgorithm")
	cfg.Assertion = firstString(v, "assertion")
	switch d := v.RawGetString("dpop").(type) {
	case *lua.LNilType:
	case lua.LBool:
		cfg.DPoP = bool(d)
	default:
		return fmt.Errorf("oauth.dpop must be a boolean")
	}
	switch idp := v.RawGetString("idp").(type) {
	case *lua.LNilType:
	case *lua.LTable:
		cfg.IdP = oauth.IdentityProvider{
			TokenEndpoint: firstString(idp, "token_endpoint", "tokenEndpoint"),
			ClientID:      firstString(idp, "client_id", "clientId"),
			ClientSecret:  firstString(idp, "client_secret", "clientSecret"),
			IDToken:       firstString(idp, "id_token", "idToken"),
		}
	default:
		return fmt.Errorf("oauth.idp must be a table ({token_endpoint = …, client_id = …, id_token = …})")
	}
	return nil
}
