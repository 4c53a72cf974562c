package oauth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/secret"
)

// MaxStepUps is how many step-up re-authorizations (403
// insufficient_scope) a caller should allow for one request before treating
// the refusal as final; the spec asks for "no more than a few". Authorize
// itself refuses a step-up that would ask for no new scope.
const MaxStepUps = 2

// Token endpoint client authentication methods (Credential.TokenAuth).
const (
	AuthBasic = "client_secret_basic"
	AuthPost  = "client_secret_post"
	AuthNone  = "none"
)

const offlineAccess = "offline_access"

// Flow authorizes luagent with one MCP server. It is safe for concurrent
// use, but each Authorize may open a browser: callers serialize per server.
type Flow struct {
	cfg        Config
	server     *url.URL // ServerURL without query and fragment
	resource   string   // CanonicalResource(ServerURL)
	http       *http.Client
	noRedirect *http.Client
	tokenHTTP  *http.Client // noRedirect, with DPoP proofs when dpop is set
	dpop       *DPoP        // Config.DPoP
}

// New returns a Flow for cfg after validating it.
func New(cfg Config) (*Flow, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	res, _ := CanonicalResource(cfg.ServerURL)
	su, _ := url.Parse(cfg.ServerURL)
	su.RawQuery, su.Fragment, su.User = "", "", nil
	f := &Flow{cfg: cfg, server: su, resource: res}
	f.http = cfg.HTTPClient
	if f.http == nil {
		f.http = &http.Client{Timeout: 30 * time.Second}
	}
	nr := *f.http
	nr.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	f.noRedirect = &nr
	if f.cfg.ClientName == "" {
		f.cfg.ClientName = "luagent"
	}
	if f.cfg.Now == nil {
		f.cfg.Now = time.Now
	}
	if f.cfg.BrowseTimeout <= 0 {
		f.cfg.BrowseTimeout = 10 * time.Minute
	}
	if cfg.DPoP {
		d, err := NewDPoP(f.cfg.Now)
		if err != nil {
			return nil, err
		}
		f.dpop = d
	}
	f.tokenHTTP = f.noRedirect
	if f.dpop != nil {
		tc := *f.noRedirect
		tc.Transport = f.dpop.tokenRoundTripper(tc.Transport)
		f.tokenHTTP = &tc
	}
	return f, nil
}

// DPoP is the flow's DPoP key (Config.DPoP), or nil.
func (f *Flow) DPoP() *DPoP { return f.dpop }

// loginHint is the one thing to do when stored authorization is gone.
func (f *Flow) loginHint() string {
	return "run `luagent mcp login " + secret.URL(f.cfg.ServerURL) + "` to authorize again"
}

