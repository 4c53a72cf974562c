package oauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/luagent/luagent/runtime/errs"
)

// grantServer is one origin playing the MCP server's resource metadata,
// its authorization server (metadata without an authorization endpoint or
// PKCE: unattended grants need neither) and the enterprise IdP.
type grantServer struct {
	t   *testing.T
	srv *httptest.Server

	methods    []string         // token_endpoint_auth_methods_supported
	grantTypes []string         // grant_types_supported
	pub        crypto.PublicKey // verifies private_key_jwt assertions
	alg        string           // the assertion's expected alg
	refuseAS   bool             // the token endpoint answers 401 invalid_client
	refuseIdP  bool             // the IdP answers 400 invalid_grant

	mu       sync.Mutex
	asForms  []url.Values
	asAuthz  []string
	idpForms []url.Values
	idpAuthz []string
	jag      string // the ID-JAG the IdP issued
}

const (
	testClientID   = "grant-client"
	testSecret     = "grant-secret-SECRET"
	testIdPClient  = "idp-client"
	testIDToken    = "id-token-SECRET"
	testAccessTok  = "cc-access-SECRET"
	testRefreshTok = "cc-refresh-SECRET"
)

func newGrantServer(t *testing.T, mod func(*grantServer)) *grantServer {
	g := &grantServer{t: t}
	if mod != nil {
		mod(g)
	}
	g.srv = httptest.NewServer(http.HandlerFunc(g.serve))
	t.Cleanup(g.srv.Close)
	return g
}

func (g *grantServer) serverURL() string { return g.srv.URL + "/mcp" }

func (g *grantServer) serve(w http.ResponseWriter, r *http.Request) {
	base := g.srv.URL
	js := func(status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(v)
	}
	switch r.URL.Path {
	case "/.well-known/oauth-protected-resource/mcp":
		js(200, map[string]any{"resource": base + "/mcp", "authorization_servers": []string{base}})
	case "/.well-known/oauth-authorization-server":
		doc := map[string]any{"issuer": base, "token_endpoint": base + "/token"}
		if g.methods != nil {
			doc["token_endpoint_auth_methods_supported"] = g.methods
		}
		if g.grantTypes != nil {
			doc["grant_types_supported"] = g.grantTypes
		}
		js(200, doc)
	case "/idp/token":
		r.ParseForm()
		g.mu.Lock()
		g.idpForms = append(g.idpForms, r.PostForm)
		g.idpAuthz = append(g.idpAuthz, r.Header.Get("Authorization"))
		g.jag = "id-jag-" + base64.RawURLEncoding.EncodeToString([]byte(r.PostForm.Get("audience"))) + "-SECRET"
		jag := g.jag
		g.mu.Unlock()
		if g.refuseIdP {
			js(400, map[string]string{"error": "invalid_grant", "error_description": "ID token " + r.PostForm.Get("subject_token") + " expired"})
			return
		}
		js(200, map[string]string{"access_token": jag, "issued_token_type": tokenTypeIDJAG, "token_type": "N_A"})
	case "/token":
		r.ParseForm()
		g.mu.Lock()
		g.asForms = append(g.asForms, r.PostForm)
		g.asAuthz = append(g.asAuthz, r.Header.Get("Authorization"))
		g.mu.Unlock()
		if g.refuseAS {
			js(401, map[string]string{"error": "invalid_client", "error_description": "rejected " + r.PostForm.Get("client_assertion") + r.Header.Get("Authorization") + r.PostForm.Get("client_secret")})
			return
		}
		js(200, map[string]any{"access_token": testAccessTok, "token_type": "Bearer", "expires_in": 600, "refresh_token": testRefreshTok})
	default:
		http.NotFound(w, r)
	}
}

// lastAS is the last token request at the authorization server.
func (g *grantServer) lastAS() (url.Values, string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.asForms) == 0 {
		g.t.Fatal("no token request reached the authorization server")
	}
	return g.asForms[len(g.asForms)-1], g.asAuthz[len(g.asAuthz)-1]
}

