package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/errs"
)

func newFlow(t *testing.T, m *mock, mod func(*Config)) *Flow {
	t.Helper()
	cfg := Config{ServerURL: m.serverURL(), Browse: fetchLocation}
	if mod != nil {
		mod(&cfg)
	}
	f, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return f
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

// noSecrets fails when err's text holds a code, token, secret or verifier.
func noSecrets(t *testing.T, m *mock, err error, extra ...string) {
	t.Helper()
	m.mu.Lock()
	all := append(slices.Clone(m.secrets), extra...)
	m.mu.Unlock()
	for _, s := range all {
		if s != "" && strings.Contains(err.Error(), s) {
			t.Errorf("error leaks a secret %q: %v", s, err)
		}
	}
}

// wantErr checks err has kind k, names the problem (every want substring,
// case-insensitive) and carries no secret.
func wantErr(t *testing.T, m *mock, err error, k errs.Kind, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want kind %v with %q", k, want)
	}
	if errs.KindOf(err) != k {
		t.Errorf("kind %v, want %v: %v", errs.KindOf(err), k, err)
	}
	for _, w := range want {
		if !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(w)) {
			t.Errorf("error %q does not mention %q", err, w)
		}
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("error is not one line: %q", err)
	}
	if m != nil {
		noSecrets(t, m, err)
	}
}

// wantFlow checks a completed authorization: the authorization request
// (code flow, PKCE S256, state, resource) and the token request (same
// resource and redirect_uri, the verifier the mock checked against the
// challenge) and the credential.
func wantFlow(t *testing.T, m *mock, cred *Credential, resource string) {
	t.Helper()
	q := m.lastAuth()
	for k, v := range map[string]string{"response_type": "code", "code_challenge_method": "S256", "resource": resource} {
		if q.Get(k) != v {
			t.Errorf("authorization request %s=%q, want %q", k, q.Get(k), v)
		}
	}
	if len(q.Get("code_challenge")) != 43 || len(q.Get("state")) < 43 {
		t.Errorf("authorization request code_challenge %q state %q: want 43-character base64url values", q.Get("code_challenge"), q.Get("state"))
	}
	form, _ := m.lastToken()
	for k, v := range map[string]string{"grant_type": "authorization_code", "resource": resource, "redirect_uri": q.Get("redirect_uri")} {
		if form.Get(k) != v {
			t.Errorf("token request %s=%q, want %q", k, form.Get(k), v)
		}
	}
	if v := form.Get("code_verifier"); len(v) < 43 || s256(v) != q.Get("code_challenge") {
		t.Errorf("code_verifier %q does not match code_challenge %q", v, q.Get("code_challenge"))
	}
	if cred == nil {
		t.Fatal("no credential")
	}
	if cred.Issuer != m.issuer() || cred.Resource != resource || !strings.HasPrefix(cred.AccessToken, "at-") || cred.TokenEndpoint != m.issuer()+"/token" {
		t.Errorf("credential %+v (token %q): want issuer %s, resource %s, a mock token", cred, cred.AccessToken, m.issuer(), resource)
	}
	if cred.ExpiresAt == 0 {
		t.Error("credential has no expiry though expires_in was given")
	}
}

func TestPKCEVector(t *testing.T) {
	// RFC 7636 Appendix B (the mock's check).
	if got := s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"); got != "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM" {
		t.Fatalf("S256 challenge %q", got)
	}
	a, b := randomString(), randomString()
	if a == b || len(a) != 43 || strings.ContainsAny(a, "+/=") {
		t.Fatalf("random strings %q %q: want distinct 43-character base64url", a, b)
	}
}

// TestDiscovery covers the metadata-* scenarios: where the protected
// resource metadata and the authorization server metadata are, and the
// order in which the client looks.
func TestDiscovery(t *testing.T) {
	tests := []struct {
		name     string
		o        mockOpts
		inHeader bool
		want     []string // requests that must happen, in order
		never    []string // requests that must not happen
	}{
		{"metadata-default", mockOpts{}, true,
			[]string{"RS GET /.well-known/oauth-protected-resource/mcp", "AS GET /.well-known/oauth-authorization-server", "AS POST /register", "AS GET /authorize", "AS POST /token"},
			[]string{"RS GET /.well-known/oauth-protected-resource", "AS GET /.well-known/openid-configuration"}},
		{"metadata-var1 (no header, OIDC)", mockOpts{asMetaAt: "oidc-insert"}, false,
			[]string{"RS GET /.well-known/oauth-protected-resource/mcp", "AS GET /.well-known/oauth-authorization-server", "AS GET /.well-known/openid-configuration", "AS POST /token"},
			[]string{"RS GET /.well-known/oauth-protected-resource"}},
		{"metadata-var2 (root PRM, issuer path)", mockOpts{prmAt: "root", asPath: "/tenant1"}, false,
			[]string{"RS GET /.well-known/oauth-protected-resource/mcp", "RS GET /.well-known/oauth-protected-resource", "AS GET /.well-known/oauth-authorization-server/tenant1", "AS POST /tenant1/token"},
			[]string{"AS GET /.well-known/oauth-authorization-server"}},
		{"metadata-var3 (custom PRM, OIDC append)", mockOpts{prmAt: "custom", asPath: "/tenant1", asMetaAt: "oidc-append"}, true,
			[]string{"RS GET /custom/metadata/location.json", "AS GET /.well-known/oauth-authorization-server/tenant1", "AS GET /.well-known/openid-configuration/tenant1", "AS GET /tenant1/.well-known/openid-configuration", "AS POST /tenant1/token"},
			[]string{"RS GET /.well-known/oauth-protected-resource/mcp", "AS GET /.well-known/oauth-authorization-server"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMock(t, tt.o)
			f := newFlow(t, m, nil)
			cred, err := f.Authorize(ctx(t), m.header("", "", tt.inHeader), nil)
			if err != nil {
				t.Fatalf("Authorize: %v", err)
			}
			res := m.serverURL()
			if tt.o.prmAt == "root" {
				res = m.rs.URL // exactly as published
			}
			wantFlow(t, m, cred, res)
			m.mu.Lock()
			log := slices.Clone(m.log)
			m.mu.Unlock()
			i := 0
			for _, l := range log {
				if i < len(tt.want) && l == tt.want[i] {
					i++
				}
			}
			if i < len(tt.want) {
				t.Errorf("request %q missing or out of order in %q", tt.want[i], log)
			}
			for _, n := range tt.never {
				if slices.Contains(log, n) {
					t.Errorf("request %q should not happen: %q", n, log)
				}
			}
		})
	}
}

