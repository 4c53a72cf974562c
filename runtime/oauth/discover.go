package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/secret"
)

// maxBody caps any metadata, registration or token response.
const maxBody = 1 << 20

// resourceMetadata is an RFC 9728 protected-resource metadata document.
type resourceMetadata struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported"`
}

// serverMetadata is RFC 8414 authorization-server metadata (or an OpenID
// provider configuration): the fields the flow uses.
type serverMetadata struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RegistrationEndpoint              string   `json:"registration_endpoint"`
	ScopesSupported                   []string `json:"scopes_supported"`
	ResponseTypesSupported            []string `json:"response_types_supported"`
	GrantTypesSupported               []string `json:"grant_types_supported"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
	ClientIDMetadataDocumentSupported bool     `json:"client_id_metadata_document_supported"`
	IssParameterSupported             bool     `json:"authorization_response_iss_parameter_supported"`

	from     string // the URL it was fetched from ("" when defaulted)
	defaults bool   // 2025-03-26 fallback: no metadata, default endpoints
}

// getJSON fetches url into v. found is false for a 4xx answer (the next
// well-known URL may have it); err is a network failure, another status, or
// a body that is not the JSON expected (kind protocol).
func (f *Flow) getJSON(ctx context.Context, rawURL, what string, v any) (found bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return false, errs.Errorf(errs.Protocol, "oauth", "%s URL %q is not valid: %v", what, secret.URL(rawURL), secret.URLError(err))
	}
	req.Header.Set("Accept", "application/json")
	resp, err := f.http.Do(req)
	if err != nil {
		return false, f.netError(ctx, "fetching the "+what+" from "+secret.URL(rawURL), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 && resp.StatusCode < 500 {
		io.Copy(io.Discard, io.LimitReader(resp.Body, maxBody))
		return false, nil
	}
	if resp.StatusCode != http.StatusOK {
		return false, errs.Errorf(errs.Protocol, "oauth", "the %s at %s answered HTTP %d; try again later or report it to the server's operator", what, rawURL, resp.StatusCode)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxBody)).Decode(v); err != nil {
		return false, errs.Errorf(errs.Protocol, "oauth", "the %s at %s is not valid JSON metadata (%v); report it to the server's operator", what, rawURL, jsonProblem(err))
	}
	return true, nil
}

// jsonProblem describes a JSON decoding error without quoting the input.
func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("field %q has the wrong type", te.Field)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("syntax error at byte %d", se.Offset)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return "empty or truncated body"
	}
	return "undecodable body"
}

// discoverResource finds the protected-resource metadata: at the
// challenge's resource_metadata URL when given, else at the path-aware
// well-known URL, then the root one (MCP authorization, "Protected
// Resource Metadata Discovery Requirements"). It returns nil, nil when the
// server publishes none at the well-known URLs (a 2025-03-26 server).
func (f *Flow) discoverResource(ctx context.Context, ch Challenge) (*resourceMetadata, string, error) {
	if ch.ResourceMetadata != "" {
		u, err := f.server.Parse(ch.ResourceMetadata)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
			return nil, "", errs.Errorf(errs.Protocol, "oauth", "the server's challenge names resource metadata at %q, which is not an http(s) URL; report it to the server's operator", ch.ResourceMetadata)
		}
		var m resourceMetadata
		found, err := f.getJSON(ctx, u.String(), "protected resource metadata", &m)
		if err != nil {
			return nil, "", err
		}
		if !found {
			return nil, "", errs.Errorf(errs.Protocol, "oauth", "the protected resource metadata the server names (%s) is not there; report it to the server's operator", secret.URL(u.String()))
		}
		return &m, u.String(), nil
	}
	origin := f.server.Scheme + "://" + f.server.Host
	var urls []string
	if p := strings.TrimSuffix(f.server.EscapedPath(), "/"); p != "" {
		urls = append(urls, origin+"/.well-known/oauth-protected-resource"+p)
	}
	urls = append(urls, origin+"/.well-known/oauth-protected-resource")
	for _, u := range urls {
		var m resourceMetadata
		found, err := f.getJSON(ctx, u, "protected resource metadata", &m)
		if err != nil {
			return nil, "", err
		}
		if found {
			return &m, u, nil
		}
	}
	return nil, "", nil
}

// checkResource validates a protected-resource metadata document against
// the server URL (RFC 9728 §3.3): the resource must name this server — the
// same origin, and the same path or a path prefix of it (a server at
// /mcp may publish its origin as the resource). Anything else is refused.
func (f *Flow) checkResource(m *resourceMetadata, from string) error {
	if m.Resource == "" {
		return errs.Errorf(errs.Protocol, "oauth", "the protected resource metadata at %s has no resource; report it to the server's operator", secret.URL(from))
	}
	if len(m.AuthorizationServers) == 0 {
		return errs.Errorf(errs.Protocol, "oauth", "the protected resource metadata at %s lists no authorization_servers; report it to the server's operator", secret.URL(from))
	}
	r, err := url.Parse(m.Resource)
	if err != nil || !sameResource(f.server, r) {
		return errs.Errorf(errs.Auth, "oauth", "the protected resource metadata at %s is for %q, not %s; refusing to authorize (check the server URL: the metadata may be misconfigured or forged)", secret.URL(from), secret.URL(m.Resource), secret.URL(f.resource))
	}
	return nil
}

// ResourceCovers reports whether resource (an RFC 8707 resource a token
// was issued for) identifies the MCP server at serverURL, by the rule the
// protected resource metadata's resource is checked with: same scheme,
// host and port, and a path equal to the server's or a whole-segment
// prefix of it.
func ResourceCovers(resource, serverURL string) bool {
	r, err1 := url.Parse(resource)
	s, err2 := url.Parse(serverURL)
	return err1 == nil && err2 == nil && s.Host != "" && sameResource(s, r)
}

// sameResource reports whether resource r identifies the server at s: same
// scheme, host and port (case-insensitive; default ports elided) and a path
// equal to s's or a whole-segment prefix of it; no fragment.
func sameResource(s, r *url.URL) bool {
	if r.Fragment != "" || r.Host == "" || !strings.EqualFold(s.Scheme, r.Scheme) || hostPort(s) != hostPort(r) {
		return false
	}
	sp := strings.TrimSuffix(s.EscapedPath(), "/")
	rp := strings.TrimSuffix(r.EscapedPath(), "/")
	return rp == sp || rp == "" || strings.HasPrefix(sp, rp+"/")
}

func hostPort(u *url.URL) string {
	h, p := strings.ToLower(u.Hostname()), u.Port()
	if (p == "443" && strings.EqualFold(u.Scheme, "https")) || (p == "80" && strings.EqualFold(u.Scheme, "http")) {
		p = ""
	}
	return h + ":" + p
}

// serverMetadataURLs returns the well-known URLs to try for an issuer, in
// the spec's order: for an issuer with a path, RFC 8414 path insertion,
// OIDC path insertion, OIDC path appending; without one, RFC 8414 then OIDC.
func serverMetadataURLs(issuer *url.URL) []string {
	origin := issuer.Scheme + "://" + issuer.Host
	p := strings.TrimSuffix(issuer.EscapedPath(), "/")
	if p == "" {
		return []string{
			origin + "/.well-known/oauth-authorization-server",
			origin + "/.well-known/openid-configuration",
		}
	}
	return []string{
		origin + "/.well-known/oauth-authorization-server" + p,
		origin + "/.well-known/openid-configuration" + p,
		origin + p + "/.well-known/openid-configuration",
	}
}

// discoverServer fetches the authorization server's metadata for issuer,
// trying the well-known URLs in order. A document whose issuer is not
// identical to the one the URL was built from is never used. With
// allowDefaults (no resource metadata: a 2025-03-26 server is its own
// authorization server), an issuer with no metadata gets the default
// endpoints /authorize, /token and /register.
func (f *Flow) discoverServer(ctx context.Context, issuer string, allowDefaults bool) (*serverMetadata, error) {
	iu, err := url.Parse(issuer)
	if err != nil || iu.Host == "" || (iu.Scheme != "https" && iu.Scheme != "http") || iu.RawQuery != "" || iu.Fragment != "" {
		return nil, errs.Errorf(errs.Protocol, "oauth", "authorization server %q is not a valid issuer (an https URL without query or fragment); report it to the server's operator", issuer)
	}
	if !secureURL(iu) {
		return nil, errs.Errorf(errs.Auth, "oauth", "authorization server %s is not HTTPS; refusing to authorize over plain HTTP (the spec requires HTTPS)", issuer)
	}
	var mismatch error
	for _, u := range serverMetadataURLs(iu) {
		var m serverMetadata
		found, err := f.getJSON(ctx, u, "authorization server metadata", &m)
		if err != nil {
			return nil, err
		}
		if !found {
			continue
		}
		if m.Issuer != issuer && !(allowDefaults && m.Issuer != "") {
			// (A 2025-03-26 server without resource metadata is its own
			// authorization server: that revision finds the metadata at
			// the server's origin and does not require the issuer to be
			// the origin, so its document is taken as found there.)
			if mismatch == nil {
				mismatch = errs.Errorf(errs.Auth, "oauth", "the authorization server metadata at %s names issuer %q, not %q; refusing to use it (RFC 8414 §3.3: it may be forged)", u, m.Issuer, issuer)
			}
			continue
		}
		m.from = u
		if err := m.check(!f.cfg.unattended()); err != nil {
			return nil, err
		}
		return &m, nil
	}
	if mismatch != nil {
		return nil, mismatch
	}
	if allowDefaults {
		base := strings.TrimSuffix(issuer, "/")
		return &serverMetadata{
			Issuer:                        issuer,
			AuthorizationEndpoint:         base + "/authorize",
			TokenEndpoint:                 base + "/token",
			RegistrationEndpoint:          base + "/register",
			CodeChallengeMethodsSupported: []string{"S256"},
			defaults:                      true,
		}, nil
	}
	return nil, errs.Errorf(errs.Protocol, "oauth", "authorization server %s publishes no metadata (tried %s); report it to the server's operator", issuer, strings.Join(serverMetadataURLs(iu), ", "))
}

// check validates the metadata the flow relies on: the endpoints (HTTPS),
// and for the authorization code flow (codeFlow) the code response type
// and PKCE S256, without which the client must refuse to proceed.
// Unattended grants need only the token endpoint.
func (m *serverMetadata) check(codeFlow bool) error {
	if (codeFlow && m.AuthorizationEndpoint == "") || m.TokenEndpoint == "" {
		return errs.Errorf(errs.Protocol, "oauth", "the authorization server metadata at %s lacks authorization_endpoint or token_endpoint; report it to the server's operator", m.from)
	}
	for _, e := range []struct{ name, v string }{
		{"authorization_endpoint", m.AuthorizationEndpoint},
		{"token_endpoint", m.TokenEndpoint},
		{"registration_endpoint", m.RegistrationEndpoint},
	} {
		if e.v == "" {
			continue
		}
		u, err := url.Parse(e.v)
		if err != nil || u.Host == "" || u.Fragment != "" {
			return errs.Errorf(errs.Protocol, "oauth", "the authorization server metadata at %s has an invalid %s; report it to the server's operator", m.from, e.name)
		}
		if !secureURL(u) {
			return errs.Errorf(errs.Auth, "oauth", "the authorization server's %s %s is not HTTPS; refusing to send credentials over plain HTTP", e.name, e.v)
		}
	}
	if !codeFlow {
		return nil
	}
	if m.ResponseTypesSupported != nil && !slices.Contains(m.ResponseTypesSupported, "code") {
		return errs.Errorf(errs.Auth, "oauth", "authorization server %s does not support the authorization code flow (response_types_supported lacks \"code\"); luagent cannot authorize with it", m.Issuer)
	}
	if m.CodeChallengeMethodsSupported == nil {
		return errs.Errorf(errs.Auth, "oauth", "authorization server %s does not advertise PKCE (no code_challenge_methods_supported); refusing to authorize without PKCE, as the MCP spec requires", m.Issuer)
	}
	if !slices.Contains(m.CodeChallengeMethodsSupported, "S256") {
		return errs.Errorf(errs.Auth, "oauth", "authorization server %s does not support PKCE S256 (code_challenge_methods_supported: %s); refusing to authorize", m.Issuer, strings.Join(m.CodeChallengeMethodsSupported, " "))
	}
	return nil
}

// chooseServer picks the authorization server among those the resource
// lists: the one the previous credential or the pre-registered client is
// bound to, when listed; else the first.
func chooseServer(list []string, prefer ...string) string {
	for _, p := range prefer {
		if p != "" && slices.Contains(list, p) {
			return p
		}
	}
	return list[0]
}