// verifyJWT checks a compact JWS with pub (independently of the signer:
// ES* as R||S, RS* PKCS #1 v1.5, PS* PSS, EdDSA) and returns its header and
// claims.
func verifyJWT(t *testing.T, tok string, pub crypto.PublicKey) (map[string]any, map[string]any) {
	t.Helper()
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		t.Fatalf("assertion is not a compact JWS (%d parts)", len(parts))
	}
	dec := func(s string) []byte {
		b, err := base64.RawURLEncoding.DecodeString(s)
		if err != nil {
			t.Fatalf("JWS part is not base64url without padding: %v", err)
		}
		return b
	}
	var hdr, claims map[string]any
	if err := json.Unmarshal(dec(parts[0]), &hdr); err != nil {
		t.Fatalf("header: %v", err)
	}
	if err := json.Unmarshal(dec(parts[1]), &claims); err != nil {
		t.Fatalf("claims: %v", err)
	}
	sig := dec(parts[2])
	input := []byte(parts[0] + "." + parts[1])
	alg, _ := hdr["alg"].(string)
	hashOf := func(h crypto.Hash) []byte { x := h.New(); x.Write(input); return x.Sum(nil) }
	hashes := map[string]crypto.Hash{"256": crypto.SHA256, "384": crypto.SHA384, "512": crypto.SHA512}
	ok := false
	switch key := pub.(type) {
	case *ecdsa.PublicKey:
		size := (key.Curve.Params().BitSize + 7) / 8
		if len(sig) != 2*size {
			t.Fatalf("ECDSA signature is %d bytes, want R||S of %d (not ASN.1)", len(sig), 2*size)
		}
		r, s := new(big.Int).SetBytes(sig[:size]), new(big.Int).SetBytes(sig[size:])
		ok = ecdsa.Verify(key, hashOf(hashes[alg[2:]]), r, s)
	case *rsa.PublicKey:
		h := hashes[alg[2:]]
		if strings.HasPrefix(alg, "PS") {
			ok = rsa.VerifyPSS(key, h, hashOf(h), sig, &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash}) == nil
		} else {
			ok = rsa.VerifyPKCS1v15(key, h, hashOf(h), sig) == nil
		}
	case ed25519.PublicKey:
		ok = ed25519.Verify(key, input, sig)
	}
	if !ok {
		t.Fatalf("the %s signature does not verify with the client's public key", alg)
	}
	return hdr, claims
}

// testKey makes a key and its PEM in the given encoding.
func testKey(t *testing.T, kind string) (string, crypto.PublicKey) {
	t.Helper()
	var der []byte
	var typ string
	var pub crypto.PublicKey
	var err error
	switch kind {
	case "p256-pkcs8", "p384-sec1":
		curve := elliptic.P256()
		if kind == "p384-sec1" {
			curve = elliptic.P384()
		}
		k, _ := ecdsa.GenerateKey(curve, rand.Reader)
		pub = &k.PublicKey
		if kind == "p256-pkcs8" {
			typ = "PRIVATE KEY"
			der, err = x509.MarshalPKCS8PrivateKey(k)
		} else {
			typ = "EC PRIVATE KEY"
			der, err = x509.MarshalECPrivateKey(k)
		}
	case "rsa-pkcs1", "rsa1024":
		bits := 2048
		if kind == "rsa1024" {
			bits = 1024
		}
		k, _ := rsa.GenerateKey(rand.Reader, bits)
		pub = &k.PublicKey
		typ, der = "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(k)
	case "ed25519":
		p, k, _ := ed25519.GenerateKey(rand.Reader)
		pub = p
		typ = "PRIVATE KEY"
		der, err = x509.MarshalPKCS8PrivateKey(k)
	default:
		t.Fatalf("unknown key kind %q", kind)
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})), pub
}