// Authorize runs the authorization code flow after the server refused a
// request: 401 (no or a bad token) or 403 with error="insufficient_scope"
// (step-up). ch is the refusal's challenge (ParseChallenge; the zero value
// when there was none); prev is the credential the refused request used, or
// nil. prev's client registration and granted scopes are reused only with
// the same authorization server and resource (credentials are bound to
// both); see selectScopes for the scopes asked for.
//
// Steps: protected-resource metadata (challenge URL, else the well-known
// URLs; its resource must match the server), authorization-server metadata
// (RFC 8414 then OIDC, exact issuer; PKCE S256 required), client (pre-
// registered, Client ID Metadata Document, the previous registration, or
// dynamic registration), the browser step with PKCE, state, scope and
// resource, the RFC 9207 iss check, and the code exchange. With an
// unattended Config.Grant, discovery is followed by that grant instead
// (authorizeGrant).
func (f *Flow) Authorize(ctx context.Context, ch Challenge, prev *Credential) (*Credential, error) {
	prm, from, err := f.discoverResource(ctx, ch)
	if err != nil {
		return nil, err
	}
	var issuer, resource string
	if prm != nil {
		if err := f.checkResource(prm, from); err != nil {
			return nil, err
		}
		resource = prm.Resource // exactly as published
		var bound string
		if prev != nil {
			bound = prev.Issuer
		}
		issuer = chooseServer(prm.AuthorizationServers, f.cfg.ClientIssuer, bound)
	} else {
		// No protected-resource metadata (2025-03-26 servers): the
		// server's origin is its own authorization server.
		resource = f.resource
		issuer = f.server.Scheme + "://" + f.server.Host
	}
	meta, err := f.discoverServer(ctx, issuer, prm == nil)
	if err != nil {
		return nil, err
	}
	if f.cfg.ClientIssuer != "" && f.cfg.ClientID != "" && f.cfg.ClientIssuer != meta.Issuer {
		return nil, errs.Errorf(errs.Auth, "oauth", "the configured client %q is registered with %s, but %s now uses %s; register a client there and update oauth.clientId", f.cfg.ClientID, f.cfg.ClientIssuer, f.cfg.ServerURL, meta.Issuer)
	}
	if prev != nil && (prev.Issuer != meta.Issuer || prev.Resource != resource) {
		prev = nil // another authorization server's or resource's credential: never reused
	}
	var prm0 []string
	if prm != nil {
		prm0 = prm.ScopesSupported
	}
	scopes, err := f.selectScopes(ch, prm0, meta, prev)
	if err != nil {
		return nil, err
	}

	if f.cfg.unattended() {
		return f.authorizeGrant(ctx, meta, resource, scopes)
	}

	verifier, state := oauth2.GenerateVerifier(), randomString()
	redirect, wait, stop, err := f.browser(state)
	if err != nil {
		return nil, err
	}
	defer stop()

	cl, err := f.client(ctx, meta, prev, redirect)
	if err != nil {
		return nil, err
	}

	// The authorization request: response_type=code, client_id,
	// redirect_uri, scope (omitted when empty), state, PKCE S256 and the
	// RFC 8707 resource.
	conf := codeConfig(meta, cl, redirect, scopes)
	opts := []oauth2.AuthCodeOption{oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", resource)}
	if slices.Contains(scopes, offlineAccess) {
		opts = append(opts, oauth2.SetAuthURLParam("prompt", "consent")) // OIDC asks for consent to offline access
	}
	callback, err := wait(ctx, conf.AuthCodeURL(state, opts...))
	if err != nil {
		return nil, err
	}
	code, err := checkCallback(callback, state, meta)
	if err != nil {
		return nil, err
	}

	tok, err := f.exchangeCode(ctx, conf, cl, code, verifier, resource)
	if err != nil {
		return nil, err
	}
	cred := &Credential{
		Issuer:        meta.Issuer,
		ClientID:      cl.id,
		ClientSecret:  cl.secret,
		TokenEndpoint: meta.TokenEndpoint,
		TokenAuth:     cl.auth,
		Scope:         strings.Join(scopes, " "),
		Resource:      resource,
	}
	if err := f.keepToken(cred, tok, meta.TokenEndpoint, "exchanging the authorization code"); err != nil {
		return nil, err
	}
	return cred, nil
}

// Refresh exchanges cred's refresh token for new tokens at the token
// endpoint it was issued by (with the resource and the same client
// authentication) and returns the updated credential; a rotated refresh
// token replaces the old one. cred is not modified.
func (f *Flow) Refresh(ctx context.Context, cred *Credential) (*Credential, error) {
	if cred == nil || cred.RefreshToken == "" {
		return nil, errs.New(errs.Auth, "oauth", "no refresh token is stored for "+secret.URL(f.cfg.ServerURL)+"; "+f.loginHint())
	}
	u, err := url.Parse(cred.TokenEndpoint)
	if err != nil || u.Host == "" {
		return nil, errs.New(errs.Auth, "oauth", "the stored credential for "+secret.URL(f.cfg.ServerURL)+" has no valid token endpoint; "+f.loginHint())
	}
	if !secureURL(u) {
		return nil, errs.Errorf(errs.Auth, "oauth", "the stored token endpoint %s is not HTTPS; refusing to send the refresh token over plain HTTP: %s", cred.TokenEndpoint, f.loginHint())
	}
	form := url.Values{
		"grant_type":    {"refresh_token"},
		"refresh_token": {cred.RefreshToken},
	}
	if cred.Resource != "" {
		form.Set("resource", cred.Resource)
	}
	cl := clientInfo{id: cred.ClientID, secret: cred.ClientSecret, auth: cred.TokenAuth}
	if cl.auth == "" {
		cl.auth = pickAuth(cl.secret != "", nil)
	}
	const doing = "refreshing the access token"
	tok, err := f.requestToken(ctx, f.tokenHTTP, cred.TokenEndpoint, cl, form, doing, clientHint, cred.AccessToken)
	if err != nil {
		var e *errs.Error
		if errors.As(err, &e) && e.Kind == errs.Auth {
			e.Msg += "; " + f.loginHint()
		}
		return nil, err
	}
	out := *cred
	if err := f.keepToken(&out, tok, cred.TokenEndpoint, doing); err != nil {
		return nil, err
	}
	return &out, nil
}

// selectScopes applies the scope rule: the first nonempty of the
// challenge's scopes, the resource metadata's scopes_supported (the spec's
// order) and the configured ones (Config.Scopes: oauth.scopes, used only
// when the server names none); then the scopes prev was granted (Authorize
// reuses prev only for the same issuer and resource) and Config.ExtraScopes
// (--scope), which always add; without duplicates, in that order, and
// nothing when all are empty (the parameter is omitted). offline_access is
// asked for only when the authorization server lists it in
// scopes_supported (last, and not alone). A step-up that would ask for
// nothing new is refused, so a server that keeps answering
// insufficient_scope cannot loop the client.
func (f *Flow) selectScopes(ch Challenge, supported []string, meta *serverMetadata, prev *Credential) ([]string, error) {
	req := ch.Scopes()
	if len(req) == 0 {
		req = supported
	}
	if len(req) == 0 {
		req = f.cfg.Scopes
	}
	var had []string
	if prev != nil {
		had = strings.Fields(prev.Scope)
	}
	req = slices.DeleteFunc(union(union(req, had), f.cfg.ExtraScopes), func(s string) bool { return s == offlineAccess })
	if prev != nil && ch.InsufficientScope() && !slices.ContainsFunc(req, func(s string) bool { return !slices.Contains(had, s) }) {
		what := "no scope"
		if ch.Scope != "" {
			what = "scope " + strings.Join(ch.Scopes(), " ") + ", which the token already has"
		}
		return nil, errs.Errorf(errs.Auth, "oauth", "%s refused the token for insufficient scope but asks for %s; not re-authorizing (the account may lack the permission: check it with the server's operator)", f.cfg.ServerURL, what)
	}
	if len(req) > 0 && slices.Contains(meta.ScopesSupported, offlineAccess) {
		req = append(req, offlineAccess)
	}
	return req, nil
}

// union returns a followed by the elements of b not in a, without
// duplicates, in order.
func union(a, b []string) []string {
	var out []string
	for _, s := range append(slices.Clip(a), b...) {
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// checkCallback validates the authorization response before its code is
// used: the state must be the one sent; then RFC 9207 iss (MCP
// "Authorization Response Validation"): advertised and present → exact
// compare; advertised and absent → reject; not advertised and present →
// exact compare; neither → proceed. No normalization. Only after both
// checks is an error response acted on.
func checkCallback(callback, state string, meta *serverMetadata) (string, error) {
	u, err := url.Parse(callback)
	if err != nil {
		return "", errs.New(errs.Auth, "oauth", "the authorization response (redirect) is not a valid URL; run the login again")
	}
	q := u.Query()
	if got := q.Get("state"); got == "" || got != state {
		return "", errs.New(errs.Auth, "oauth", "the authorization response's state does not match the request; discarded it (a stale or forged redirect): run the login again")
	}
	iss, hasIss := q["iss"]
	switch {
	case hasIss && (len(iss) != 1 || iss[0] != meta.Issuer):
		return "", errs.Errorf(errs.Auth, "oauth", "the authorization response came from issuer %q, not %q; refusing it (RFC 9207: a mix-up attack or a misconfigured server)", strings.Join(iss, ","), meta.Issuer)
	case !hasIss && meta.IssParameterSupported:
		return "", errs.Errorf(errs.Auth, "oauth", "the authorization response lacks the iss parameter that %s advertises; refusing it (RFC 9207): run the login again or report it to the server's operator", meta.Issuer)
	}
	if e := q.Get("error"); e != "" {
		msg := "authorization server " + meta.Issuer + " refused the authorization: " + sanitize(e)
		if d := q.Get("error_description"); d != "" {
			msg += " (" + sanitize(d) + ")"
		}
		return "", errs.New(errs.Auth, "oauth", msg+"; run the login again to retry")
	}
	code := q.Get("code")
	if code == "" {
		return "", errs.New(errs.Auth, "oauth", "the authorization response has no code; run the login again")
	}
	return code, nil
}

// randomString returns 32 random bytes, base64url without padding (43
// characters: a state or a JWT ID).
func randomString() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// netError classifies a failed request: the caller's cancellation or
// deadline keeps its kind; anything else is an authorization failure.
func (f *Flow) netError(ctx context.Context, doing string, err error) error {
	switch {
	case errors.Is(ctx.Err(), context.Canceled):
		return errs.Wrap(errs.Cancelled, "oauth", errors.New(doing+": cancelled"))
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return errs.Wrap(errs.Timeout, "oauth", errors.New(doing+": timed out; try again"))
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // the URL is already named
	}
	return errs.Errorf(errs.Auth, "oauth", "%s failed: %v; check the network and try again", doing, err)
}
