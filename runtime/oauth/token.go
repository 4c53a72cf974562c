package oauth

import (
	"context"
	"encoding/base64"
	"errors"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/secret"
)

// Token endpoint requests are golang.org/x/oauth2's: the authorization
// code exchange with PKCE is oauth2.Config.Exchange; every other grant
// (client credentials, refresh_token, jwt-bearer, token exchange) is a
// clientcredentials.Config request with grant_type set in EndpointParams,
// which x/oauth2 allows for exactly this. (Its own refresh,
// Config.TokenSource, cannot send the RFC 8707 resource MCP requires on
// every token request.) x/oauth2 keeps the old refresh token when a
// refresh answer has none. Requests go through the flow's token client
// (f.tokenHTTP: no redirects, DPoP proofs and nonce retry) as the
// oauth2.HTTPClient context value. What x/oauth2 lacks stays here:
// choosing the client authentication from the metadata, mapping its
// errors to errs without secrets, and the token type check.

// authStyle is how cl authenticates at the token endpoint in x/oauth2's
// terms, chosen explicitly (never x/oauth2's auto-detection, which resends
// a refused request the other way), and the secret to send:
// client_secret_basic is the Basic header (RFC 6749 §2.3.1: id and secret
// form-encoded first), client_secret_post the body, and none (or no secret,
// or a method luagent does not implement) client_id alone in the body.
func (cl clientInfo) authStyle() (oauth2.AuthStyle, string) {
	if cl.secret != "" {
		switch cl.auth {
		case AuthBasic:
			return oauth2.AuthStyleInHeader, cl.secret
		case AuthPost:
			return oauth2.AuthStyleInParams, cl.secret
		}
	}
	return oauth2.AuthStyleInParams, ""
}

// secrets are the client credentials as they go out (the secret and, for
// client_secret_basic, the header value), to redact from server text.
func (cl clientInfo) secrets() []string {
	style, secret := cl.authStyle()
	if style != oauth2.AuthStyleInHeader {
		return []string{secret}
	}
	return []string{secret, base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(cl.id) + ":" + url.QueryEscape(secret)))}
}

// codeConfig is the x/oauth2 configuration of the authorization code flow
// for client cl at the authorization server.
func codeConfig(meta *serverMetadata, cl clientInfo, redirect string, scopes []string) *oauth2.Config {
	style, secret := cl.authStyle()
	return &oauth2.Config{
		ClientID:     cl.id,
		ClientSecret: secret,
		Endpoint:     oauth2.Endpoint{AuthURL: meta.AuthorizationEndpoint, TokenURL: meta.TokenEndpoint, AuthStyle: style},
		RedirectURL:  redirect,
		Scopes:       scopes,
	}
}