func TestAuthorizeGrants(t *testing.T) {
	p256, p256pub := testKey(t, "p256-pkcs8")
	p384, p384pub := testKey(t, "p384-sec1")
	rsaKey, rsaPub := testKey(t, "rsa-pkcs1")
	edKey, edPub := testKey(t, "ed25519")

	tests := []struct {
		name       string
		grant      string
		secret     string
		key        string
		alg        string
		pub        crypto.PublicKey
		wantAlg    string
		methods    []string
		wantAuth   string // token endpoint client authentication seen
		wantResult string // TokenAuth in the credential
	}{
		{name: "client credentials, client_secret_basic", grant: GrantClientCredentials, secret: testSecret, methods: []string{AuthBasic}, wantAuth: AuthBasic},
		{name: "client credentials, basic when unadvertised", grant: GrantClientCredentials, secret: testSecret, wantAuth: AuthBasic},
		{name: "client credentials, client_secret_post", grant: GrantClientCredentials, secret: testSecret, methods: []string{AuthPost}, wantAuth: AuthPost},
		{name: "client credentials, private_key_jwt ES256", grant: GrantClientCredentials, key: p256, alg: "ES256", pub: p256pub, wantAlg: "ES256", methods: []string{AuthPrivateKeyJWT}, wantAuth: AuthPrivateKeyJWT},
		{name: "client credentials, private_key_jwt P-384 SEC 1, alg from key", grant: GrantClientCredentials, key: p384, pub: p384pub, wantAlg: "ES384", wantAuth: AuthPrivateKeyJWT},
		{name: "client credentials, private_key_jwt RS256", grant: GrantClientCredentials, key: rsaKey, pub: rsaPub, wantAlg: "RS256", wantAuth: AuthPrivateKeyJWT},
		{name: "client credentials, private_key_jwt PS384", grant: GrantClientCredentials, key: rsaKey, alg: "PS384", pub: rsaPub, wantAlg: "PS384", wantAuth: AuthPrivateKeyJWT},
		{name: "client credentials, private_key_jwt EdDSA", grant: GrantClientCredentials, key: edKey, pub: edPub, wantAlg: "EdDSA", wantAuth: AuthPrivateKeyJWT},
		{name: "jwt bearer (ID-JAG), client_secret_basic", grant: GrantJWTBearer, secret: testSecret, methods: []string{AuthBasic}, wantAuth: AuthBasic},
		{name: "jwt bearer (ID-JAG), private_key_jwt", grant: GrantJWTBearer, key: p256, pub: p256pub, wantAlg: "ES256", wantAuth: AuthPrivateKeyJWT},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := newGrantServer(t, func(g *grantServer) {
				g.methods = tc.methods
				g.grantTypes = []string{GrantClientCredentials, grantTypeJWTBearer}
			})
			cfg := Config{ServerURL: g.serverURL(), Grant: tc.grant, ClientID: testClientID, ClientSecret: tc.secret, PrivateKeyPEM: tc.key, SigningAlgorithm: tc.alg}
			if tc.grant == GrantJWTBearer {
				cfg.IdP = IdentityProvider{TokenEndpoint: g.srv.URL + "/idp/token", ClientID: testIdPClient, IDToken: testIDToken}
			}
			f, err := New(cfg)
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			// The server's 401 names its resource metadata.
			ch := ParseChallenge(`Bearer resource_metadata="` + g.srv.URL + `/.well-known/oauth-protected-resource/mcp"`)
			cred, err := f.Authorize(ctx(t), ch, nil)
			if err != nil {
				t.Fatalf("Authorize: %v", err)
			}
			form, authz := g.lastAS()
			wantGrant := map[string]string{GrantClientCredentials: "client_credentials", GrantJWTBearer: grantTypeJWTBearer}[tc.grant]
			if got := form.Get("grant_type"); got != wantGrant {
				t.Errorf("grant_type %q, want %q", got, wantGrant)
			}
			if got := form.Get("resource"); got != g.serverURL() {
				t.Errorf("resource %q, want %q", got, g.serverURL())
			}
			for _, p := range []string{"code", "code_verifier", "redirect_uri"} {
				if form.Has(p) {
					t.Errorf("an unattended grant sent %s", p)
				}
			}

			switch tc.wantAuth {
			case AuthBasic:
				id, secret, ok := basicCreds(authz)
				if !ok || id != testClientID || secret != testSecret {
					t.Errorf("Authorization %q: want Basic %s:<secret>", authz, testClientID)
				}
				if form.Has("client_secret") || form.Has("client_assertion") {
					t.Error("client_secret_basic also sent credentials in the form")
				}
			case AuthPost:
				if authz != "" || form.Get("client_id") != testClientID || form.Get("client_secret") != testSecret {
					t.Errorf("client_secret_post: Authorization %q, form client_id %q; want the secret in the form only", authz, form.Get("client_id"))
				}
			case AuthPrivateKeyJWT:
				if authz != "" || form.Has("client_secret") {
					t.Errorf("private_key_jwt also sent a secret (Authorization %q)", authz)
				}
				if got := form.Get("client_assertion_type"); got != clientAssertionType {
					t.Errorf("client_assertion_type %q, want %q", got, clientAssertionType)
				}
				hdr, claims := verifyJWT(t, form.Get("client_assertion"), tc.pub)
				if hdr["alg"] != tc.wantAlg {
					t.Errorf("alg %v, want %s", hdr["alg"], tc.wantAlg)
				}
				if claims["iss"] != testClientID || claims["sub"] != testClientID {
					t.Errorf("iss %v, sub %v: both must be the client id %s", claims["iss"], claims["sub"], testClientID)
				}
				if claims["aud"] != g.srv.URL {
					t.Errorf("aud %v, want the issuer %s", claims["aud"], g.srv.URL)
				}
				iat, _ := claims["iat"].(float64)
				exp, _ := claims["exp"].(float64)
				if iat == 0 || exp <= iat || exp-iat > 300 {
					t.Errorf("iat %v, exp %v: want a lifetime of at most 5 minutes", claims["iat"], claims["exp"])
				}
				if jti, _ := claims["jti"].(string); len(jti) < 16 {
					t.Errorf("jti %q is not a random identifier", jti)
				}
			}

			if tc.grant == GrantJWTBearer {
				g.mu.Lock()
				idp, jag := g.idpForms, g.jag
				g.mu.Unlock()
				if len(idp) != 1 {
					t.Fatalf("%d token exchanges at the IdP, want 1", len(idp))
				}
				want := map[string]string{
					"grant_type":           grantTypeExchange,
					"requested_token_type": tokenTypeIDJAG,
					"subject_token":        testIDToken,
					"subject_token_type":   tokenTypeIDToken,
					"audience":             g.srv.URL,
					"resource":             g.serverURL(),
					"client_id":            testIdPClient,
				}
				for k, v := range want {
					if got := idp[0].Get(k); got != v {
						t.Errorf("token exchange %s = %q, want %q", k, got, v)
					}
				}
				if got := form.Get("assertion"); got != jag {
					t.Errorf("jwt-bearer assertion %q, want the ID-JAG %q", got, jag)
				}
			}

			if cred.AccessToken != testAccessTok || cred.Issuer != g.srv.URL || cred.Resource != g.serverURL() || cred.ClientID != testClientID || cred.ExpiresAt == 0 {
				t.Errorf("credential %v", cred)
			}
			if tc.key != "" && cred.TokenAuth != AuthPrivateKeyJWT {
				t.Errorf("TokenAuth %q, want %q", cred.TokenAuth, AuthPrivateKeyJWT)
			}
			// Refresh tokens are kept only where Refresh can authenticate
			// and the grant cannot simply run again.
			wantRefresh := tc.grant == GrantJWTBearer && tc.key == ""
			if (cred.RefreshToken != "") != wantRefresh {
				t.Errorf("refresh token kept = %v, want %v", cred.RefreshToken != "", wantRefresh)
			}
		})
	}
}

