// The bearer-token guard (RFC 6750) and the Protected Resource Metadata
// (RFC 9728) of the endpoint: see the package doc.

package httpserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/luagent/luagent/runtime/errs"
)

// WellKnown is the RFC 9728 well-known path; the metadata of the endpoint
// /mcp is served at WellKnown + "/mcp".
const WellKnown = "/.well-known/oauth-protected-resource"

// A Validator decides whether a bearer token may use the endpoint. It
// returns nil to accept; an error of kind errs.Auth to refuse (its message
// becomes the challenge's error_description); any other error means the
// check itself failed (500, logged).
type Validator func(ctx context.Context, token string, r *http.Request) error

// Refuse returns the error a Validator returns to refuse a token.
func Refuse(reason string) error { return errs.New(errs.Auth, "", reason) }

// AuthConfig configures an Auth.
type AuthConfig struct {
	// Path is the protected endpoint's path ("/mcp").
	Path string
	// Resource is the endpoint's public URL, for a server behind a proxy.
	// Empty: each request's own scheme and Host, plus Path (or Origin when
	// a request has no Host).
	Resource string
	// Origin (scheme://host:port) stands in for a request without a Host.
	Origin string
	// AuthorizationServers are the issuers of the tokens (metadata
	// "authorization_servers").
	AuthorizationServers []string
	// Scopes are advertised as "scopes_supported" and in every challenge.
	Scopes []string
	// ResourceName is the human-readable "resource_name".
	ResourceName string
	// Validate checks each token. Required.
	Validate Validator
	// Log receives one line when a check fails with an error (500); the
	// token is replaced by [token] in it.
	Log func(msg string)
}

// Auth is a bearer-token guard and its metadata document. A nil *Auth lets
// every request through and serves no metadata.
type Auth struct {
	cfg      AuthConfig
	metaPath string
}

// New checks cfg and returns its Auth.
func NewAuth(cfg AuthConfig) (*Auth, error) {
	if cfg.Validate == nil {
		return nil, errs.New(errs.Invalid, "auth", "no token check configured (give a token or a validator)")
	}
	if !strings.HasPrefix(cfg.Path, "/") {
		return nil, errs.Errorf(errs.Invalid, "auth", "the endpoint path %q must start with /", cfg.Path)
	}
	if cfg.Resource != "" {
		if err := checkURL(cfg.Resource, false); err != nil {
			return nil, errs.Errorf(errs.Invalid, "auth", "resource %q %v", cfg.Resource, err)
		}
	}
	for _, s := range cfg.AuthorizationServers {
		if err := CheckServerURL(s); err != nil {
			return nil, err
		}
	}
	for _, s := range cfg.Scopes {
		if !validScope(s) {
			return nil, errs.Errorf(errs.Invalid, "auth", "scope %q is not a valid OAuth scope (no spaces, quotes or backslashes)", s)
		}
	}
	a := &Auth{cfg: cfg, metaPath: WellKnown}
	if cfg.Path != "/" {
		a.metaPath += cfg.Path
	}
	return a, nil
}

// StaticToken accepts exactly token, compared in constant time.
func StaticToken(token string) Validator {
	want := sha256.Sum256([]byte(token))
	return func(_ context.Context, got string, _ *http.Request) error {
		// Hashing first makes the comparison independent of the length too.
		h := sha256.Sum256([]byte(got))
		if subtle.ConstantTimeCompare(h[:], want[:]) == 1 {
			return nil
		}
		return Refuse("the token is not valid")
	}
}

// EnvToken reads a bearer token from the environment variable name. The
// error names the variable, never its value.
func EnvToken(name string) (string, error) {
	v, ok := os.LookupEnv(name)
	switch {
	case !ok:
		return "", errs.Errorf(errs.Invalid, "auth", "environment variable %s is not set: export %s=<token> before starting the server", name, name)
	case v == "":
		return "", errs.Errorf(errs.Invalid, "auth", "environment variable %s is empty: set it to the token clients must send", name)
	case !validToken(v):
		return "", errs.Errorf(errs.Invalid, "auth", "the token in %s has spaces, control or non-ASCII characters, which a Bearer header cannot carry", name)
	}
	return v, nil
}

