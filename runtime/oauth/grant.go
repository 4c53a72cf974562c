package oauth

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/luagent/luagent/runtime/errs"
)

// Grants (Config.Grant): how Authorize obtains a token. Only the
// authorization code flow involves a person; the others run unattended.
const (
	// GrantAuthorizationCode is the default (Grant ""): the browser step
	// with PKCE.
	GrantAuthorizationCode = "authorization_code"
	// GrantClientCredentials is the OAuth client credentials grant (MCP
	// extension "OAuth client credentials", SEP-1046): the client acts for
	// itself, authenticated by its secret or a private_key_jwt assertion.
	GrantClientCredentials = "client_credentials"
	// GrantJWTBearer is enterprise-managed authorization (Cross App
	// Access, SEP-990): the user's ID token from the enterprise identity
	// provider is exchanged there for an ID-JAG (RFC 8693 token exchange),
	// which the MCP server's authorization server takes as an RFC 7523
	// jwt-bearer authorization grant.
	GrantJWTBearer = "jwt_bearer"
)

// AuthPrivateKeyJWT is private_key_jwt client authentication (RFC 7523
// §2.2, OIDC Core §9): a JWT signed with the client's private key.
const AuthPrivateKeyJWT = "private_key_jwt"

// The RFC 7523 and RFC 8693 URNs.
const (
	clientAssertionType   = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
	grantTypeJWTBearer    = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	grantTypeExchange     = "urn:ietf:params:oauth:grant-type:token-exchange"
	tokenTypeIDToken      = "urn:ietf:params:oauth:token-type:id_token"
	tokenTypeIDJAG        = "urn:ietf:params:oauth:token-type:id-jag"
	clientAssertionMaxAge = 5 * time.Minute
)

// IdentityProvider is the enterprise identity provider for GrantJWTBearer.
type IdentityProvider struct {
	// TokenEndpoint is the IdP's token endpoint, where the ID token is
	// exchanged for an ID-JAG (https, or http on a loopback address).
	TokenEndpoint string
	// ClientID is luagent's client at the IdP; ClientSecret, if set,
	// authenticates it (client_secret_basic), else it is a public client.
	ClientID, ClientSecret string
	// IDToken is the user's OIDC ID token issued by the IdP to ClientID.
	IDToken string
}

// String describes the IdP without the ID token or the secret.
func (p IdentityProvider) String() string {
	return "oauth.IdentityProvider{token_endpoint=" + p.TokenEndpoint + " client=" + p.ClientID +
		" client_secret=" + present(p.ClientSecret) + " id_token=" + present(p.IDToken) + "}"
}

// GoString is String, for %#v.
func (p IdentityProvider) GoString() string { return p.String() }

// unattended reports whether the configuration asks for a grant without
// the browser step.
func (c *Config) unattended() bool {
	return c.Grant != "" && c.Grant != GrantAuthorizationCode
}

