package oauth

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// mockOpts shapes the mock protected resource and authorization server,
// after the conformance judge's mock (its scenario knobs).
type mockOpts struct {
	prmAt       string   // "path" (default), "root", "custom", "none"
	prmResource string   // overrides the PRM resource
	prmScopes   []string // PRM scopes_supported
	prmServers  []string // overrides authorization_servers

	sameOrigin bool   // the authorization server is the resource server (2025-03-26)
	asPath     string // issuer path ("/tenant1")
	asMetaAt   string // "oauth" (default), "oidc-insert", "oidc-append", "none"
	metaIssuer string // overrides the issuer in the metadata
	pkce       []string
	noPKCE     bool     // omit code_challenge_methods_supported
	issAdv     string   // authorization_response_iss_parameter_supported: "true" (default), "false", "omit"
	issMode    string   // iss in the redirect: "correct" (default), "omit", "wrong", "normalized"
	asScopes   []string // AS scopes_supported
	methods    []string // token_endpoint_auth_methods_supported (default ["none"])
	cimd       bool
	noDCR      bool
	regMethod  string // token_endpoint_auth_method the registration answers
	regSecret  bool   // registration issues a secret
	refresh    bool   // issue refresh tokens
	noRotate   bool   // keep the refresh token on refresh
	tokenType  string // default "Bearer"
	authError  string // the authorization endpoint answers error=...
	echoCode   bool   // the token endpoint refuses, echoing the code back
	regError   string // registration answers 400 with this error
	// answer, if set, writes the token endpoint's answer instead of JSON
	// (resp is the JSON answer it would have sent).
	answer func(w http.ResponseWriter, resp map[string]any)
}

type mock struct {
	t      *testing.T
	o      mockOpts
	rs, as *httptest.Server

	mu         sync.Mutex
	log        []string // "RS GET /path" ...
	authReqs   []url.Values
	tokenForms []url.Values
	tokenAuthz []string
	regs       []map[string]any
	challenge  string // last code_challenge
	code       string
	n          int
	refreshOK  map[string]bool
	secrets    []string // every code, token, secret and verifier that went by
}

func newMock(t *testing.T, o mockOpts) *mock {
	m := &mock{t: t, o: o, refreshOK: map[string]bool{}}
	m.as = httptest.NewServer(http.HandlerFunc(m.serveAS))
	m.rs = httptest.NewServer(http.HandlerFunc(m.serveRS))
	if o.sameOrigin {
		m.as.Close()
		m.as = m.rs
	}
	t.Cleanup(func() { m.rs.Close(); m.as.Close() })
	return m
}

func (m *mock) serverURL() string { return m.rs.URL + "/mcp" }
func (m *mock) issuer() string    { return m.as.URL + m.o.asPath }

func (m *mock) prmPath() string {
	switch m.o.prmAt {
	case "root":
		return "/.well-known/oauth-protected-resource"
	case "custom":
		return "/custom/metadata/location.json"
	case "none":
		return ""
	}
	return "/.well-known/oauth-protected-resource/mcp"
}

// header returns the 401/403 challenge the resource server would send.
func (m *mock) header(scope, errCode string, withPRM bool) Challenge {
	var parts []string
	if errCode != "" {
		parts = append(parts, `error="`+errCode+`"`)
	}
	if scope != "" {
		parts = append(parts, `scope="`+scope+`"`)
	}
	if withPRM && m.prmPath() != "" {
		parts = append(parts, `resource_metadata="`+m.rs.URL+m.prmPath()+`"`)
	}
	return ParseChallenge("Bearer " + strings.Join(parts, ", "))
}

func (m *mock) record(who string, r *http.Request) {
	m.mu.Lock()
	m.log = append(m.log, who+" "+r.Method+" "+r.URL.Path)
	m.mu.Unlock()
}

func (m *mock) logged(entry string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, l := range m.log {
		if l == entry {
			return true
		}
	}
	return false
}

func (m *mock) count(prefix string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, l := range m.log {
		if strings.HasPrefix(l, prefix) {
			n++
		}
	}
	return n
}

func (m *mock) lastAuth() url.Values {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.authReqs) == 0 {
		m.t.Fatal("no authorization request was made")
	}
	return m.authReqs[len(m.authReqs)-1]
}

