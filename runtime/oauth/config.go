package oauth

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/secret"
)

// Config configures a Flow for one MCP server.
type Config struct {
	// ServerURL is the MCP endpoint URL, as the user configured it. Its
	// canonical form (CanonicalResource) is the RFC 8707 resource when the
	// server publishes no protected-resource metadata; otherwise the
	// metadata's resource (checked against this URL) is.
	ServerURL string

	// ClientID and ClientSecret are a pre-registered client (optional; a
	// secret needs an id). ClientIssuer, if set, is the issuer of the
	// authorization server the client was registered with: Authorize
	// refuses to use the client with another one.
	ClientID, ClientSecret string
	ClientIssuer           string

	// ClientIDMetadataURL is luagent's Client ID Metadata Document URL
	// (optional; https with a path). It is the client_id at authorization
	// servers that advertise client_id_metadata_document_supported.
	ClientIDMetadataURL string

	// Scopes are the configured scopes (an entry's oauth.scopes): asked
	// for only when neither the server's challenge nor its resource
	// metadata's scopes_supported names any (the first nonempty source).
	// ExtraScopes (mcp login --scope) are always asked for, after those and
	// the scopes granted before. Both optional; no blank entries; see
	// Flow.selectScopes.
	Scopes      []string
	ExtraScopes []string

	// ClientName is the client_name for dynamic registration ("luagent").
	ClientName string

	// RedirectURL is the redirect URI (optional). Default with the
	// built-in browser step: http://127.0.0.1:<random port>/callback, where
	// it listens. When set with the built-in step it must be loopback http
	// (it listens on its host and port). With Browse set, default
	// http://127.0.0.1/callback (Browse handles the redirect).
	RedirectURL string

	// HTTPClient makes every metadata, registration and token request
	// (default: a client with a 30 s timeout). Registration and token
	// requests never follow redirects.
	HTTPClient *http.Client

	// Browse, if set, replaces the built-in browser step: given the
	// authorization URL, it returns the URL the user agent was redirected
	// to (with code, state and iss). The conformance client fetches the
	// authorization URL without following redirects and returns Location.
	Browse func(ctx context.Context, authURL string) (callbackURL string, err error)

	// The built-in browser step listens on the loopback redirect URI,
	// always prints the authorization URL to Out (default os.Stderr),
	// opens it with OpenURL (default: the desktop opener, xdg-open or open,
	// when there is one; its failure is not an error) and waits at most
	// BrowseTimeout (default 10 minutes) for the redirect.
	Out           io.Writer
	OpenURL       func(url string) error
	BrowseTimeout time.Duration

	// Now returns the current time (tests; default time.Now).
	Now func() time.Time

	// Grant selects an unattended grant instead of the authorization code
	// flow ("" or GrantAuthorizationCode): GrantClientCredentials or
	// GrantJWTBearer (grant.go). Discovery runs the same way; there is no
	// browser step, registration or PKCE.
	Grant string

	// PrivateKeyPEM, if set, authenticates the client at the token
	// endpoint with private_key_jwt (RFC 7523 §2.2) instead of a secret:
	// a PEM private key (PKCS #8, SEC 1 or PKCS #1). SigningAlgorithm is
	// the JWS algorithm ("" = the key's own: ES256 for a P-256 key).
	// Unattended grants only.
	PrivateKeyPEM    string
	SigningAlgorithm string

	// IdP is the enterprise identity provider for GrantJWTBearer.
	IdP IdentityProvider

	// Assertion, for GrantJWTBearer instead of IdP, is a JWT the client
	// already holds and presents as the grant as is: workload identity
	// federation (SEP-1933), the platform's token for this workload.
	Assertion string

	// DPoP binds tokens to a key made for this client (RFC 9449): every
	// token request carries a DPoP proof, and a token issued as
	// token_type DPoP is presented with the DPoP scheme and a fresh proof
	// per request (Flow.DPoP().RoundTripper). Server nonces are honoured.
	DPoP bool
}

