package oauth

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/luagent/luagent/runtime/errs"
)

// DPoP is a client's proof-of-possession key (RFC 9449, Config.DPoP): a
// P-256 key made for this client, never stored, whose proofs go with every
// token request and with every request that presents a DPoP-bound token.
// It remembers the nonces servers supplied (DPoP-Nonce), per origin, and
// which access tokens were issued bound to it. Safe for concurrent use.
type DPoP struct {
	key *signingKey
	jwk map[string]any
	now func() time.Time

	mu     sync.Mutex
	nonces map[string]string   // origin -> the last DPoP-Nonce it sent
	bound  map[string]struct{} // access tokens issued as token_type DPoP
}

// The DPoP error code a server answers when it wants (another) nonce.
const useDPoPNonce = "use_dpop_nonce"

// maxBound bounds the remembered DPoP-bound tokens (older ones are
// forgotten; a forgotten token is sent as Bearer and refused, which
// authorizes again).
const maxBound = 16

// NewDPoP makes a fresh DPoP key pair. now is the clock (nil: time.Now).
func NewDPoP(now func() time.Time) (*DPoP, error) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, errs.New(errs.Internal, "oauth", "making a DPoP key failed")
	}
	pub, err := priv.PublicKey.ECDH()
	if err != nil {
		return nil, errs.New(errs.Internal, "oauth", "making a DPoP key failed")
	}
	raw := pub.Bytes() // 0x04 || X || Y, 32 bytes each
	b64 := base64.RawURLEncoding.EncodeToString
	if now == nil {
		now = time.Now
	}
	return &DPoP{
		key:    &signingKey{alg: "ES256", key: priv},
		jwk:    map[string]any{"kty": "EC", "crv": "P-256", "x": b64(raw[1:33]), "y": b64(raw[33:65])},
		now:    now,
		nonces: map[string]string{},
		bound:  map[string]struct{}{},
	}, nil
}

// Thumbprint is the RFC 7638 SHA-256 thumbprint of the public key (what a
// bound token's cnf.jkt names).
func (d *DPoP) Thumbprint() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	// The required members in lexicographic order, no whitespace.
	s := `{"crv":"P-256","kty":"EC","x":"` + d.jwk["x"].(string) + `","y":"` + d.jwk["y"].(string) + `"}`
	sum := sha256.Sum256([]byte(s))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// Proof returns a DPoP proof JWT for one request (RFC 9449 §4.2): typ
// dpop+jwt, the public key as jwk, a unique jti, htm, htu (the URL without
// query and fragment), iat, the origin's last nonce if any, and ath (the
// access token's SHA-256) when accessToken is not "".
func (d *DPoP) Proof(method, rawURL, accessToken string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return "", errs.New(errs.Invalid, "oauth", "a DPoP proof needs an absolute request URL")
	}
	htu := *u
	htu.RawQuery, htu.Fragment, htu.RawFragment, htu.User, htu.ForceQuery = "", "", "", nil, false
	claims := map[string]any{
		"jti": randomString(),
		"htm": method,
		"htu": htu.String(),
		"iat": d.now().Unix(),
	}
	if n := d.nonce(u); n != "" {
		claims["nonce"] = n
	}
	if accessToken != "" {
		sum := sha256.Sum256([]byte(accessToken))
		claims["ath"] = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	d.mu.Lock()
	key, jwk := d.key, d.jwk
	d.mu.Unlock()
	return key.signWithHeader(map[string]any{"typ": "dpop+jwt", "jwk": jwk}, claims)
}

// KeyPEM is the private key as PKCS#8 PEM, to store with the credential
// whose tokens are bound to it (another process can then present them).
func (d *DPoP) KeyPEM() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	der, err := x509.MarshalPKCS8PrivateKey(d.key.key)
	if err != nil {
		return ""
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
}

// Adopt takes a stored key (KeyPEM) and the access token bound to it, so a
// credential saved by another process works here.
func (d *DPoP) Adopt(keyPEM, accessToken string) error {
	block, _ := pem.Decode([]byte(keyPEM))
	if block == nil {
		return errs.New(errs.Invalid, "oauth", "the stored DPoP key is not PEM; run `luagent mcp login URL` to authorize again")
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	priv, ok := k.(*ecdsa.PrivateKey)
	if err != nil || !ok || priv.Curve != elliptic.P256() {
		return errs.New(errs.Invalid, "oauth", "the stored DPoP key is not a P-256 key; run `luagent mcp login URL` to authorize again")
	}
	pub, err := priv.PublicKey.ECDH()
	if err != nil {
		return errs.New(errs.Invalid, "oauth", "the stored DPoP key is unusable; run `luagent mcp login URL` to authorize again")
	}
	raw := pub.Bytes()
	b64 := base64.RawURLEncoding.EncodeToString
	d.mu.Lock()
	d.key = &signingKey{alg: "ES256", key: priv}
	d.jwk = map[string]any{"kty": "EC", "crv": "P-256", "x": b64(raw[1:33]), "y": b64(raw[33:65])}
	d.mu.Unlock()
	if accessToken != "" {
		d.bind(accessToken)
	}
	return nil
}

func origin(u *url.URL) string { return strings.ToLower(u.Scheme + "://" + u.Host) }

func (d *DPoP) nonce(u *url.URL) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.nonces[origin(u)]
}

