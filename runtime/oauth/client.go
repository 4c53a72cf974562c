package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/secret"
)

// clientInfo is the OAuth client the flow uses at one authorization server.
type clientInfo struct {
	id, secret string
	auth       string // AuthBasic, AuthPost or AuthNone
}

// client returns the client to use, in the spec's order: the pre-registered
// client; the Client ID Metadata Document URL when the server supports
// them; the previous credential's client at the same server; dynamic
// registration (RFC 7591) when the server offers it.
func (f *Flow) client(ctx context.Context, meta *serverMetadata, prev *Credential, redirect string) (clientInfo, error) {
	if f.cfg.ClientID != "" {
		return clientInfo{id: f.cfg.ClientID, secret: f.cfg.ClientSecret, auth: pickAuth(f.cfg.ClientSecret != "", meta.TokenEndpointAuthMethodsSupported)}, nil
	}
	cimd := f.cfg.ClientIDMetadataURL
	if cimd != "" && meta.ClientIDMetadataDocumentSupported {
		return clientInfo{id: cimd, auth: AuthNone}, nil
	}
	if prev != nil && prev.ClientID != "" && (prev.ClientID != cimd || meta.ClientIDMetadataDocumentSupported) {
		auth := prev.TokenAuth
		if auth == "" {
			auth = pickAuth(prev.ClientSecret != "", meta.TokenEndpointAuthMethodsSupported)
		}
		return clientInfo{id: prev.ClientID, secret: prev.ClientSecret, auth: auth}, nil
	}
	if meta.RegistrationEndpoint != "" {
		return f.register(ctx, meta, redirect)
	}
	hint := "set oauth.clientId (a client registered with it)"
	if cimd == "" {
		hint += " or oauth.clientIdMetadataUrl"
	}
	return clientInfo{}, errs.Errorf(errs.Auth, "oauth", "authorization server %s offers no way for luagent to register (no dynamic registration and no client ID metadata documents); %s", meta.Issuer, hint)
}

// pickAuth chooses the token endpoint authentication for a client: none
// without a secret; with one, client_secret_basic or client_secret_post as
// the server supports (basic when it does not say: RFC 8414's default).
func pickAuth(hasSecret bool, supported []string) string {
	switch {
	case !hasSecret:
		return AuthNone
	case len(supported) == 0, slices.Contains(supported, AuthBasic):
		return AuthBasic
	case slices.Contains(supported, AuthPost):
		return AuthPost
	case slices.Contains(supported, AuthNone):
		return AuthNone
	}
	return AuthBasic
}

// registrationMethod is the token_endpoint_auth_method luagent asks for at
// registration: a public client ("none") when the server allows it, else a
// secret sent as the server supports.
func registrationMethod(supported []string) string {
	switch {
	case len(supported) == 0, slices.Contains(supported, AuthNone):
		return AuthNone
	case slices.Contains(supported, AuthBasic):
		return AuthBasic
	case slices.Contains(supported, AuthPost):
		return AuthPost
	}
	return AuthNone
}

// register performs RFC 7591 dynamic client registration with
// application_type (native for a loopback redirect), the redirect URI, the
// authorization_code and refresh_token grants and an authentication
// method the server supports.
func (f *Flow) register(ctx context.Context, meta *serverMetadata, redirect string) (clientInfo, error) {
	method := registrationMethod(meta.TokenEndpointAuthMethodsSupported)
	appType := "native"
	if u, err := url.Parse(redirect); err == nil && u.Scheme == "https" && !isLoopback(u.Hostname()) {
		appType = "web"
	}
	body, _ := json.Marshal(map[string]any{
		"client_name":                f.cfg.ClientName,
		"redirect_uris":              []string{redirect},
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": method,
		"application_type":           appType,
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, meta.RegistrationEndpoint, bytes.NewReader(body))
	if err != nil {
		return clientInfo{}, errs.Errorf(errs.Protocol, "oauth", "authorization server %s has an invalid registration_endpoint; report it to its operator", secret.URL(meta.Issuer))
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := f.noRedirect.Do(req)
	if err != nil {
		return clientInfo{}, f.netError(ctx, "registering luagent at "+secret.URL(meta.RegistrationEndpoint), err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	var r struct {
		ClientID         string `json:"client_id"`
		ClientSecret     string `json:"client_secret"`
		AuthMethod       string `json:"token_endpoint_auth_method"`
		Error            string `json:"error"`
		ErrorDescription string `json:"error_description"`
	}
	jerr := json.Unmarshal(raw, &r)
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusCreated {
		msg := "dynamic client registration at " + secret.URL(meta.RegistrationEndpoint) + " was refused (HTTP " + strconv.Itoa(resp.StatusCode)
		if jerr == nil && r.Error != "" {
			msg += ": " + sanitize(r.Error)
			if r.ErrorDescription != "" {
				msg += " (" + sanitize(r.ErrorDescription) + ")"
			}
		}
		return clientInfo{}, errs.New(errs.Auth, "oauth", msg+"); register a client with the server's operator and set oauth.clientId")
	}
	if jerr != nil || r.ClientID == "" {
		return clientInfo{}, errs.Errorf(errs.Protocol, "oauth", "dynamic client registration at %s answered without a client_id; report it to the server's operator", secret.URL(meta.RegistrationEndpoint))
	}
	cl := clientInfo{id: r.ClientID, secret: r.ClientSecret, auth: r.AuthMethod}
	if cl.auth == "" {
		cl.auth = method
	}
	switch cl.auth {
	case AuthBasic, AuthPost:
		if cl.secret == "" {
			cl.auth = AuthNone
		}
	case AuthNone:
	default: // a method luagent does not implement: the closest it does
		cl.auth = pickAuth(cl.secret != "", meta.TokenEndpointAuthMethodsSupported)
	}
	return cl, nil
}