// validateGrant checks the grant settings: a known grant; a client with a
// secret or a private key for client credentials; the IdP's endpoint, its
// client and the ID token (or a workload's own JWT, Assertion) for
// jwt_bearer; a private key that parses and
// fits the signing algorithm.
func (c *Config) validateGrant() error {
	switch c.Grant {
	case "", GrantAuthorizationCode, GrantClientCredentials, GrantJWTBearer:
	default:
		return errs.Errorf(errs.Invalid, "oauth", "oauth.grant %q is not supported: use %q (the default), %q or %q", c.Grant, GrantAuthorizationCode, GrantClientCredentials, GrantJWTBearer)
	}
	if c.PrivateKeyPEM != "" || c.SigningAlgorithm != "" {
		switch {
		case c.PrivateKeyPEM == "":
			return errs.New(errs.Invalid, "oauth", "oauth.signing_algorithm is set without oauth.private_key_pem: add the private key it signs with")
		case !c.unattended():
			return errs.Errorf(errs.Invalid, "oauth", "oauth.private_key_pem (private_key_jwt) is supported with grant %q or %q, not with the authorization code flow", GrantClientCredentials, GrantJWTBearer)
		case c.ClientID == "":
			return errs.New(errs.Invalid, "oauth", "oauth.private_key_pem is set without oauth.client_id: add the client id the key is registered for")
		case c.ClientSecret != "":
			return errs.New(errs.Invalid, "oauth", "both oauth.client_secret and oauth.private_key_pem are set: give the one the client authenticates with")
		}
		if _, err := parseSigningKey(c.PrivateKeyPEM, c.SigningAlgorithm); err != nil {
			return err
		}
	}
	idpSet := c.IdP != (IdentityProvider{})
	if c.Assertion != "" && c.Grant != GrantJWTBearer {
		return errs.Errorf(errs.Invalid, "oauth", "oauth.assertion is set but oauth.grant is not %q: set grant = %q to present it", GrantJWTBearer, GrantJWTBearer)
	}
	switch c.Grant {
	case GrantClientCredentials:
		if c.ClientID == "" || (c.ClientSecret == "" && c.PrivateKeyPEM == "") {
			return errs.New(errs.Invalid, "oauth", "the client_credentials grant needs oauth.client_id and its oauth.client_secret or oauth.private_key_pem")
		}
	case GrantJWTBearer:
		if c.ClientID == "" {
			return errs.New(errs.Invalid, "oauth", "the jwt_bearer grant needs oauth.client_id: the client registered with the MCP server's authorization server")
		}
		if c.Assertion != "" {
			if idpSet {
				return errs.New(errs.Invalid, "oauth", "both oauth.assertion and oauth.idp are set for the jwt_bearer grant: give the workload's JWT (assertion) or the identity provider (idp), not both")
			}
			if strings.Count(c.Assertion, ".") != 2 {
				return errs.New(errs.Invalid, "oauth", "oauth.assertion is not a JWT (three dot-separated parts): give the workload's identity token")
			}
			break
		}
		p := c.IdP
		if p.TokenEndpoint == "" || p.ClientID == "" || p.IDToken == "" {
			return errs.New(errs.Invalid, "oauth", "the jwt_bearer grant needs oauth.idp with token_endpoint, client_id and id_token (the user's ID token from the identity provider), or oauth.assertion (a workload's own JWT)")
		}
		u, err := url.Parse(p.TokenEndpoint)
		if err != nil || u.Host == "" || u.Fragment != "" || (u.Scheme != "https" && u.Scheme != "http") {
			return errs.Errorf(errs.Invalid, "oauth", "oauth.idp.token_endpoint %q is not an absolute http(s) URL", p.TokenEndpoint)
		}
		if !secureURL(u) {
			return errs.Errorf(errs.Invalid, "oauth", "oauth.idp.token_endpoint %s is not HTTPS; refusing to send the ID token over plain HTTP", p.TokenEndpoint)
		}
	default:
		if idpSet {
			return errs.Errorf(errs.Invalid, "oauth", "oauth.idp is set but oauth.grant is not %q: set grant = %q to use the identity provider", GrantJWTBearer, GrantJWTBearer)
		}
	}
	return nil
}

// authorizeGrant obtains a token without the browser step (Config.Grant),
// once discovery has found the authorization server and the resource:
// client credentials, or the ID-JAG token exchange then the jwt-bearer
// grant. Refresh tokens are kept only for secret or public clients, which
// Refresh can authenticate; a private_key_jwt client runs the grant again.
func (f *Flow) authorizeGrant(ctx context.Context, meta *serverMetadata, resource string, scopes []string) (*Credential, error) {
	scopes = slices.DeleteFunc(slices.Clone(scopes), func(s string) bool { return s == offlineAccess })
	grantType := f.cfg.Grant
	if grantType == GrantJWTBearer {
		grantType = grantTypeJWTBearer
	}
	if len(meta.GrantTypesSupported) > 0 && !slices.Contains(meta.GrantTypesSupported, grantType) {
		return nil, errs.Errorf(errs.Auth, "oauth", "authorization server %s does not support the %s grant (grant_types_supported: %s); use another oauth.grant or ask its operator", meta.Issuer, f.cfg.Grant, sanitize(strings.Join(meta.GrantTypesSupported, " ")))
	}
	form := url.Values{"grant_type": {grantType}, "resource": {resource}}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	var secrets []string
	doing := "requesting a token with the client credentials grant"
	if f.cfg.Grant == GrantJWTBearer && f.cfg.Assertion != "" {
		// Workload identity federation: the platform's JWT is the grant.
		form.Set("assertion", f.cfg.Assertion)
		secrets = append(secrets, f.cfg.Assertion)
		doing = "presenting the workload's JWT for an access token (jwt-bearer grant)"
	} else if f.cfg.Grant == GrantJWTBearer {
		jag, err := f.exchangeIDToken(ctx, meta.Issuer, resource, scopes)
		if err != nil {
			return nil, err
		}
		form.Set("assertion", jag)
		secrets = append(secrets, jag)
		doing = "exchanging the ID-JAG for an access token (jwt-bearer grant)"
	}
	cl, err := f.grantClient(meta, form)
	if err != nil {
		return nil, err
	}
	tok, err := f.requestToken(ctx, f.tokenHTTP, meta.TokenEndpoint, cl, form, doing, clientHint, secrets...)
	if err != nil {
		return nil, err
	}
	cred := &Credential{
		Issuer:        meta.Issuer,
		ClientID:      f.cfg.ClientID,
		ClientSecret:  f.cfg.ClientSecret,
		TokenEndpoint: meta.TokenEndpoint,
		TokenAuth:     cl.auth,
		Scope:         strings.Join(scopes, " "),
		Resource:      resource,
	}
	if err := f.keepToken(cred, tok, meta.TokenEndpoint, doing); err != nil {
		return nil, err
	}
	switch {
	case f.cfg.PrivateKeyPEM != "":
		cred.TokenAuth = AuthPrivateKeyJWT
		cred.RefreshToken = "" // Refresh cannot sign an assertion: the grant runs again
	case f.cfg.Grant != GrantJWTBearer:
		cred.RefreshToken = "" // client credentials: the grant runs again
	} // (jwt-bearer keeps it: the ID token may be gone by then)
	return cred, nil
}