// CheckServerURL checks an authorization server's issuer URL: https, or
// http on a loopback host (for local testing); no query or fragment.
func CheckServerURL(s string) error {
	if err := checkURL(s, true); err != nil {
		return errs.Errorf(errs.Invalid, "", "authorization server %q %v", s, err)
	}
	return nil
}

func checkURL(s string, issuer bool) error {
	u, err := url.Parse(s)
	switch {
	case err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http"):
		return errors.New("is not an absolute http(s) URL")
	case u.Fragment != "" || strings.Contains(s, "#"):
		return errors.New("must not have a fragment")
	case issuer && u.RawQuery != "":
		return errors.New("must not have a query")
	case issuer && u.Scheme == "http" && !isLoopback(u.Hostname()):
		return errors.New("must use https (http is only for localhost)")
	}
	return nil
}

func isLoopback(h string) bool {
	h = strings.ToLower(h)
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// validToken: visible ASCII only (RFC 6750's b64token is stricter; tokens
// chosen by people often are not, and the comparison decides anyway).
func validToken(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return s != ""
}

// validScope: RFC 6749 scope-token characters.
func validScope(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x21 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return s != ""
}

// MetadataPath is where ServeMetadata belongs on the mux:
// /.well-known/oauth-protected-resource followed by the endpoint's path.
func (a *Auth) MetadataPath() string { return a.metaPath }

// Wrap guards next: requests Check refuses never reach it.
func (a *Auth) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a.Check(w, r) {
			next.ServeHTTP(w, r)
		}
	})
}

// Check reports whether r carries an acceptable bearer token; when not, it
// has written the refusal (401, 400 or 500). CORS preflights (OPTIONS)
// pass: browsers never put credentials on them.
func (a *Auth) Check(w http.ResponseWriter, r *http.Request) bool {
	if a == nil || r.Method == http.MethodOptions {
		return true
	}
	vals := r.Header.Values("Authorization")
	if len(vals) == 0 {
		a.refuse(w, r, http.StatusUnauthorized, "", "send Authorization: Bearer <token>")
		return false
	}
	if len(vals) > 1 {
		a.refuse(w, r, http.StatusBadRequest, "invalid_request", "send one Authorization header, not several")
		return false
	}
	scheme, token, _ := strings.Cut(strings.TrimSpace(vals[0]), " ")
	if !strings.EqualFold(scheme, "Bearer") {
		// Another scheme is no bearer credential at all: a plain challenge
		// (RFC 6750 §3).
		a.refuse(w, r, http.StatusUnauthorized, "", "the Authorization header must use the Bearer scheme")
		return false
	}
	token = strings.TrimSpace(token)
	if token == "" {
		a.refuse(w, r, http.StatusBadRequest, "invalid_request", "the Bearer token is empty")
		return false
	}
	if !validToken(token) {
		a.refuse(w, r, http.StatusBadRequest, "invalid_request", "the Bearer token has spaces, control or non-ASCII characters")
		return false
	}
	err := a.cfg.Validate(r.Context(), token, r)
	switch {
	case err == nil:
		return true
	case errs.KindOf(err) == errs.Auth:
		reason := redact(errs.Message(err), token)
		if reason == "" {
			reason = "the token is not valid"
		}
		a.refuse(w, r, http.StatusUnauthorized, "invalid_token", reason)
	default:
		if a.cfg.Log != nil {
			a.cfg.Log("auth: the token check failed: " + redact(err.Error(), token))
		}
		writeAuthError(w, http.StatusInternalServerError, "internal error: the token check failed (the server's log says why)")
	}
	return false
}

// redact replaces every occurrence of token in s.
func redact(s, token string) string {
	if token == "" {
		return s
	}
	return strings.ReplaceAll(s, token, "[token]")
}