// TestRefusals covers every negative case: each refuses with an error of
// the right kind that names the problem, before the step it guards.
func TestRefusals(t *testing.T) {
	tests := []struct {
		name   string
		o      mockOpts
		kind   errs.Kind
		want   []string
		before string // this request must not have been made
	}{
		{"resource-mismatch", mockOpts{prmResource: "https://evil.example.com/mcp"}, errs.Auth, []string{"evil.example.com", "refusing"}, "AS GET"},
		{"resource on another port", mockOpts{prmResource: "http://127.0.0.1:1/mcp"}, errs.Auth, []string{"not http"}, "AS GET"},
		{"resource a sibling path", mockOpts{prmResource: "SERVER/mcp-other"}, errs.Auth, []string{"mcp-other"}, "AS GET"},
		{"metadata-issuer-mismatch", mockOpts{metaIssuer: "https://attacker.example.com"}, errs.Auth, []string{"attacker.example.com", "issuer"}, "AS POST /register"},
		{"PKCE not advertised", mockOpts{noPKCE: true}, errs.Auth, []string{"does not advertise PKCE"}, "AS GET /authorize"},
		{"PKCE without S256", mockOpts{pkce: []string{"plain"}}, errs.Auth, []string{"S256"}, "AS GET /authorize"},
		{"iss-supported-missing", mockOpts{issMode: "omit"}, errs.Auth, []string{"lacks the iss"}, "AS POST /token"},
		{"iss-wrong-issuer", mockOpts{issMode: "wrong"}, errs.Auth, []string{"evil.example.com", "RFC 9207"}, "AS POST /token"},
		{"iss-unexpected", mockOpts{issAdv: "omit", issMode: "wrong"}, errs.Auth, []string{"evil.example.com"}, "AS POST /token"},
		{"iss-unexpected (advertised false)", mockOpts{issAdv: "false", issMode: "wrong"}, errs.Auth, []string{"evil.example.com"}, "AS POST /token"},
		{"iss-normalized", mockOpts{issMode: "normalized"}, errs.Auth, []string{"issuer"}, "AS POST /token"},
		{"no way to register", mockOpts{noDCR: true}, errs.Auth, []string{"no way", "oauth.clientId"}, "AS GET /authorize"},
		{"authorization refused", mockOpts{authError: "access_denied"}, errs.Auth, []string{"access_denied", "user said no"}, "AS POST /token"},
		{"refused and wrong iss", mockOpts{authError: "access_denied", issMode: "wrong"}, errs.Auth, []string{"evil.example.com"}, "AS POST /token"},
		{"token type not Bearer", mockOpts{tokenType: "DPoP"}, errs.Protocol, []string{"DPoP", "Bearer"}, ""},
		{"token endpoint echoes secrets", mockOpts{echoCode: true, methods: []string{AuthPost}, regMethod: AuthPost, regSecret: true}, errs.Auth, []string{"invalid_grant", "[redacted]"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMock(t, tt.o)
			if strings.HasPrefix(tt.o.prmResource, "SERVER") {
				m.o.prmResource = m.rs.URL + strings.TrimPrefix(tt.o.prmResource, "SERVER")
			}
			f := newFlow(t, m, nil)
			cred, err := f.Authorize(ctx(t), m.header("", "", true), nil)
			if cred != nil {
				t.Errorf("got a credential: %v", cred)
			}
			wantErr(t, m, err, tt.kind, tt.want...)
			if tt.before != "" && m.count(tt.before) > 0 {
				t.Errorf("%s was made despite the refusal", tt.before)
			}
			if tt.name == "refused and wrong iss" && strings.Contains(err.Error(), "access_denied") {
				t.Errorf("an error from a mismatched issuer was acted on: %v", err)
			}
		})
	}
}

// TestIssAccepted covers the accepting rows of the RFC 9207 table.
func TestIssAccepted(t *testing.T) {
	for _, o := range []mockOpts{
		{issAdv: "true", issMode: "correct"}, // iss-supported
		{issAdv: "omit", issMode: "omit"},    // iss-not-advertised
		{issAdv: "false", issMode: "omit"},
		{issAdv: "omit", issMode: "correct"}, // present though not advertised: compared, equal
	} {
		t.Run(o.issAdv+"/"+o.issMode, func(t *testing.T) {
			m := newMock(t, o)
			cred, err := newFlow(t, m, nil).Authorize(ctx(t), m.header("", "", true), nil)
			if err != nil {
				t.Fatal(err)
			}
			wantFlow(t, m, cred, m.serverURL())
		})
	}
}