func TestGrantConfigInvalid(t *testing.T) {
	p256, _ := testKey(t, "p256-pkcs8")
	rsa1024, _ := testKey(t, "rsa1024")
	body := strings.Split(p256, "\n")[1] // a line of the key: must never be quoted
	cert := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte("not a key")}))
	damaged := strings.Replace(p256, body, strings.Repeat("A", len(body)), 1)
	idp := IdentityProvider{TokenEndpoint: "https://idp.example.com/token", ClientID: testIdPClient, IDToken: testIDToken}
	cc := func(c Config) Config {
		c.ServerURL, c.ClientID = "https://mcp.example.com/mcp", testClientID
		if c.Grant == "" {
			c.Grant = GrantClientCredentials
		}
		return c
	}
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"garbage key", cc(Config{PrivateKeyPEM: "not a key SECRET"}), "not a PEM private key"},
		{"certificate, not a key", cc(Config{PrivateKeyPEM: cert}), "CERTIFICATE"},
		{"damaged key", cc(Config{PrivateKeyPEM: damaged}), "cannot be parsed"},
		{"algorithm does not fit the key", cc(Config{PrivateKeyPEM: p256, SigningAlgorithm: "ES384"}), "use ES256"},
		{"HMAC algorithm", cc(Config{PrivateKeyPEM: p256, SigningAlgorithm: "HS256"}), "does not fit"},
		{"short RSA key", cc(Config{PrivateKeyPEM: rsa1024}), "2048"},
		{"algorithm without key", cc(Config{ClientSecret: testSecret, SigningAlgorithm: "ES256"}), "without oauth.private_key_pem"},
		{"key and secret", cc(Config{ClientSecret: testSecret, PrivateKeyPEM: p256}), "both"},
		{"key with the code flow", cc(Config{Grant: GrantAuthorizationCode, PrivateKeyPEM: p256}), "authorization code"},
		{"unknown grant", cc(Config{Grant: "password"}), "not supported"},
		{"client credentials without a secret", cc(Config{}), "client_secret or oauth.private_key_pem"},
		{"jwt bearer without an IdP", cc(Config{Grant: GrantJWTBearer, ClientSecret: testSecret}), "oauth.idp"},
		{"jwt bearer without the ID token", cc(Config{Grant: GrantJWTBearer, IdP: IdentityProvider{TokenEndpoint: idp.TokenEndpoint, ClientID: testIdPClient}}), "id_token"},
		{"IdP over plain HTTP", cc(Config{Grant: GrantJWTBearer, IdP: IdentityProvider{TokenEndpoint: "http://idp.example.com/token", ClientID: testIdPClient, IDToken: testIDToken}}), "not HTTPS"},
		{"IdP with the code flow", cc(Config{Grant: GrantAuthorizationCode, IdP: idp}), "oauth.grant"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.cfg)
			if err == nil {
				t.Fatal("New accepted the configuration")
			}
			if errs.KindOf(err) != errs.Invalid {
				t.Errorf("kind %v, want invalid: %v", errs.KindOf(err), err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
			for _, s := range []string{body, "SECRET", testIDToken} {
				if strings.Contains(err.Error(), s) {
					t.Errorf("error leaks key material or a secret: %v", err)
				}
			}
		})
	}
	// A client without a secret is fine for jwt_bearer (a public client).
	if _, err := New(cc(Config{Grant: GrantJWTBearer, IdP: idp})); err != nil {
		t.Errorf("public client with jwt_bearer: %v", err)
	}
	if s := fmt.Sprint(idp); strings.Contains(s, testIDToken) {
		t.Errorf("IdentityProvider prints its ID token: %s", s)
	}
}