// refuse writes a challenge: status 401 (or 400 for invalid_request) with
// WWW-Authenticate naming the metadata document, and a JSON-RPC error body
// that says what to do.
func (a *Auth) refuse(w http.ResponseWriter, r *http.Request, status int, code, desc string) {
	var b strings.Builder
	b.WriteString(`Bearer resource_metadata="`)
	b.WriteString(quotable(a.metadataURL(r)))
	b.WriteByte('"')
	if len(a.cfg.Scopes) > 0 {
		b.WriteString(`, scope="` + strings.Join(a.cfg.Scopes, " ") + `"`)
	}
	if code != "" {
		b.WriteString(`, error="` + code + `", error_description="` + quotable(desc) + `"`)
	}
	w.Header().Set("WWW-Authenticate", b.String())
	prefix := "unauthorized: "
	if status == http.StatusBadRequest {
		prefix = "bad request: "
	}
	writeAuthError(w, status, prefix+desc)
}

// writeAuthError answers with a JSON-RPC error body (what MCP clients show).
func writeAuthError(w http.ResponseWriter, status int, msg string) {
	code := -32600 // Invalid Request
	if status >= 500 {
		code = -32603 // Internal error
	}
	type rpcError struct {
		Code    int            `json:"code"`
		Message string         `json:"message"`
		Data    map[string]int `json:"data"`
	}
	var body bytes.Buffer
	enc := json.NewEncoder(&body)
	enc.SetEscapeHTML(false)
	enc.Encode(struct {
		JSONRPC string   `json:"jsonrpc"`
		ID      any      `json:"id"`
		Error   rpcError `json:"error"`
	}{"2.0", nil, rpcError{code, msg, map[string]int{"httpStatus": status}}})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(body.Bytes())
}

// quotable keeps the characters RFC 6750 allows in a quoted
// error_description (%x20-21 / %x23-5B / %x5D-7E), replacing the rest, and
// bounds the length.
func quotable(s string) string {
	b := []byte(s)
	if len(b) > 300 {
		b = b[:300]
	}
	for i, c := range b {
		switch {
		case c == '"':
			b[i] = '\''
		case c == '\\' || c < 0x20 || c > 0x7e:
			b[i] = ' '
		}
	}
	return string(b)
}

// resourceURL is the endpoint's URL as r reached it (or AuthConfig.Resource).
func (a *Auth) resourceURL(r *http.Request) string {
	if a.cfg.Resource != "" {
		return a.cfg.Resource
	}
	return a.origin(r) + a.cfg.Path
}

// metadataURL is the metadata document's URL: the well-known path inserted
// between the resource URL's host and path (RFC 9728 §3.1).
func (a *Auth) metadataURL(r *http.Request) string {
	if a.cfg.Resource != "" {
		u, _ := url.Parse(a.cfg.Resource)
		p := strings.TrimSuffix(u.EscapedPath(), "/")
		return u.Scheme + "://" + u.Host + WellKnown + p
	}
	return a.origin(r) + a.metaPath
}

func (a *Auth) origin(r *http.Request) string {
	if r.Host == "" && a.cfg.Origin != "" {
		return a.cfg.Origin
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// metadata is the RFC 9728 document.
type metadata struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers,omitempty"`
	ScopesSupported        []string `json:"scopes_supported,omitempty"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
	ResourceName           string   `json:"resource_name,omitempty"`
}

// ServeMetadata serves the Protected Resource Metadata document. It needs
// no token and may be read from any origin: it is public by design.
func (a *Auth) ServeMetadata(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	switch r.Method {
	case http.MethodGet, http.MethodHead:
	case http.MethodOptions:
		h.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
		h.Set("Access-Control-Allow-Headers", "MCP-Protocol-Version")
		w.WriteHeader(http.StatusNoContent)
		return
	default:
		h.Set("Allow", "GET, HEAD, OPTIONS")
		http.Error(w, "method not allowed: GET the protected resource metadata", http.StatusMethodNotAllowed)
		return
	}
	body, _ := json.MarshalIndent(metadata{
		Resource:               a.resourceURL(r),
		AuthorizationServers:   a.cfg.AuthorizationServers,
		ScopesSupported:        a.cfg.Scopes,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           a.cfg.ResourceName,
	}, "", "  ")
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "max-age=300")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		w.Write(append(body, '\n'))
	}
}