func (m *mock) lastToken() (url.Values, string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.tokenForms) == 0 {
		m.t.Fatal("no token request was made")
	}
	return m.tokenForms[len(m.tokenForms)-1], m.tokenAuthz[len(m.tokenAuthz)-1]
}

func (m *mock) secret(s string) string {
	m.mu.Lock()
	m.secrets = append(m.secrets, s)
	m.mu.Unlock()
	return s
}

func (m *mock) serveRS(w http.ResponseWriter, r *http.Request) {
	if p := m.prmPath(); p != "" && r.URL.Path == p && r.Method == http.MethodGet {
		m.record("RS", r)
		res := m.o.prmResource
		if res == "" {
			res = m.rs.URL + "/mcp"
			if m.o.prmAt == "root" {
				res = m.rs.URL
			}
		}
		servers := m.o.prmServers
		if servers == nil {
			servers = []string{m.issuer()}
		}
		doc := map[string]any{"resource": res, "authorization_servers": servers}
		if m.o.prmScopes != nil {
			doc["scopes_supported"] = m.o.prmScopes
		}
		json.NewEncoder(w).Encode(doc)
		return
	}
	if m.o.sameOrigin {
		m.serveAS(w, r)
		return
	}
	m.record("RS", r)
	http.NotFound(w, r)
}

func (m *mock) metaPath() string {
	switch m.o.asMetaAt {
	case "oidc-insert":
		return "/.well-known/openid-configuration" + m.o.asPath
	case "oidc-append":
		return m.o.asPath + "/.well-known/openid-configuration"
	case "none":
		return ""
	}
	return "/.well-known/oauth-authorization-server" + m.o.asPath
}

func (m *mock) serveAS(w http.ResponseWriter, r *http.Request) {
	m.record("AS", r)
	base := m.as.URL + m.o.asPath
	switch p := r.URL.Path; {
	case p == m.metaPath() && p != "":
		doc := map[string]any{
			"issuer":                   m.issuer(),
			"authorization_endpoint":   base + "/authorize",
			"token_endpoint":           base + "/token",
			"response_types_supported": []string{"code"},
		}
		if m.o.metaIssuer != "" {
			doc["issuer"] = m.o.metaIssuer
		}
		if !m.o.noDCR {
			doc["registration_endpoint"] = base + "/register"
		}
		if !m.o.noPKCE {
			doc["code_challenge_methods_supported"] = []string{"S256"}
			if m.o.pkce != nil {
				doc["code_challenge_methods_supported"] = m.o.pkce
			}
		}
		switch m.o.issAdv {
		case "", "true":
			doc["authorization_response_iss_parameter_supported"] = true
		case "false":
			doc["authorization_response_iss_parameter_supported"] = false
		}
		doc["token_endpoint_auth_methods_supported"] = []string{"none"}
		if m.o.methods != nil {
			doc["token_endpoint_auth_methods_supported"] = m.o.methods
		}
		if m.o.asScopes != nil {
			doc["scopes_supported"] = m.o.asScopes
		}
		if m.o.cimd {
			doc["client_id_metadata_document_supported"] = true
		}
		json.NewEncoder(w).Encode(doc)
	case p == m.o.asPath+"/authorize" && r.Method == http.MethodGet:
		q := r.URL.Query()
		m.mu.Lock()
		m.authReqs = append(m.authReqs, q)
		m.challenge = q.Get("code_challenge")
		m.n++
		m.code = fmt.Sprintf("code-%d-SECRET", m.n)
		m.secrets = append(m.secrets, m.code)
		code := m.code
		m.mu.Unlock()
		red, err := url.Parse(q.Get("redirect_uri"))
		if err != nil || q.Get("redirect_uri") == "" {
			http.Error(w, "bad redirect_uri", 400)
			return
		}
		rq := red.Query()
		if m.o.authError != "" {
			rq.Set("error", m.o.authError)
			rq.Set("error_description", "the user said no")
		} else {
			rq.Set("code", code)
		}
		if s := q.Get("state"); s != "" {
			rq.Set("state", s)
		}
		switch m.o.issMode {
		case "", "correct":
			rq.Set("iss", m.issuer())
		case "wrong":
			rq.Set("iss", "https://evil.example.com")
		case "normalized":
			rq.Set("iss", m.issuer()+"/")
		}
		red.RawQuery = rq.Encode()
		http.Redirect(w, r, red.String(), http.StatusFound)
	case p == m.o.asPath+"/token" && r.Method == http.MethodPost:
		r.ParseForm()
		m.mu.Lock()
		m.tokenForms = append(m.tokenForms, r.PostForm)
		m.tokenAuthz = append(m.tokenAuthz, r.Header.Get("Authorization"))
		m.secrets = append(m.secrets, r.PostForm.Get("code_verifier"), r.PostForm.Get("client_secret"))
		m.mu.Unlock()
		m.token(w, r.PostForm)
	case p == m.o.asPath+"/register" && r.Method == http.MethodPost && !m.o.noDCR:
		if m.o.regError != "" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			json.NewEncoder(w).Encode(map[string]string{"error": m.o.regError, "error_description": "redirect URIs must be https\nfor web clients"})
			return
		}
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		m.mu.Lock()
		m.regs = append(m.regs, body)
		m.n++
		n := m.n
		m.mu.Unlock()
		resp := map[string]any{"client_id": fmt.Sprintf("dcr-client-%d", n), "redirect_uris": body["redirect_uris"]}
		if m.o.regSecret {
			resp["client_secret"] = m.secret(fmt.Sprintf("dcr-secret-%d-SECRET", n))
		}
		if m.o.regMethod != "" {
			resp["token_endpoint_auth_method"] = m.o.regMethod
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(resp)
	default:
		http.NotFound(w, r)
	}
}