func TestState(t *testing.T) {
	for name, tamper := range map[string]func(url.Values){
		"changed": func(q url.Values) { q.Set("state", "forged") },
		"missing": func(q url.Values) { q.Del("state") },
	} {
		t.Run(name, func(t *testing.T) {
			m := newMock(t, mockOpts{})
			f := newFlow(t, m, func(c *Config) {
				c.Browse = func(ctx context.Context, authURL string) (string, error) {
					loc, err := fetchLocation(ctx, authURL)
					u, _ := url.Parse(loc)
					q := u.Query()
					tamper(q)
					u.RawQuery = q.Encode()
					return u.String(), err
				}
			})
			_, err := f.Authorize(ctx(t), m.header("", "", true), nil)
			wantErr(t, m, err, errs.Auth, "state")
			if m.count("AS POST /token") > 0 {
				t.Error("the code was redeemed despite a bad state")
			}
		})
	}
}

// TestScopes covers the scope rule: the first nonempty of the challenge's
// scopes and scopes_supported, then the scopes granted before (same issuer
// and resource), then the configured ones (oauth.scopes, --scope), which
// add and never replace; no duplicates, in that order; offline_access only
// when the authorization server advertises it.
func TestScopes(t *testing.T) {
	// The seed's rule: the first nonempty of the challenge's scope, the
	// resource metadata's scopes_supported and the configured oauth.scopes;
	// then the union with the scopes granted before (same issuer and
	// resource) and --scope.
	tests := []struct {
		name       string
		o          mockOpts
		challenge  string // scope in the challenge
		errCode    string
		configured []string // oauth.scopes
		prevScope  string
		extra      []string // --scope
		want       string   // the authorization request's scope ("" omitted)
	}{
		{"scope-from-www-authenticate", mockOpts{prmScopes: []string{"mcp:profile"}}, "mcp:basic", "", nil, "", nil, "mcp:basic"},
		{"scope-from-scopes-supported", mockOpts{prmScopes: []string{"mcp:basic", "mcp:read", "mcp:write"}}, "", "", nil, "", nil, "mcp:basic mcp:read mcp:write"},
		{"scope-omitted-when-undefined", mockOpts{}, "", "", nil, "", nil, ""},
		{"configured alone", mockOpts{}, "", "", []string{"c"}, "", nil, "c"},
		{"configured not added to the challenge", mockOpts{prmScopes: []string{"p"}}, "mcp:basic", "", []string{"extra"}, "", nil, "mcp:basic"},
		{"configured not added to scopes_supported", mockOpts{prmScopes: []string{"a", "b"}}, "", "", []string{"c"}, "", nil, "a b"},
		{"--scope adds to the challenge", mockOpts{}, "mcp:basic", "", []string{"ignored"}, "", []string{"x"}, "mcp:basic x"},
		{"--scope adds to configured", mockOpts{}, "", "", []string{"c"}, "", []string{"x", "c"}, "c x"},
		{"--scope alone", mockOpts{}, "", "", nil, "", []string{"x"}, "x"},
		{"offline-access-scope", mockOpts{prmScopes: []string{"mcp:basic"}, asScopes: []string{"mcp:basic", "offline_access"}}, "", "", nil, "", nil, "mcp:basic offline_access"},
		{"offline-access-not-supported", mockOpts{prmScopes: []string{"mcp:basic", "mcp:read"}, asScopes: []string{"mcp:basic", "mcp:read"}}, "", "", nil, "", nil, "mcp:basic mcp:read"},
		{"offline_access not alone", mockOpts{asScopes: []string{"offline_access"}}, "", "", nil, "", nil, ""},
		{"offline_access in the challenge, not advertised", mockOpts{}, "mcp:basic offline_access", "", nil, "", []string{"offline_access", "x"}, "mcp:basic x"},
		{"offline_access configured and advertised: once, last", mockOpts{asScopes: []string{"x", "offline_access"}}, "", "", []string{"offline_access", "y"}, "", nil, "y offline_access"},
		{"scope-step-up union", mockOpts{prmScopes: []string{"mcp:profile"}}, "mcp:write", "insufficient_scope", nil, "mcp:basic", nil, "mcp:write mcp:basic"},
		{"step-up drops stale offline_access", mockOpts{}, "mcp:write", "insufficient_scope", nil, "mcp:basic offline_access", nil, "mcp:write mcp:basic"},
		{"re-auth after 401 keeps scopes", mockOpts{}, "mcp:basic", "invalid_token", nil, "mcp:read", nil, "mcp:basic mcp:read"},
		{"scopes_supported, granted, then --scope", mockOpts{prmScopes: []string{"a", "b"}}, "", "", []string{"c"}, "d", []string{"e"}, "a b d e"},
		{"configured, granted, then --scope", mockOpts{}, "", "", []string{"c"}, "d", []string{"e"}, "c d e"},
		{"no duplicates, order kept", mockOpts{}, "a b a", "invalid_token", []string{"z"}, "b c", []string{"c", "a", "d"}, "a b c d"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMock(t, tt.o)
			f := newFlow(t, m, func(c *Config) { c.Scopes, c.ExtraScopes = tt.configured, tt.extra })
			var prev *Credential
			if tt.prevScope != "" {
				prev = &Credential{Issuer: m.issuer(), Resource: m.serverURL(), ClientID: "prev-client", TokenAuth: AuthNone, AccessToken: "old-SECRET", Scope: tt.prevScope}
			}
			cred, err := f.Authorize(ctx(t), m.header(tt.challenge, tt.errCode, true), prev)
			if err != nil {
				t.Fatal(err)
			}
			q := m.lastAuth()
			if _, has := q["scope"]; tt.want == "" && has {
				t.Errorf("scope parameter %q sent; want it omitted", q.Get("scope"))
			}
			if q.Get("scope") != tt.want {
				t.Errorf("requested scope %q, want %q", q.Get("scope"), tt.want)
			}
			if tt.want != "" && cred.Scope != tt.want {
				t.Errorf("credential scope %q, want %q", cred.Scope, tt.want)
			}
			if prev != nil && q.Get("client_id") != "prev-client" {
				t.Errorf("client_id %q: the previous registration at the same issuer was not reused", q.Get("client_id"))
			}
		})
	}
}

