package oauth

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/jsonscan"
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
		return clientInfo{}, errs.Errorf(errs.Protocol, "oauth", "authorization server %s has an invalid registration_endpoint; report it to its operator", meta.Issuer)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := f.noRedirect.Do(req)
	if err != nil {
		return clientInfo{}, f.netError(ctx, "registering luagent at "+meta.RegistrationEndpoint, err)
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
		msg := "dynamic client registration at " + meta.RegistrationEndpoint + " was refused (HTTP " + strconv.Itoa(resp.StatusCode)
		if jerr == nil && r.Error != "" {
			msg += ": " + sanitize(r.Error)
			if r.ErrorDescription != "" {
				msg += " (" + sanitize(r.ErrorDescription) + ")"
			}
		}
		return clientInfo{}, errs.New(errs.Auth, "oauth", msg+"); register a client with the server's operator and set oauth.clientId")
	}
	if jerr != nil || r.ClientID == "" {
		return clientInfo{}, errs.Errorf(errs.Protocol, "oauth", "dynamic client registration at %s answered without a client_id; report it to the server's operator", meta.RegistrationEndpoint)
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

// tokenResponse is a token endpoint answer (RFC 6749 §5.1, §5.2).
type tokenResponse struct {
	AccessToken      string          `json:"access_token"`
	TokenType        string          `json:"token_type"`
	RefreshToken     string          `json:"refresh_token"`
	ExpiresIn        json.RawMessage `json:"expires_in"`
	Scope            string          `json:"scope"`
	Error            string          `json:"error"`
	ErrorDescription string          `json:"error_description"`

	expiresIn int64
}

// token POSTs a token request with the client's authentication and decodes
// the answer. doing names the step for errors; secrets are the values that
// must never appear in one (they are redacted from the server's text).
func (f *Flow) token(ctx context.Context, endpoint string, form url.Values, cl clientInfo, doing string, secrets ...string) (*tokenResponse, error) {
	var basic string
	if cl.secret == "" {
		cl.auth = AuthNone // nothing to authenticate with: a public client
	}
	switch cl.auth {
	case AuthBasic:
		// RFC 6749 §2.3.1: form-encode id and secret, then Basic.
		basic = base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(cl.id) + ":" + url.QueryEscape(cl.secret)))
	case AuthPost:
		form.Set("client_id", cl.id)
		form.Set("client_secret", cl.secret)
	default:
		form.Set("client_id", cl.id)
	}
	secrets = append(secrets, cl.secret, basic, form.Get("code"), form.Get("code_verifier"), form.Get("refresh_token"), form.Get("client_assertion"))
	var resp *http.Response
	var t tokenResponse
	var derr error
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
		if err != nil {
			return nil, errs.Errorf(errs.Protocol, "oauth", "%s: the token endpoint %q is not a valid URL", doing, endpoint)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Accept", "application/json")
		if basic != "" {
			req.Header.Set("Authorization", "Basic "+basic)
		}
		if f.dpop != nil {
			proof, err := f.dpop.Proof(http.MethodPost, endpoint, "")
			if err != nil {
				return nil, err
			}
			req.Header.Set("DPoP", proof)
		}
		resp, err = f.noRedirect.Do(req)
		if err != nil {
			return nil, f.netError(ctx, doing+" at "+endpoint, err)
		}
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxBody))
		resp.Body.Close()
		t = tokenResponse{}
		derr = decodeToken(resp.Header.Get("Content-Type"), raw, &t)
		if f.dpop != nil && f.dpop.noteNonce(req.URL, resp.Header) && attempt == 0 &&
			resp.StatusCode == http.StatusBadRequest && derr == nil && t.Error == useDPoPNonce {
			continue // RFC 9449 §8: the same request with the server's nonce
		}
		break
	}
	if resp.StatusCode != http.StatusOK {
		msg := doing + " at " + endpoint + " failed (HTTP " + strconv.Itoa(resp.StatusCode)
		if derr == nil && t.Error != "" {
			msg += ": " + sanitize(redact(t.Error, secrets))
			if t.ErrorDescription != "" {
				msg += ", " + sanitize(redact(t.ErrorDescription, secrets))
			}
		}
		msg += ")"
		if t.Error == "invalid_client" || t.Error == "unauthorized_client" {
			msg += "; the client is not accepted: check oauth.clientId/clientSecret"
		}
		return nil, errs.New(errs.Auth, "oauth", msg)
	}
	if derr != nil || t.AccessToken == "" {
		return nil, errs.Errorf(errs.Protocol, "oauth", "%s at %s: the answer is not a token response (no access_token); report it to the server's operator", doing, endpoint)
	}
	switch {
	case f.dpop != nil && strings.EqualFold(t.TokenType, "DPoP"):
		f.dpop.bind(t.AccessToken)
	case t.TokenType != "" && !strings.EqualFold(t.TokenType, "bearer"):
		if strings.EqualFold(t.TokenType, "DPoP") {
			return nil, errs.Errorf(errs.Protocol, "oauth", "%s at %s: the server issued a DPoP-bound token unasked; luagent sends Bearer tokens unless oauth.dpop = true", doing, endpoint)
		}
		return nil, errs.Errorf(errs.Protocol, "oauth", "%s at %s: the server issued a %q token; luagent sends only Bearer and DPoP tokens", doing, endpoint, sanitize(t.TokenType))
	}
	if len(t.ExpiresIn) > 0 {
		s := strings.Trim(string(t.ExpiresIn), `"`)
		if n, err := strconv.ParseFloat(s, 64); err == nil && n > 0 {
			t.expiresIn = int64(n)
		}
	}
	return &t, nil
}

// decodeToken decodes a token endpoint body: JSON, or form-encoded when the
// server says so (some answer that way).
func decodeToken(contentType string, raw []byte, t *tokenResponse) error {
	if mt, _, _ := mime.ParseMediaType(contentType); mt == "application/x-www-form-urlencoded" || mt == "text/plain" {
		if q, err := url.ParseQuery(string(raw)); err == nil && (q.Has("access_token") || q.Has("error")) {
			t.AccessToken, t.TokenType, t.RefreshToken = q.Get("access_token"), q.Get("token_type"), q.Get("refresh_token")
			t.Scope, t.Error, t.ErrorDescription = q.Get("scope"), q.Get("error"), q.Get("error_description")
			if e := q.Get("expires_in"); e != "" {
				t.ExpiresIn = json.RawMessage(jsonscan.Quote(e)) // JSON, which strconv.Quote is not
			}
			return nil
		}
	}
	return json.Unmarshal(raw, t)
}