func (m *mock) token(w http.ResponseWriter, f url.Values) {
	fail := func(code, desc string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": desc})
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var scope string
	switch f.Get("grant_type") {
	case "authorization_code":
		if m.o.echoCode {
			fail("invalid_grant", "code "+f.Get("code")+", verifier "+f.Get("code_verifier")+" and secret "+f.Get("client_secret")+" rejected")
			return
		}
		if f.Get("code") != m.code || m.code == "" {
			fail("invalid_grant", "unknown code")
			return
		}
		if s256(f.Get("code_verifier")) != m.challenge {
			fail("invalid_grant", "code_verifier does not match code_challenge")
			return
		}
		m.code = "" // single use
		scope = m.authReqs[len(m.authReqs)-1].Get("scope")
	case "refresh_token":
		rt := f.Get("refresh_token")
		if !m.refreshOK[rt] {
			fail("invalid_grant", "refresh token "+rt+" is not valid")
			return
		}
		if !m.o.noRotate {
			delete(m.refreshOK, rt)
		}
	default:
		fail("unsupported_grant_type", "")
		return
	}
	m.n++
	at := fmt.Sprintf("at-%d-SECRET", m.n)
	m.secrets = append(m.secrets, at)
	resp := map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": 3600}
	if m.o.tokenType != "" {
		resp["token_type"] = m.o.tokenType
	}
	if scope != "" {
		resp["scope"] = scope
	}
	if m.o.refresh && (f.Get("grant_type") == "authorization_code" || !m.o.noRotate) {
		rt := fmt.Sprintf("rt-%d-SECRET", m.n)
		m.secrets = append(m.secrets, rt)
		m.refreshOK[rt] = true
		resp["refresh_token"] = rt
	}
	if m.o.answer != nil {
		m.o.answer(w, resp)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(resp)
}

// fetchLocation is the conformance client's browser step: fetch the
// authorization URL without following redirects; the Location is the
// callback.
func fetchLocation(ctx context.Context, authURL string) (string, error) {
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return "", err
	}
	resp, err := c.Do(req)
	if err != nil {
		return "", err
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if loc == "" {
		return "", errors.New("no redirect from the authorization endpoint")
	}
	return loc, nil
}

// s256 is the PKCE S256 code challenge of a verifier (RFC 7636 §4.2),
// computed here independently of the client.
func s256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// basicCreds decodes an RFC 6749 §2.3.1 Basic header.
func basicCreds(h string) (id, secret string, ok bool) {
	raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(h, "Basic "))
	if err != nil || !strings.HasPrefix(h, "Basic ") {
		return "", "", false
	}
	i, s, ok := strings.Cut(string(raw), ":")
	if !ok {
		return "", "", false
	}
	i, _ = url.QueryUnescape(i)
	s, _ = url.QueryUnescape(s)
	return i, s, true
}