// TestChangedResource: a credential granted for another resource (the
// server's protected-resource metadata now names a different one), even at
// the same authorization server, lends neither its registration nor its
// granted scopes to the new authorization.
func TestChangedResource(t *testing.T) {
	m := newMock(t, mockOpts{prmScopes: []string{"mcp:basic"}})
	f := newFlow(t, m, nil)
	prev := &Credential{Issuer: m.issuer(), Resource: "https://old.example.com/mcp", ClientID: "old-resource-client", TokenAuth: AuthNone, AccessToken: "old-SECRET", Scope: "old:admin"}
	cred, err := f.Authorize(ctx(t), m.header("", "invalid_token", true), prev)
	if err != nil {
		t.Fatal(err)
	}
	wantFlow(t, m, cred, m.serverURL())
	q := m.lastAuth()
	if got := q.Get("client_id"); got == prev.ClientID || m.count("AS POST /register") != 1 {
		t.Errorf("client_id %q after %d registrations: the other resource's registration was reused", got, m.count("AS POST /register"))
	}
	if got := q.Get("scope"); got != "mcp:basic" {
		t.Errorf("requested scope %q, want %q: the other resource's granted scopes were added", got, "mcp:basic")
	}
	// The same resource (and issuer) reuses both.
	prev.Resource = m.serverURL()
	if _, err := f.Authorize(ctx(t), m.header("", "invalid_token", true), prev); err != nil {
		t.Fatal(err)
	}
	if q := m.lastAuth(); q.Get("client_id") != prev.ClientID || q.Get("scope") != "mcp:basic old:admin" {
		t.Errorf("same resource: client_id %q scope %q; want the previous registration and its granted scopes", q.Get("client_id"), q.Get("scope"))
	}
}

// TestStepUpBounded: a 403 that asks for scopes the token already has
// would loop; Authorize refuses without a browser step (scope-retry-limit).
func TestStepUpBounded(t *testing.T) {
	m := newMock(t, mockOpts{})
	f := newFlow(t, m, nil)
	cred, err := f.Authorize(ctx(t), m.header("mcp:admin", "", true), nil)
	if err != nil {
		t.Fatal(err)
	}
	attempts := 1
	for i := 0; i < 5; i++ {
		next, err := f.Authorize(ctx(t), m.header("mcp:admin", "insufficient_scope", true), cred)
		if err != nil {
			wantErr(t, m, err, errs.Auth, "insufficient scope", "mcp:admin")
			break
		}
		attempts++
		cred = next
	}
	if n := m.count("AS GET /authorize"); n != 1 || attempts != 1 {
		t.Errorf("%d authorization requests for a scope upgrade that cannot succeed; want 1", n)
	}
	// No scope in the 403 at all: nothing to ask for either.
	_, err = f.Authorize(ctx(t), m.header("", "insufficient_scope", true), cred)
	wantErr(t, m, err, errs.Auth, "no scope")
}