func TestAuthorizeGrantRefused(t *testing.T) {
	p256, _ := testKey(t, "p256-pkcs8")
	ch := Challenge{}
	tests := []struct {
		name string
		mod  func(*grantServer)
		cfg  func(*Config, *grantServer)
		kind errs.Kind
		want []string
	}{
		{name: "token endpoint refuses the secret",
			mod:  func(g *grantServer) { g.refuseAS = true },
			cfg:  func(c *Config, _ *grantServer) { c.ClientSecret = testSecret },
			kind: errs.Auth, want: []string{"HTTP 401", "invalid_client"}},
		{name: "token endpoint refuses the assertion",
			mod:  func(g *grantServer) { g.refuseAS = true },
			cfg:  func(c *Config, _ *grantServer) { c.PrivateKeyPEM = p256 },
			kind: errs.Auth, want: []string{"HTTP 401", "invalid_client"}},
		{name: "IdP refuses the ID token",
			mod: func(g *grantServer) { g.refuseIdP = true },
			cfg: func(c *Config, g *grantServer) {
				c.Grant, c.ClientSecret = GrantJWTBearer, testSecret
				c.IdP = IdentityProvider{TokenEndpoint: g.srv.URL + "/idp/token", ClientID: testIdPClient, IDToken: testIDToken}
			},
			kind: errs.Auth, want: []string{"identity provider", "invalid_grant", "sign in"}},
		{name: "authorization server lacks the grant",
			mod:  func(g *grantServer) { g.grantTypes = []string{"authorization_code"} },
			cfg:  func(c *Config, _ *grantServer) { c.ClientSecret = testSecret },
			kind: errs.Auth, want: []string{"does not support the client_credentials grant"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := newGrantServer(t, tc.mod)
			cfg := Config{ServerURL: g.serverURL(), Grant: GrantClientCredentials, ClientID: testClientID}
			tc.cfg(&cfg, g)
			f, err := New(cfg)
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			_, err = f.Authorize(ctx(t), ch, nil)
			if err == nil {
				t.Fatal("Authorize succeeded")
			}
			if errs.KindOf(err) != tc.kind {
				t.Errorf("kind %v, want %v: %v", errs.KindOf(err), tc.kind, err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			g.mu.Lock()
			leaks := []string{testSecret, testIDToken, g.jag, base64.StdEncoding.EncodeToString([]byte(testClientID + ":" + testSecret))}
			for _, form := range g.asForms {
				leaks = append(leaks, form.Get("client_assertion"))
			}
			g.mu.Unlock()
			for _, s := range leaks {
				if s != "" && strings.Contains(err.Error(), s) {
					t.Errorf("error leaks a secret or an assertion: %v", err)
				}
			}
		})
	}
}

func TestAuthorizeWorkloadAssertion(t *testing.T) {
	const jwt = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ3b3JrbG9hZCJ9.sig-SECRET"
	tests := []struct {
		name    string
		cfg     Config
		wantErr string
	}{
		{name: "assertion is the grant", cfg: Config{Grant: GrantJWTBearer, ClientID: testClientID, Assertion: jwt}},
		{name: "assertion and idp", cfg: Config{Grant: GrantJWTBearer, ClientID: testClientID, Assertion: jwt, IdP: IdentityProvider{TokenEndpoint: "https://idp.example/token", ClientID: "c", IDToken: "x"}}, wantErr: "not both"},
		{name: "assertion not a JWT", cfg: Config{Grant: GrantJWTBearer, ClientID: testClientID, Assertion: "opaque-SECRET"}, wantErr: "not a JWT"},
		{name: "assertion without jwt_bearer", cfg: Config{Grant: GrantClientCredentials, ClientID: testClientID, ClientSecret: testSecret, Assertion: jwt}, wantErr: "oauth.grant is not"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := newGrantServer(t, func(g *grantServer) { g.grantTypes = []string{grantTypeJWTBearer} })
			tc.cfg.ServerURL = g.serverURL()
			f, err := New(tc.cfg)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || strings.Contains(err.Error(), "SECRET") {
					t.Fatalf("New: %v, want an error with %q and no secret", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			if _, err := f.Authorize(ctx(t), Challenge{}, nil); err != nil {
				t.Fatalf("Authorize: %v", err)
			}
			form, _ := g.lastAS()
			if form.Get("grant_type") != grantTypeJWTBearer || form.Get("assertion") != jwt || form.Get("client_id") != testClientID {
				t.Errorf("token request grant_type %q assertion present %v client_id %q", form.Get("grant_type"), form.Get("assertion") == jwt, form.Get("client_id"))
			}
			g.mu.Lock()
			defer g.mu.Unlock()
			if len(g.idpForms) != 0 {
				t.Error("the workload's JWT went through an identity provider exchange")
			}
		})
	}
}