// noteNonce keeps the DPoP-Nonce of a response from u's origin and reports
// whether it is new (a retry with it may succeed).
func (d *DPoP) noteNonce(u *url.URL, h http.Header) bool {
	n := strings.TrimSpace(h.Get("DPoP-Nonce"))
	if n == "" {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	o := origin(u)
	if d.nonces[o] == n {
		return false
	}
	d.nonces[o] = n
	return true
}

// bind records that accessToken was issued bound to this key.
func (d *DPoP) bind(accessToken string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.bound) >= maxBound {
		clear(d.bound)
	}
	d.bound[accessToken] = struct{}{}
}

// Bound reports whether accessToken was issued bound to this key.
func (d *DPoP) Bound(accessToken string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	_, ok := d.bound[accessToken]
	return ok
}

// wantsNonce reports whether a resource server's refusal asks for a DPoP
// nonce: its DPoP challenge's error (RFC 9449 §9).
func wantsNonce(h http.Header) bool {
	for _, ch := range parseChallenges(strings.Join(h.Values("WWW-Authenticate"), ", ")) {
		if strings.EqualFold(ch.scheme, "DPoP") && ch.params["error"] == useDPoPNonce {
			return true
		}
	}
	return false
}

// nonceRefusal reports whether resp refuses the request for want of a
// (new) DPoP nonce: a resource server's 401 (wantsNonce), or the token
// endpoint's 400 use_dpop_nonce error (§8), whose body is read to tell and
// put back.
func (t *dpopTransport) nonceRefusal(resp *http.Response) bool {
	if !t.token {
		return resp.StatusCode == http.StatusUnauthorized && wantsNonce(resp.Header)
	}
	if resp.StatusCode != http.StatusBadRequest {
		return false
	}
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(raw))
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(raw, &e) != nil {
		q, _ := url.ParseQuery(string(raw)) // some answer form-encoded
		e.Error = q.Get("error")
	}
	return e.Error == useDPoPNonce
}

// RoundTripper wraps base (nil: http.DefaultTransport) so requests that
// carry a token bound to d ("Authorization: Bearer T", as the MCP
// transport sets it) go as "Authorization: DPoP T" with a fresh proof in
// the DPoP header; a 401 asking for a new nonce (use_dpop_nonce with
// DPoP-Nonce) is retried once with it. Other requests pass unchanged.
func (d *DPoP) RoundTripper(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &dpopTransport{d: d, base: base}
}

// tokenRoundTripper wraps base (nil: http.DefaultTransport) for token
// endpoint requests (the flow's client that x/oauth2 uses): each carries a
// DPoP proof without ath, and a 400 use_dpop_nonce with a new DPoP-Nonce is
// retried once with it (RFC 9449 §8).
func (d *DPoP) tokenRoundTripper(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &dpopTransport{d: d, base: base, token: true}
}

type dpopTransport struct {
	d     *DPoP
	base  http.RoundTripper
	token bool // token endpoint requests (tokenRoundTripper)
}

func (t *dpopTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var tok string // the bound access token a resource request presents
	if !t.token {
		var ok bool
		tok, ok = strings.CutPrefix(req.Header.Get("Authorization"), "Bearer ")
		if !ok || !t.d.Bound(tok) {
			return t.base.RoundTrip(req)
		}
	}
	for attempt := 0; ; attempt++ {
		r := req.Clone(req.Context())
		if attempt > 0 {
			if req.GetBody != nil {
				body, err := req.GetBody()
				if err != nil {
					return nil, err
				}
				r.Body = body
			}
		}
		proof, err := t.d.Proof(req.Method, req.URL.String(), tok)
		if err != nil {
			if attempt == 0 && req.Body != nil {
				req.Body.Close()
			}
			return nil, err
		}
		if tok != "" {
			r.Header.Set("Authorization", "DPoP "+tok)
		}
		r.Header.Set("DPoP", proof)
		resp, err := t.base.RoundTrip(r)
		if err != nil {
			return nil, err
		}
		fresh := t.d.noteNonce(req.URL, resp.Header)
		canResend := req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
		if attempt == 0 && fresh && canResend && t.nonceRefusal(resp) {
			io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
			resp.Body.Close()
			continue
		}
		return resp, nil
	}
}