// TestRegistration covers the client order: pre-registered, Client ID
// Metadata Document, the previous registration (same issuer only), dynamic
// registration.
func TestRegistration(t *testing.T) {
	const cimdURL = "https://conformance-test.local/client-metadata.json"
	tests := []struct {
		name     string
		o        mockOpts
		cfg      func(*Config)
		prev     *Credential // Issuer "AS" is replaced by the mock's (and Resource)
		clientID string      // "" any dcr-client-*
		dcr      bool
	}{
		{"pre-registration", mockOpts{noDCR: true, methods: []string{AuthBasic}}, func(c *Config) { c.ClientID, c.ClientSecret = "pre-registered-client", "pre-registered-secret" }, nil, "pre-registered-client", false},
		{"pre-registered beats CIMD", mockOpts{cimd: true}, func(c *Config) { c.ClientID = "pre"; c.ClientIDMetadataURL = cimdURL }, nil, "pre", false},
		{"basic-cimd", mockOpts{cimd: true}, func(c *Config) { c.ClientIDMetadataURL = cimdURL }, nil, cimdURL, false},
		{"CIMD unsupported: DCR", mockOpts{}, func(c *Config) { c.ClientIDMetadataURL = cimdURL }, nil, "", true},
		{"previous registration reused", mockOpts{}, nil, &Credential{Issuer: "AS", ClientID: "earlier-dcr", TokenAuth: AuthNone}, "earlier-dcr", false},
		{"authorization-server-migration", mockOpts{}, nil, &Credential{Issuer: "https://old-as.example.com", ClientID: "as1-client-id-LEAKED-IF-SEEN", ClientSecret: "as1-secret", TokenAuth: AuthPost, AccessToken: "as1-token"}, "", true},
		{"dynamic registration", mockOpts{}, nil, nil, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMock(t, tt.o)
			f := newFlow(t, m, tt.cfg)
			if tt.prev != nil && tt.prev.Issuer == "AS" {
				tt.prev.Issuer, tt.prev.Resource = m.issuer(), m.serverURL()
			}
			cred, err := f.Authorize(ctx(t), m.header("", "", true), tt.prev)
			if err != nil {
				t.Fatal(err)
			}
			wantFlow(t, m, cred, m.serverURL())
			got := m.lastAuth().Get("client_id")
			if tt.clientID != "" && got != tt.clientID {
				t.Errorf("client_id %q, want %q", got, tt.clientID)
			}
			if tt.clientID == "" && !strings.HasPrefix(got, "dcr-client-") {
				t.Errorf("client_id %q, want a dynamically registered one", got)
			}
			if cred.ClientID != got {
				t.Errorf("credential client %q, authorized as %q", cred.ClientID, got)
			}
			if n := m.count("AS POST /register"); (n == 1) != tt.dcr {
				t.Errorf("%d registrations, want dynamic registration %v", n, tt.dcr)
			}
			if tt.name == "authorization-server-migration" {
				form, authz := m.lastToken()
				if strings.Contains(fmt.Sprint(m.authReqs, form, authz), "LEAKED") || strings.Contains(fmt.Sprint(form), "as1-secret") {
					t.Error("the previous authorization server's client was presented to the new one")
				}
				if cred.Issuer != m.issuer() {
					t.Errorf("credential bound to %q, want the new issuer", cred.Issuer)
				}
			}
			if tt.dcr {
				m.mu.Lock()
				reg := m.regs[0]
				m.mu.Unlock()
				if reg["application_type"] != "native" || reg["client_name"] != "luagent" || reg["token_endpoint_auth_method"] != "none" {
					t.Errorf("registration %v: want application_type native, client_name luagent, token_endpoint_auth_method none", reg)
				}
				if fmt.Sprint(reg["grant_types"]) != "[authorization_code refresh_token]" || fmt.Sprint(reg["redirect_uris"]) != "["+m.lastAuth().Get("redirect_uri")+"]" {
					t.Errorf("registration grant_types %v redirect_uris %v", reg["grant_types"], reg["redirect_uris"])
				}
			}
		})
	}
}

func TestClientIssuerBinding(t *testing.T) {
	m := newMock(t, mockOpts{})
	f := newFlow(t, m, func(c *Config) {
		c.ClientID, c.ClientSecret, c.ClientIssuer = "pre", "pre-SECRET", "https://other-as.example.com"
	})
	_, err := f.Authorize(ctx(t), m.header("", "", true), nil)
	wantErr(t, m, err, errs.Auth, "other-as.example.com", m.issuer())
	if m.count("AS GET /authorize") > 0 {
		t.Error("a client registered elsewhere was used")
	}
	if strings.Contains(err.Error(), "pre-SECRET") {
		t.Error("the client secret is in the error")
	}
	// The bound issuer is preferred when the resource lists several.
	m2 := newMock(t, mockOpts{})
	m2.o.prmServers = []string{"https://first.example.com", m2.issuer()}
	f2 := newFlow(t, m2, func(c *Config) { c.ClientID, c.ClientIssuer = "pre", m2.issuer() })
	if _, err := f2.Authorize(ctx(t), m2.header("", "", true), nil); err != nil {
		t.Fatal(err)
	}
}

// TestTokenEndpointAuth covers client_secret_basic, client_secret_post and
// none, from registration answers and from a pre-registered client.
func TestTokenEndpointAuth(t *testing.T) {
	tests := []struct {
		name string
		o    mockOpts
		cfg  func(*Config)
		want string
	}{
		{"token-endpoint-auth-basic", mockOpts{methods: []string{AuthBasic}, regMethod: AuthBasic, regSecret: true}, nil, AuthBasic},
		{"token-endpoint-auth-post", mockOpts{methods: []string{AuthPost}, regMethod: AuthPost, regSecret: true}, nil, AuthPost},
		{"token-endpoint-auth-none", mockOpts{methods: []string{AuthNone}, regMethod: AuthNone}, nil, AuthNone},
		{"registration silent, secret given, server takes none", mockOpts{regSecret: true}, nil, AuthNone},
		{"pre-registered post", mockOpts{methods: []string{AuthPost}}, func(c *Config) { c.ClientID, c.ClientSecret = "id:with&chars", "s3cr3t/+=" }, AuthPost},
		{"pre-registered basic (default)", mockOpts{methods: []string{}}, func(c *Config) { c.ClientID, c.ClientSecret = "id:with&chars", "s3cr3t/+=" }, AuthBasic},
		{"pre-registered public", mockOpts{}, func(c *Config) { c.ClientID = "public" }, AuthNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMock(t, tt.o)
			f := newFlow(t, m, tt.cfg)
			cred, err := f.Authorize(ctx(t), m.header("", "", true), nil)
			if err != nil {
				t.Fatal(err)
			}
			if cred.TokenAuth != tt.want {
				t.Errorf("credential TokenAuth %q, want %q", cred.TokenAuth, tt.want)
			}
			if tt.o.methods != nil && len(tt.o.methods) > 0 {
				m.mu.Lock()
				if len(m.regs) > 0 && m.regs[0]["token_endpoint_auth_method"] != tt.o.methods[0] {
					t.Errorf("registration asked for %v; the server supports only %v", m.regs[0]["token_endpoint_auth_method"], tt.o.methods)
				}
				m.mu.Unlock()
			}
			form, authz := m.lastToken()
			switch tt.want {
			case AuthBasic:
				id, secret, ok := basicCreds(authz)
				if !ok || id != cred.ClientID || secret != cred.ClientSecret || secret == "" {
					t.Errorf("Basic header for %q: decoded %q ok=%v", cred.ClientID, id, ok)
				}
				if form.Has("client_secret") || form.Has("client_id") {
					t.Error("client_secret_basic also sent credentials in the body")
				}
			case AuthPost:
				if authz != "" || form.Get("client_id") != cred.ClientID || form.Get("client_secret") != cred.ClientSecret || cred.ClientSecret == "" {
					t.Errorf("client_secret_post: header %q, body client_id %q", authz, form.Get("client_id"))
				}
			case AuthNone:
				if authz != "" || form.Has("client_secret") || form.Get("client_id") != cred.ClientID {
					t.Errorf("none: header %q, body client_id %q, secret sent %v", authz, form.Get("client_id"), form.Has("client_secret"))
				}
			}
		})
	}
}