// exchangeCode trades the authorization code for tokens (RFC 6749 §4.1.3)
// with the PKCE verifier and the resource.
func (f *Flow) exchangeCode(ctx context.Context, conf *oauth2.Config, cl clientInfo, code, verifier, resource string) (*oauth2.Token, error) {
	tok, err := conf.Exchange(context.WithValue(ctx, oauth2.HTTPClient, f.tokenHTTP), code,
		oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", resource))
	if err != nil {
		return nil, f.tokenError(ctx, err, conf.Endpoint.TokenURL, "exchanging the authorization code", clientHint, append(cl.secrets(), code, verifier))
	}
	return tok, nil
}

// requestToken sends any other token request through hc: params hold
// grant_type and the grant's parameters; cl authenticates. doing names the
// step for errors; secrets are values besides the request's own that must
// never appear in one. hint adds advice for an error code.
func (f *Flow) requestToken(ctx context.Context, hc *http.Client, endpoint string, cl clientInfo, params url.Values, doing string, hint func(code string) string, secrets ...string) (*oauth2.Token, error) {
	style, secret := cl.authStyle()
	conf := clientcredentials.Config{ClientID: cl.id, ClientSecret: secret, TokenURL: endpoint, EndpointParams: params, AuthStyle: style}
	tok, err := conf.Token(context.WithValue(ctx, oauth2.HTTPClient, hc))
	if err != nil {
		for _, k := range []string{"refresh_token", "assertion", "client_assertion", "subject_token"} {
			secrets = append(secrets, params.Get(k))
		}
		return nil, f.tokenError(ctx, err, endpoint, doing, hint, append(secrets, cl.secrets()...))
	}
	return tok, nil
}

// clientHint is the advice for an authorization server's refusal of the
// client.
func clientHint(code string) string {
	if code == "invalid_client" || code == "unauthorized_client" {
		return "the client is not accepted: check oauth.clientId/clientSecret"
	}
	return ""
}

// tokenError maps an x/oauth2 error: the server's refusal
// (*oauth2.RetrieveError) is kind auth with its HTTP status, error and
// error_description (secrets redacted: a hostile server may echo them;
// never its raw body); a failed request is netError's; anything else is an
// answer that is not a token response.
func (f *Flow) tokenError(ctx context.Context, err error, endpoint, doing string, hint func(string) string, secrets []string) error {
	var re *oauth2.RetrieveError
	var ue *url.Error
	switch {
	case errors.As(err, &re):
		msg := doing + " at " + secret.URL(endpoint) + " failed (HTTP " + strconv.Itoa(re.Response.StatusCode)
		if re.ErrorCode != "" {
			msg += ": " + sanitize(redact(re.ErrorCode, secrets))
			if re.ErrorDescription != "" {
				msg += ", " + sanitize(redact(re.ErrorDescription, secrets))
			}
		}
		msg += ")"
		if h := hint(re.ErrorCode); h != "" {
			msg += "; " + h
		}
		return errs.New(errs.Auth, "oauth", msg)
	case errors.As(err, &ue), ctx.Err() != nil:
		return f.netError(ctx, doing+" at "+secret.URL(endpoint), err)
	}
	return errs.Errorf(errs.Protocol, "oauth", "%s at %s: the answer is not a token response (no access_token); report it to the server's operator", doing, secret.URL(endpoint))
}

// keepToken checks the token type of an authorization server's answer and
// puts the tokens in c: the access token, the refresh token (x/oauth2 has
// kept the old one if a refresh answer had none), the granted scope when
// the answer names one, and the expiry (0 when unknown). A DPoP-bound
// token is remembered as bound; one the flow did not ask for, or a type
// luagent cannot present, is refused.
func (f *Flow) keepToken(c *Credential, tok *oauth2.Token, endpoint, doing string) error {
	switch tt := tok.TokenType; {
	case f.dpop != nil && strings.EqualFold(tt, "DPoP"):
		f.dpop.bind(tok.AccessToken)
	case strings.EqualFold(tt, "DPoP"):
		return errs.Errorf(errs.Protocol, "oauth", "%s at %s: the server issued a DPoP-bound token unasked; luagent sends Bearer tokens unless oauth.dpop = true", doing, endpoint)
	case tt != "" && !strings.EqualFold(tt, "bearer"):
		return errs.Errorf(errs.Protocol, "oauth", "%s at %s: the server issued a %q token; luagent sends only Bearer and DPoP tokens", doing, endpoint, sanitize(tt))
	}
	c.AccessToken, c.RefreshToken = tok.AccessToken, tok.RefreshToken
	if s, ok := tok.Extra("scope").(string); ok && s != "" {
		c.Scope = s
	}
	c.ExpiresAt = 0
	if n := expiresIn(tok); n > 0 {
		c.ExpiresAt = f.cfg.Now().Unix() + n
	}
	return nil
}

// expiresIn is the token's lifetime in seconds (0 unknown): expires_in as
// x/oauth2 read it, or the time to its Expiry (form-encoded answers and
// clientcredentials give only that).
func expiresIn(tok *oauth2.Token) int64 {
	if tok.ExpiresIn > 0 {
		return tok.ExpiresIn
	}
	if tok.Expiry.IsZero() {
		return 0
	}
	return int64(math.Round(time.Until(tok.Expiry).Seconds()))
}