// Validate checks the configuration: the server URL is absolute http(s); a
// secret needs an id; the metadata document URL is https with a path; no
// scope is blank or has spaces; the redirect URL is loopback http or https.
func (c *Config) Validate() error {
	if c.ServerURL == "" {
		return errs.New(errs.Invalid, "oauth", "no MCP server URL: give the server's endpoint URL (https://host/mcp)")
	}
	if _, err := CanonicalResource(c.ServerURL); err != nil {
		return err
	}
	if c.ClientSecret != "" && c.ClientID == "" {
		return errs.New(errs.Invalid, "oauth", "oauth.clientSecret is set without oauth.clientId: add the client id the secret was issued for")
	}
	if c.ClientIssuer != "" && c.ClientID == "" {
		return errs.New(errs.Invalid, "oauth", "an issuer for a pre-registered client is set without oauth.clientId: add the client id")
	}
	if m := c.ClientIDMetadataURL; m != "" {
		u, err := url.Parse(m)
		if err != nil || u.Scheme != "https" || u.Host == "" || u.Path == "" || u.Path == "/" || u.Fragment != "" {
			return errs.Errorf(errs.Invalid, "oauth", "oauth.clientIdMetadataUrl %q must be an https URL with a path (https://example.com/client.json)", secret.URL(m))
		}
	}
	for _, l := range []struct {
		what   string
		scopes []string
	}{{"oauth.scopes", c.Scopes}, {"--scope", c.ExtraScopes}} {
		for _, s := range l.scopes {
			if strings.TrimSpace(s) == "" {
				return errs.Errorf(errs.Invalid, "oauth", "%s has a blank entry: remove it or name the scope", l.what)
			}
			if strings.ContainsAny(s, " \t\r\n\"\\") {
				return errs.Errorf(errs.Invalid, "oauth", "%s entry %q is not one scope (no spaces, quotes or backslashes): give each scope as its own entry", l.what, s)
			}
		}
	}
	if r := c.RedirectURL; r != "" {
		u, err := url.Parse(r)
		if err != nil || u.Host == "" || u.Fragment != "" || (u.Scheme != "https" && !(u.Scheme == "http" && isLoopback(u.Hostname()))) {
			return errs.Errorf(errs.Invalid, "oauth", "redirect URL %q must be http on a loopback address or https, without a fragment", secret.URL(r))
		}
		if c.Browse == nil && u.Scheme != "http" {
			return errs.Errorf(errs.Invalid, "oauth", "redirect URL %q is not loopback http, where the built-in browser step listens: use http://127.0.0.1:PORT/callback or handle the redirect with Browse", secret.URL(r))
		}
	}
	return c.validateGrant()
}

// CanonicalResource returns the canonical form of an MCP server URL (RFC
// 8707 §2 as the MCP spec reads it): lowercase scheme and host, no
// fragment, no query, no trailing slash.
func CanonicalResource(serverURL string) (string, error) {
	u, err := url.Parse(serverURL)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return "", errs.Errorf(errs.Invalid, "oauth", "MCP server URL %q is not an absolute URL: give it as https://host/path", serverURL)
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return "", errs.Errorf(errs.Invalid, "oauth", "MCP server URL %q is not http or https: OAuth applies to HTTP servers only", serverURL)
	}
	if u.User != nil {
		return "", errs.New(errs.Invalid, "oauth", "the MCP server URL carries user info (user:password@): remove it and use OAuth or a token")
	}
	return scheme + "://" + strings.ToLower(u.Host) + strings.TrimSuffix(u.EscapedPath(), "/"), nil
}

// isLoopback reports whether host names the local machine: "localhost" or
// a loopback IP address.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// secureURL reports whether an authorization-server URL may carry
// credentials: https, or http to a loopback address (local servers and
// tests; the spec requires HTTPS for every authorization-server endpoint).
func secureURL(u *url.URL) bool {
	return u.Scheme == "https" || (u.Scheme == "http" && isLoopback(u.Hostname()))
}