// TestTokenAuthNotProbed: a refused client_secret_basic request is not
// resent with the secret in the body (x/oauth2's auto-detection would):
// the style comes from the metadata, and the refusal stands.
func TestTokenAuthNotProbed(t *testing.T) {
	refuse := func(w http.ResponseWriter, _ map[string]any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error":"invalid_client","error_description":"bad client"}`))
	}
	m := newMock(t, mockOpts{methods: []string{}, answer: refuse})
	f := newFlow(t, m, func(c *Config) { c.ClientID, c.ClientSecret = "pre", "pre-SECRET" })
	_, err := f.Authorize(ctx(t), m.header("", "", true), nil)
	wantErr(t, m, err, errs.Auth, "HTTP 401", "invalid_client", "bad client", "check oauth.clientId")
	if n := m.count("AS POST /token"); n != 1 {
		t.Errorf("%d token requests, want 1", n)
	}
	if form, authz := m.lastToken(); !strings.HasPrefix(authz, "Basic ") || form.Has("client_secret") {
		t.Errorf("client_secret_basic (the default) not used: header %q, secret in the body %v", authz, form.Has("client_secret"))
	}
}

func TestRefresh(t *testing.T) {
	for _, rotate := range []bool{true, false} {
		t.Run(fmt.Sprintf("rotate=%v", rotate), func(t *testing.T) {
			m := newMock(t, mockOpts{refresh: true, noRotate: !rotate, methods: []string{AuthPost}, regMethod: AuthPost, regSecret: true})
			f := newFlow(t, m, nil)
			cred, err := f.Authorize(ctx(t), m.header("", "", true), nil)
			if err != nil {
				t.Fatal(err)
			}
			if cred.RefreshToken == "" {
				t.Fatal("no refresh token stored")
			}
			before := *cred
			next, err := f.Refresh(ctx(t), cred)
			if err != nil {
				t.Fatal(err)
			}
			if *cred != before {
				t.Error("Refresh modified its argument")
			}
			form, authz := m.lastToken()
			if form.Get("grant_type") != "refresh_token" || form.Get("refresh_token") != cred.RefreshToken || form.Get("resource") != m.serverURL() {
				t.Errorf("refresh request %v", form)
			}
			if authz != "" || form.Get("client_secret") != cred.ClientSecret || form.Get("client_id") != cred.ClientID {
				t.Error("refresh did not authenticate the client as registered (client_secret_post)")
			}
			if next.AccessToken == cred.AccessToken || next.Issuer != cred.Issuer || next.ClientID != cred.ClientID {
				t.Errorf("refreshed credential %v", next)
			}
			if rotate == (next.RefreshToken == cred.RefreshToken) {
				t.Errorf("rotate=%v: refresh token %q after %q", rotate, next.RefreshToken, cred.RefreshToken)
			}
			// A second refresh with the new credential works; with the old
			// one only when the server did not rotate.
			if _, err := f.Refresh(ctx(t), next); err != nil {
				t.Fatalf("second refresh: %v", err)
			}
			_, err = f.Refresh(ctx(t), cred)
			if rotate {
				wantErr(t, m, err, errs.Auth, "invalid_grant", "luagent mcp login "+m.serverURL())
			} else if err != nil {
				t.Fatalf("unrotated refresh token refused: %v", err)
			}
		})
	}
	m := newMock(t, mockOpts{})
	f := newFlow(t, m, nil)
	_, err := f.Refresh(ctx(t), &Credential{AccessToken: "at-SECRET", TokenEndpoint: m.issuer() + "/token"})
	wantErr(t, m, err, errs.Auth, "no refresh token", "luagent mcp login")
	_, err = f.Refresh(ctx(t), &Credential{RefreshToken: "rt-SECRET", TokenEndpoint: "http://as.example.com/token"})
	wantErr(t, m, err, errs.Auth, "not HTTPS")
	if strings.Contains(err.Error(), "rt-SECRET") {
		t.Error("refresh token in the error")
	}
}

