// Package oauth authorizes luagent's MCP client with protected MCP servers
// (MCP authorization, 2025-11-25 and 2026-07-28): protected-resource and
// authorization-server discovery, client registration, PKCE authorization
// code flow, token exchange and refresh (the token endpoint requests are
// golang.org/x/oauth2's: token.go). It has no Lua and no storage;
// runtime/oauth/store keeps credentials on disk.
package oauth

// Credential is what luagent keeps per MCP server URL: the client it
// registered (or was given) at one authorization server, and the tokens.
// Credentials are bound to the issuer: a credential whose Issuer differs
// from the server's current authorization server is not used.
type Credential struct {
	Issuer        string `json:"issuer"`
	ClientID      string `json:"client_id"`
	ClientSecret  string `json:"client_secret,omitempty"`
	TokenEndpoint string `json:"token_endpoint"`
	// TokenAuth is how the client authenticates at the token endpoint:
	// "client_secret_basic", "client_secret_post" or "none".
	TokenAuth    string `json:"token_endpoint_auth_method,omitempty"`
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token,omitempty"`
	// ExpiresAt is when the access token expires (Unix seconds; 0 unknown).
	ExpiresAt int64  `json:"expires_at,omitempty"`
	Scope     string `json:"scope,omitempty"`
	// Resource is the RFC 8707 resource the tokens were asked for.
	Resource string `json:"resource,omitempty"`
	// DPoPKey is the private key (PKCS#8 PEM) the tokens are bound to, for
	// DPoP-bound credentials (as secret as the tokens).
	DPoPKey string `json:"dpop_key,omitempty"`
}
