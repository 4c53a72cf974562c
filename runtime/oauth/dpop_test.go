package oauth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"

	"github.com/luagent/luagent/runtime/errs"
	"sync"
	"testing"
	"time"
)

// checkProof verifies a DPoP proof independently of the signer: the public
// key from its jwk header (which must hold no private part) verifies the
// signature; typ, htm, htu, iat, jti, ath (the token's SHA-256, or none)
// and nonce are as wanted. It returns the claims and the RFC 7638
// thumbprint computed from the header.
func checkProof(t *testing.T, proof, method, htu, token, nonce string) (map[string]any, string) {
	t.Helper()
	parts := strings.Split(proof, ".")
	if len(parts) != 3 {
		t.Fatalf("proof is not a compact JWS")
	}
	raw, _ := base64.RawURLEncoding.DecodeString(parts[0])
	var hdr struct {
		Typ string            `json:"typ"`
		Alg string            `json:"alg"`
		JWK map[string]string `json:"jwk"`
	}
	if err := json.Unmarshal(raw, &hdr); err != nil {
		t.Fatalf("proof header: %v", err)
	}
	if hdr.Typ != "dpop+jwt" || hdr.Alg != "ES256" {
		t.Errorf("proof header typ %q alg %q, want dpop+jwt ES256", hdr.Typ, hdr.Alg)
	}
	if _, ok := hdr.JWK["d"]; ok {
		t.Fatal("the proof's jwk holds the private key")
	}
	if hdr.JWK["kty"] != "EC" || hdr.JWK["crv"] != "P-256" {
		t.Fatalf("jwk %v is not an EC P-256 key", hdr.JWK)
	}
	coord := func(s string) *big.Int {
		b, err := base64.RawURLEncoding.DecodeString(s)
		if err != nil || len(b) != 32 {
			t.Fatalf("jwk coordinate %q is not 32 bytes base64url", s)
		}
		return new(big.Int).SetBytes(b)
	}
	pub := &ecdsa.PublicKey{Curve: elliptic.P256(), X: coord(hdr.JWK["x"]), Y: coord(hdr.JWK["y"])}
	_, claims := verifyJWT(t, proof, pub)
	if claims["htm"] != method || claims["htu"] != htu {
		t.Errorf("htm %v htu %v, want %s %s", claims["htm"], claims["htu"], method, htu)
	}
	if iat, _ := claims["iat"].(float64); time.Since(time.Unix(int64(iat), 0)).Abs() > time.Minute {
		t.Errorf("iat %v is not now", claims["iat"])
	}
	if jti, _ := claims["jti"].(string); len(jti) < 16 {
		t.Errorf("jti %q is not a unique random id", jti)
	}
	wantAth := ""
	if token != "" {
		sum := sha256.Sum256([]byte(token))
		wantAth = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	if got, _ := claims["ath"].(string); got != wantAth {
		t.Errorf("ath %q, want %q", got, wantAth)
	}
	if got, _ := claims["nonce"].(string); got != nonce {
		t.Errorf("nonce %q, want %q", got, nonce)
	}
	canon := `{"crv":"P-256","kty":"EC","x":"` + hdr.JWK["x"] + `","y":"` + hdr.JWK["y"] + `"}`
	sum := sha256.Sum256([]byte(canon))
	return claims, base64.RawURLEncoding.EncodeToString(sum[:])
}

func TestDPoPProof(t *testing.T) {
	tests := []struct {
		name, method, url, token, nonce, wantHTU string
	}{
		{name: "token request", method: "POST", url: "https://as.example/token", wantHTU: "https://as.example/token"},
		{name: "resource request with ath", method: "POST", url: "https://rs.example/mcp", token: "tok-SECRET", wantHTU: "https://rs.example/mcp"},
		{name: "GET drops query and fragment", method: "GET", url: "https://rs.example/mcp?a=1#frag", token: "access-token-xyz", wantHTU: "https://rs.example/mcp"},
		{name: "with the origin's nonce", method: "POST", url: "https://rs.example/mcp", token: "access-token-xyz", nonce: "n-123", wantHTU: "https://rs.example/mcp"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := NewDPoP(nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.nonce != "" {
				h := http.Header{}
				h.Set("DPoP-Nonce", tc.nonce)
				if !d.noteNonce(mustURL(t, tc.url), h) {
					t.Fatal("a first nonce is not reported as new")
				}
				if d.noteNonce(mustURL(t, tc.url), h) {
					t.Error("the same nonce again is reported as new")
				}
			}
			p1, err := d.Proof(tc.method, tc.url, tc.token)
			if err != nil {
				t.Fatal(err)
			}
			c1, thumb := checkProof(t, p1, tc.method, tc.wantHTU, tc.token, tc.nonce)
			if thumb != d.Thumbprint() {
				t.Errorf("Thumbprint %s, want %s (RFC 7638 of the proof's jwk)", d.Thumbprint(), thumb)
			}
			p2, _ := d.Proof(tc.method, tc.url, tc.token)
			c2, _ := checkProof(t, p2, tc.method, tc.wantHTU, tc.token, tc.nonce)
			if c1["jti"] == c2["jti"] {
				t.Error("two proofs share a jti")
			}
			for _, part := range strings.Split(p1, ".")[:2] {
				raw, _ := base64.RawURLEncoding.DecodeString(part)
				if tc.token != "" && strings.Contains(string(raw), tc.token) {
					t.Error("the proof carries the access token itself")
				}
			}
		})
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// dpopAS is an authorization server whose token endpoint wants a DPoP
// proof (and, if nonce is set, that nonce in it), for the client
// credentials grant.
type dpopAS struct {
	t         *testing.T
	srv       *httptest.Server
	nonce     string // required nonce ("" none)
	tokenType string // token_type issued
	mu        sync.Mutex
	proofs    []string
	thumbs    []string
}

func newDPoPAS(t *testing.T, nonce, tokenType string) *dpopAS {
	a := &dpopAS{t: t, nonce: nonce, tokenType: tokenType}
	a.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		base := a.srv.URL
		js := func(status int, v any) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			json.NewEncoder(w).Encode(v)
		}
		switch r.URL.Path {
		case "/.well-known/oauth-protected-resource/mcp":
			js(200, map[string]any{"resource": base + "/mcp", "authorization_servers": []string{base}})
		case "/.well-known/oauth-authorization-server":
			js(200, map[string]any{"issuer": base, "token_endpoint": base + "/token", "dpop_signing_alg_values_supported": []string{"ES256"}})
		case "/token":
			proof := r.Header.Get("DPoP")
			a.mu.Lock()
			a.proofs = append(a.proofs, proof)
			a.mu.Unlock()
			if proof == "" {
				js(400, map[string]string{"error": "invalid_dpop_proof"})
				return
			}
			var claims map[string]any
			raw, _ := base64.RawURLEncoding.DecodeString(strings.Split(proof, ".")[1])
			json.Unmarshal(raw, &claims)
			if a.nonce != "" && claims["nonce"] != a.nonce {
				w.Header().Set("DPoP-Nonce", a.nonce)
				js(400, map[string]string{"error": useDPoPNonce, "error_description": "nonce please"})
				return
			}
			_, thumb := checkProof(t, proof, "POST", base+"/token", "", a.nonce)
			a.mu.Lock()
			a.thumbs = append(a.thumbs, thumb)
			a.mu.Unlock()
			js(200, map[string]any{"access_token": "dpop-token-SECRET", "token_type": a.tokenType})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(a.srv.Close)
	return a
}

func TestDPoPTokenRequest(t *testing.T) {
	tests := []struct {
		name       string
		nonce      string
		tokenType  string
		dpop       bool
		wantProofs int
		wantBound  bool
		wantErr    string
	}{
		{name: "proof, DPoP-bound token", tokenType: "DPoP", dpop: true, wantProofs: 1, wantBound: true},
		{name: "nonce asked: one retry with it", nonce: "as-nonce-1", tokenType: "DPoP", dpop: true, wantProofs: 2, wantBound: true},
		{name: "server ignores DPoP: Bearer token, not bound", tokenType: "Bearer", dpop: true, wantProofs: 1},
		{name: "DPoP token without dpop configured", tokenType: "DPoP", dpop: false, wantProofs: 1, wantErr: "oauth.dpop = true"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := newDPoPAS(t, tc.nonce, tc.tokenType)
			if !tc.dpop {
				// Without DPoP the server here refuses a proofless request:
				// let it answer anyway so the token_type check is reached.
				a.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.URL.Path == "/token" {
						a.mu.Lock()
						a.proofs = append(a.proofs, r.Header.Get("DPoP"))
						a.mu.Unlock()
						w.Header().Set("Content-Type", "application/json")
						w.Write([]byte(`{"access_token":"dpop-token-SECRET","token_type":"DPoP"}`))
						return
					}
					base := a.srv.URL
					w.Header().Set("Content-Type", "application/json")
					switch r.URL.Path {
					case "/.well-known/oauth-protected-resource/mcp":
						json.NewEncoder(w).Encode(map[string]any{"resource": base + "/mcp", "authorization_servers": []string{base}})
					case "/.well-known/oauth-authorization-server":
						json.NewEncoder(w).Encode(map[string]any{"issuer": base, "token_endpoint": base + "/token"})
					default:
						http.NotFound(w, r)
					}
				})
			}
			f, err := New(Config{ServerURL: a.srv.URL + "/mcp", Grant: GrantClientCredentials, ClientID: testClientID, ClientSecret: testSecret, DPoP: tc.dpop})
			if err != nil {
				t.Fatal(err)
			}
			cred, err := f.Authorize(ctx(t), Challenge{}, nil)
			a.mu.Lock()
			proofs := a.proofs
			thumbs := a.thumbs
			a.mu.Unlock()
			if len(proofs) != tc.wantProofs {
				t.Errorf("%d token requests, want %d", len(proofs), tc.wantProofs)
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want one containing %q", err, tc.wantErr)
				}
				if strings.Contains(err.Error(), "SECRET") {
					t.Errorf("the error carries a secret: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Authorize: %v", err)
			}
			if len(thumbs) != 1 || thumbs[0] != f.DPoP().Thumbprint() {
				t.Errorf("verified proof thumbprints %v, want the flow's key %s", thumbs, f.DPoP().Thumbprint())
			}
			if got := f.DPoP().Bound(cred.AccessToken); got != tc.wantBound {
				t.Errorf("Bound = %v, want %v", got, tc.wantBound)
			}
		})
	}
}