// TestLegacy covers 2025-03-26 servers: no protected-resource metadata (the
// server is its own authorization server), with metadata at the origin
// (oauth-metadata-backcompat) or none at all (oauth-endpoint-fallback).
func TestLegacy(t *testing.T) {
	for _, o := range []mockOpts{
		{prmAt: "none", sameOrigin: true, issAdv: "omit", issMode: "omit"},
		{prmAt: "none", sameOrigin: true, asMetaAt: "none", issMode: "omit"},
	} {
		t.Run("metadata="+o.asMetaAt, func(t *testing.T) {
			m := newMock(t, o)
			cred, err := newFlow(t, m, nil).Authorize(ctx(t), m.header("", "", false), nil)
			if err != nil {
				t.Fatal(err)
			}
			wantFlow(t, m, cred, m.serverURL())
			for _, r := range []string{"AS GET /.well-known/oauth-protected-resource/mcp", "AS GET /.well-known/oauth-protected-resource", "AS POST /register", "AS GET /authorize", "AS POST /token"} {
				if !m.logged(r) {
					t.Errorf("%s not requested", r)
				}
			}
		})
	}
	// With resource metadata, a missing authorization server is an error,
	// not the legacy defaults.
	m := newMock(t, mockOpts{asMetaAt: "none"})
	_, err := newFlow(t, m, nil).Authorize(ctx(t), m.header("", "", true), nil)
	wantErr(t, m, err, errs.Protocol, "no metadata")
	// A challenge naming metadata that is not there does not fall back.
	m = newMock(t, mockOpts{prmAt: "none", sameOrigin: true})
	_, err = newFlow(t, m, nil).Authorize(ctx(t), ParseChallenge(`Bearer resource_metadata="`+m.rs.URL+`/nope"`), nil)
	wantErr(t, m, err, errs.Protocol, "/nope")
}

func TestInsecureServerRefused(t *testing.T) {
	m := newMock(t, mockOpts{})
	m.o.prmServers = []string{"http://as.example.com"}
	_, err := newFlow(t, m, nil).Authorize(ctx(t), m.header("", "", true), nil)
	wantErr(t, m, err, errs.Auth, "not HTTPS")
}

func TestMalformedMetadata(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/.well-known/oauth-protected-resource") {
			w.Write([]byte(`{"resource": 42`))
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	f, err := New(Config{ServerURL: srv.URL + "/mcp", Browse: fetchLocation})
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Authorize(ctx(t), Challenge{}, nil)
	wantErr(t, nil, err, errs.Protocol, "protected resource metadata", "not valid JSON")
}

// TestCancelled: a cancelled context ends the flow with kind cancelled.
func TestCancelled(t *testing.T) {
	m := newMock(t, mockOpts{})
	c, cancel := context.WithCancel(context.Background())
	f := newFlow(t, m, func(cfg *Config) {
		cfg.Browse = func(ctx context.Context, _ string) (string, error) {
			cancel()
			<-ctx.Done()
			return "", errs.Wrap(errs.Cancelled, "browse", ctx.Err())
		}
	})
	_, err := f.Authorize(c, m.header("", "", true), nil)
	wantErr(t, m, err, errs.Cancelled)
}

// TestLoopbackBrowser runs the built-in browser step: a loopback listener,
// the URL printed and handed to the opener; the "browser" follows the
// authorization server's redirect to the listener. A forged callback with
// another state is ignored and does not end the login.
func TestLoopbackBrowser(t *testing.T) {
	m := newMock(t, mockOpts{})
	var (
		mu  sync.Mutex
		out strings.Builder
	)
	done := make(chan error, 1)
	f := newFlow(t, m, func(c *Config) {
		c.Browse = nil
		c.Out = writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return out.Write(p) })
		c.OpenURL = func(authURL string) error {
			go func() {
				q, _ := url.Parse(authURL)
				redirect := q.Query().Get("redirect_uri")
				// A stray request with the wrong state first.
				resp, err := http.Get(redirect + "?code=forged&state=wrong")
				if err == nil {
					resp.Body.Close()
					if resp.StatusCode != http.StatusBadRequest {
						done <- fmt.Errorf("forged callback answered %d", resp.StatusCode)
						return
					}
				}
				loc, err := fetchLocation(context.Background(), authURL)
				if err != nil {
					done <- err
					return
				}
				resp, err = http.Get(loc)
				if err == nil {
					resp.Body.Close()
				}
				done <- err
			}()
			return nil
		}
	})
	cred, err := f.Authorize(ctx(t), m.header("", "", true), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	wantFlow(t, m, cred, m.serverURL())
	redirect := m.lastAuth().Get("redirect_uri")
	if !strings.HasPrefix(redirect, "http://127.0.0.1:") || !strings.HasSuffix(redirect, "/callback") {
		t.Errorf("redirect_uri %q, want http://127.0.0.1:<port>/callback", redirect)
	}
	mu.Lock()
	printed := out.String()
	mu.Unlock()
	if !strings.Contains(printed, "open this URL") || !strings.Contains(printed, m.issuer()+"/authorize?") {
		t.Errorf("the authorization URL was not printed: %q", printed)
	}
	// The listener is gone after the flow.
	if resp, err := http.Get(redirect); err == nil {
		resp.Body.Close()
		t.Error("the loopback listener still answers after the flow")
	}
}

func TestLoopbackTimeout(t *testing.T) {
	m := newMock(t, mockOpts{})
	f := newFlow(t, m, func(c *Config) {
		c.Browse, c.OpenURL, c.Out, c.BrowseTimeout = nil, func(string) error { return errors.New("no opener") }, writerFunc(func(p []byte) (int, error) { return len(p), nil }), 50*time.Millisecond
	})
	_, err := f.Authorize(ctx(t), m.header("", "", true), nil)
	wantErr(t, m, err, errs.Timeout, "no authorization response")
}

type writerFunc func([]byte) (int, error)

func (w writerFunc) Write(p []byte) (int, error) { return w(p) }