// grantClient returns how the client authenticates at the authorization
// server's token endpoint for an unattended grant. With a private key it
// adds a fresh private_key_jwt assertion to form (iss = sub = client id,
// aud = the issuer, five minutes, a unique jti) and the client_id goes in
// the body alone; with a secret it is client_secret_basic or _post as the
// server supports.
func (f *Flow) grantClient(meta *serverMetadata, form url.Values) (clientInfo, error) {
	cl := clientInfo{id: f.cfg.ClientID, secret: f.cfg.ClientSecret, auth: pickAuth(f.cfg.ClientSecret != "", meta.TokenEndpointAuthMethodsSupported)}
	if f.cfg.PrivateKeyPEM == "" {
		return cl, nil
	}
	key, err := parseSigningKey(f.cfg.PrivateKeyPEM, f.cfg.SigningAlgorithm)
	if err != nil {
		return clientInfo{}, err
	}
	now := f.cfg.Now()
	assertion, err := key.sign(map[string]any{
		"iss": f.cfg.ClientID,
		"sub": f.cfg.ClientID,
		"aud": meta.Issuer,
		"iat": now.Unix(),
		"exp": now.Add(clientAssertionMaxAge).Unix(),
		"jti": randomString(),
	})
	if err != nil {
		return clientInfo{}, err
	}
	form.Set("client_assertion_type", clientAssertionType)
	form.Set("client_assertion", assertion)
	return clientInfo{id: f.cfg.ClientID, auth: AuthNone}, nil
}

// exchangeIDToken trades the user's ID token at the identity provider for
// an ID-JAG (RFC 8693; Identity Assertion JWT Authorization Grant) whose
// audience is the MCP server's authorization server and whose resource is
// the MCP server.
func (f *Flow) exchangeIDToken(ctx context.Context, audience, resource string, scopes []string) (string, error) {
	p := f.cfg.IdP
	form := url.Values{
		"grant_type":           {grantTypeExchange},
		"requested_token_type": {tokenTypeIDJAG},
		"subject_token":        {p.IDToken},
		"subject_token_type":   {tokenTypeIDToken},
		"audience":             {audience},
		"resource":             {resource},
	}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	// A public client at the IdP sends its client_id alone, else
	// client_secret_basic.
	cl := clientInfo{id: p.ClientID, secret: p.ClientSecret, auth: AuthBasic}
	doing := "exchanging the ID token for an ID-JAG with the identity provider"
	tok, err := f.requestToken(ctx, f.noRedirect, p.TokenEndpoint, cl, form, doing, idpHint, p.IDToken)
	if err != nil {
		return "", err
	}
	issued, _ := tok.Extra("issued_token_type").(string)
	if issued != "" && issued != tokenTypeIDJAG {
		return "", errs.Errorf(errs.Protocol, "oauth", "%s at %s: the identity provider issued a %q, not an ID-JAG; check that it supports Cross App Access", doing, p.TokenEndpoint, sanitize(issued))
	}
	return tok.AccessToken, nil
}

// idpHint is the advice for the identity provider's refusal.
func idpHint(code string) string {
	switch code {
	case "invalid_grant":
		return "the ID token may have expired: sign in to the identity provider again"
	case "invalid_client", "unauthorized_client":
		return "check oauth.idp.client_id and client_secret"
	}
	return ""
}