func TestDPoPTokenNonceRetriedOnce(t *testing.T) {
	a := newDPoPAS(t, "", "DPoP")
	// A server that asks for a new nonce every time: one retry, then the
	// error stands.
	n := 0
	a.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++
		w.Header().Set("DPoP-Nonce", strings.Repeat("n", n))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(400)
		w.Write([]byte(`{"error":"use_dpop_nonce"}`))
	})
	f, err := New(Config{ServerURL: a.srv.URL + "/mcp", Grant: GrantClientCredentials, ClientID: testClientID, ClientSecret: testSecret, DPoP: true})
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.requestToken(ctx(t), f.tokenHTTP, a.srv.URL+"/token", clientInfo{id: testClientID, secret: testSecret, auth: AuthBasic}, map[string][]string{"grant_type": {"client_credentials"}}, "requesting", clientHint)
	if err == nil || !strings.Contains(err.Error(), useDPoPNonce) {
		t.Fatalf("err %v, want the use_dpop_nonce refusal", err)
	}
	if n != 2 {
		t.Errorf("%d token requests, want 2 (one retry)", n)
	}
}

func TestDPoPRoundTripper(t *testing.T) {
	const tok = "bound-token-SECRET"
	tests := []struct {
		name       string
		bound      bool
		rsNonce    string // the resource server wants this nonce
		alwaysNew  bool   // ... and a new one every time
		wantStatus int
		wantTries  int
		wantScheme string
	}{
		{name: "bound token: DPoP scheme and proof", bound: true, wantStatus: 200, wantTries: 1, wantScheme: "DPoP"},
		{name: "unbound token passes as Bearer", bound: false, wantStatus: 200, wantTries: 1, wantScheme: "Bearer"},
		{name: "nonce challenge: retried with it", bound: true, rsNonce: "rs-nonce", wantStatus: 200, wantTries: 2, wantScheme: "DPoP"},
		{name: "nonce challenge again: one retry only", bound: true, rsNonce: "rs-nonce", alwaysNew: true, wantStatus: 401, wantTries: 2, wantScheme: "DPoP"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := NewDPoP(nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.bound {
				d.bind(tok)
			}
			var tries int
			var scheme string
			var srv *httptest.Server
			srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				tries++
				body, _ := io.ReadAll(r.Body)
				if string(body) != `{"jsonrpc":"2.0"}` {
					t.Errorf("try %d: body %q, want the request's body", tries, body)
				}
				s, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
				scheme = s
				if token != tok {
					t.Errorf("token %q", token)
				}
				if s == "Bearer" {
					if r.Header.Get("DPoP") != "" {
						t.Error("a proof went with a Bearer token")
					}
					return
				}
				want := ""
				if tries > 1 {
					want = tc.rsNonce
					if tc.alwaysNew {
						want = tc.rsNonce + "1"
					}
				}
				checkProof(t, r.Header.Get("DPoP"), "POST", srv.URL+"/mcp", tok, want)
				if tc.rsNonce != "" && (tries == 1 || tc.alwaysNew) {
					nonce := tc.rsNonce
					if tries > 1 {
						nonce += "2"
					} else if tc.alwaysNew {
						nonce += "1"
					}
					w.Header().Set("DPoP-Nonce", nonce)
					w.Header().Set("WWW-Authenticate", `DPoP error="use_dpop_nonce", error_description="nonce"`)
					w.WriteHeader(401)
				}
			}))
			defer srv.Close()
			hc := &http.Client{Transport: d.RoundTripper(nil)}
			req, _ := http.NewRequest("POST", srv.URL+"/mcp?x=1", strings.NewReader(`{"jsonrpc":"2.0"}`))
			req.Header.Set("Authorization", "Bearer "+tok)
			// The proof's htu has no query; the server checks /mcp.
			resp, err := hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.wantStatus || tries != tc.wantTries || scheme != tc.wantScheme {
				t.Errorf("status %d after %d tries with %s, want %d after %d with %s", resp.StatusCode, tries, scheme, tc.wantStatus, tc.wantTries, tc.wantScheme)
			}
			if got := req.Header.Get("Authorization"); got != "Bearer "+tok {
				t.Errorf("the caller's request was changed: Authorization %q", got)
			}
		})
	}
}