func TestCredentialRedacted(t *testing.T) {
	c := Credential{Issuer: "https://as", ClientID: "cid", ClientSecret: "cs-SECRET", AccessToken: "at-SECRET", RefreshToken: "rt-SECRET", Scope: "a b"}
	for _, s := range []string{fmt.Sprint(c), fmt.Sprintf("%+v", c), fmt.Sprintf("%#v", c), fmt.Sprint(&c), fmt.Sprint(c.LogValue())} {
		if strings.Contains(s, "SECRET") {
			t.Errorf("credential printed with a secret: %s", s)
		}
		if !strings.Contains(s, "cid") {
			t.Errorf("credential printed without its client: %s", s)
		}
	}
	now := time.Unix(1000, 0)
	for _, tt := range []struct {
		at   int64
		want bool
	}{{0, false}, {999, true}, {1020, true}, {1100, false}} {
		if got := (&Credential{ExpiresAt: tt.at}).Expired(now); got != tt.want {
			t.Errorf("ExpiresAt %d: Expired %v", tt.at, got)
		}
	}
}

func TestRegistrationRefused(t *testing.T) {
	m := newMock(t, mockOpts{regError: "invalid_redirect_uri"})
	_, err := newFlow(t, m, nil).Authorize(ctx(t), m.header("", "", true), nil)
	wantErr(t, m, err, errs.Auth, "registration", "invalid_redirect_uri", "redirect URIs must be https for web clients", "oauth.clientId")
}

func TestUnreachable(t *testing.T) {
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()
	m := newMock(t, mockOpts{})
	m.o.prmServers = []string{deadURL}
	_, err := newFlow(t, m, nil).Authorize(ctx(t), m.header("", "", true), nil)
	wantErr(t, m, err, errs.Auth, "authorization server metadata", "check the network")
	// A refresh against a dead token endpoint: kind auth, no token in it.
	_, err = newFlow(t, m, nil).Refresh(ctx(t), &Credential{RefreshToken: "rt-SECRET", AccessToken: "at-SECRET", TokenEndpoint: deadURL + "/token"})
	wantErr(t, m, err, errs.Auth, "refreshing", "luagent mcp login")
	noSecrets(t, m, err, "rt-SECRET", "at-SECRET")
	// A deadline keeps its kind.
	c, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	<-c.Done()
	_, err = newFlow(t, m, nil).Refresh(c, &Credential{RefreshToken: "rt-SECRET", TokenEndpoint: m.issuer() + "/token"})
	wantErr(t, m, err, errs.Timeout)
}

// TestTokenAnswers: token endpoint answers as golang.org/x/oauth2 reads
// them: form-encoded, expires_in as a string, an error in a 200 answer
// (RFC 6749 §5.2 says 400; x/oauth2 takes the error field as a refusal
// whatever the status), and bodies that are not token responses.
func TestTokenAnswers(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	form := func(w http.ResponseWriter, resp map[string]any) {
		w.Header().Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
		fmt.Fprintf(w, "access_token=%s&token_type=bearer&expires_in=60&scope=x+y", resp["access_token"])
	}
	stringExpiry := func(w http.ResponseWriter, resp map[string]any) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"access_token":%q,"token_type":"Bearer","expires_in":"30"}`, resp["access_token"])
	}
	error200 := func(w http.ResponseWriter, resp map[string]any) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"error":"invalid_grant","error_description":"grant revoked"}`))
	}
	html502 := func(w http.ResponseWriter, resp map[string]any) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		fmt.Fprintf(w, "<html>proxy error for %s</html>", resp["access_token"])
	}
	garbage := func(w http.ResponseWriter, resp map[string]any) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte("<html>"))
	}
	tests := []struct {
		name   string
		answer func(http.ResponseWriter, map[string]any)
		scope  string
		expiry int64
		kind   errs.Kind
		want   []string
	}{
		{name: "form-encoded", answer: form, scope: "x y", expiry: 60},
		{name: "expires_in as a string", answer: stringExpiry, expiry: 30},
		{name: "error in a 200 answer", answer: error200, kind: errs.Auth, want: []string{"HTTP 200", "invalid_grant", "revoked"}},
		{name: "HTML error page", answer: html502, kind: errs.Auth, want: []string{"exchanging the authorization code", "HTTP 502"}},
		{name: "not a token response", answer: garbage, kind: errs.Protocol, want: []string{"not a token response"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMock(t, mockOpts{answer: tt.answer})
			f := newFlow(t, m, func(c *Config) { c.Now = func() time.Time { return now } })
			cred, err := f.Authorize(ctx(t), m.header("", "", true), nil)
			if tt.want != nil {
				wantErr(t, m, err, tt.kind, tt.want...)
				if err != nil && strings.Contains(err.Error(), "html") {
					t.Errorf("the error quotes the answer's body: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(cred.AccessToken, "at-") || cred.Scope != tt.scope || cred.ExpiresAt != now.Unix()+tt.expiry {
				t.Errorf("credential token %q scope %q expires_at %d; want a mock token, scope %q, expiry now+%d", cred.AccessToken, cred.Scope, cred.ExpiresAt-now.Unix(), tt.scope, tt.expiry)
			}
		})
	}
}

func TestSanitize(t *testing.T) {
	if got := sanitize(" a\nb\x00c\t "); got != "a b c" {
		t.Errorf("sanitize: %q", got)
	}
	if got := sanitize(strings.Repeat("é", 300)); len([]rune(got)) != 201 {
		t.Errorf("sanitize did not cut: %d runes", len([]rune(got)))
	}
	if got := redact("token abcd1234 and abc", []string{"abcd1234", "abc", ""}); got != "token [redacted] and abc" {
		t.Errorf("redact: %q", got)
	}
}