func TestParseChallengeDPoP(t *testing.T) {
	c := ParseChallenge(`DPoP algs="ES256", resource_metadata="https://rs.example/.well-known/oauth-protected-resource/mcp"`)
	if c.ResourceMetadata != "https://rs.example/.well-known/oauth-protected-resource/mcp" {
		t.Errorf("a DPoP-only challenge's resource_metadata %q not read", c.ResourceMetadata)
	}
	c = ParseChallenge(`DPoP resource_metadata="https://a/dpop", Bearer resource_metadata="https://a/bearer"`)
	if c.ResourceMetadata != "https://a/bearer" {
		t.Errorf("resource_metadata %q: the Bearer challenge comes first", c.ResourceMetadata)
	}
	if !wantsNonce(http.Header{"Www-Authenticate": {`DPoP error="use_dpop_nonce"`}}) || wantsNonce(http.Header{"Www-Authenticate": {`Bearer error="invalid_token"`}}) {
		t.Error("wantsNonce misreads the challenge")
	}
}

// A DPoP key stored with a credential works in another process: same key
// (thumbprint), the token known as bound; a bad stored key is refused.
func TestDPoPKeyAdopted(t *testing.T) {
	a, err := NewDPoP(nil)
	if err != nil {
		t.Fatal(err)
	}
	stored := a.KeyPEM()
	if !strings.HasPrefix(stored, "-----BEGIN PRIVATE KEY-----") {
		t.Fatalf("KeyPEM: %.40q", stored)
	}
	b, _ := NewDPoP(nil)
	if b.Thumbprint() == a.Thumbprint() {
		t.Fatal("two fresh keys alike")
	}
	if err := b.Adopt(stored, "tok-1"); err != nil {
		t.Fatal(err)
	}
	if b.Thumbprint() != a.Thumbprint() || !b.Bound("tok-1") {
		t.Errorf("adopted key: thumbprint %s want %s, bound %v", b.Thumbprint(), a.Thumbprint(), b.Bound("tok-1"))
	}
	for _, bad := range []string{"", "not pem", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"} {
		if err := b.Adopt(bad, "x"); errs.KindOf(err) != errs.Invalid || !strings.Contains(err.Error(), "luagent mcp login") {
			t.Errorf("Adopt(%.20q): %v", bad, err)
		}
	}
}
