package mcp

import (
	"context"
	"net/http"
	"strings"
	"sync"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/oauth"
	"github.com/luagent/luagent/runtime/oauth/store"
	"github.com/luagent/luagent/runtime/origin"
	"github.com/luagent/luagent/runtime/secret"
)

// OAuthOptions turn on authorization for an HTTP server that answers 401:
// discovery, registration and the browser step (runtime/oauth), tokens kept
// in Store (nil: in memory for this client only).
type OAuthOptions struct {
	Config oauth.Config // ServerURL defaults to Options.URL
	Store  *store.Store
	// Entry, if set, is where the credential lives instead (a legacy
	// MCP_OAUTH_TOKEN_FILE record: store.Legacy).
	Entry *store.Entry
	// Headers go with Login's first request (a saved entry's headers: a
	// server may want one before it says how to authorize). Connect sends
	// Options.Headers instead.
	Headers map[string]string
	// MaxStepUps bounds the 403 insufficient_scope re-authorizations of
	// one client (default 3).
	MaxStepUps int
}

// auth is a client's authorization state, shared by its sessions. One
// authorization runs at a time; requests that were refused with a token
// already replaced are simply sent again.
type auth struct {
	opts  *OAuthOptions
	flow  *oauth.Flow
	entry *store.Entry

	mu      sync.Mutex
	cred    *oauth.Credential
	loaded  bool
	stepUps int
}

func newAuth(serverURL string, o *OAuthOptions) (*auth, error) {
	cfg := o.Config
	if cfg.ServerURL == "" {
		cfg.ServerURL = serverURL
	}
	flow, err := oauth.New(cfg)
	if err != nil {
		return nil, err
	}
	a := &auth{opts: o, flow: flow}
	if o.Store != nil {
		a.entry = o.Store.Entry(cfg.ServerURL)
	}
	if o.Entry != nil {
		a.entry = o.Entry
	}
	return a, nil
}

// load reads the stored credential once (a.mu held).
func (a *auth) load() {
	if a.loaded {
		return
	}
	a.loaded = true
	if a.entry != nil {
		if c, err := a.entry.Load(); err == nil {
			a.cred = c
			if d := a.flow.DPoP(); d != nil && c != nil && c.DPoPKey != "" {
				if d.Adopt(c.DPoPKey, c.AccessToken) != nil {
					a.cred = nil // unusable: authorize again
				}
			}
		}
	}
}

// keep notes the DPoP key in a credential whose token is bound to it, so
// that it is stored with it.
func (a *auth) keep(c *oauth.Credential) *oauth.Credential {
	if d := a.flow.DPoP(); d != nil && c != nil && d.Bound(c.AccessToken) {
		c.DPoPKey = d.KeyPEM()
	}
	return c
}

// token is the bearer token for the next request ("" before authorizing).
func (a *auth) token(context.Context) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.load()
	if a.cred == nil {
		return "", nil
	}
	return a.cred.AccessToken, nil
}

// authorize answers a 401 or 403 (transport.HTTPOptions.Authorize).
func (a *auth) authorize(ctx context.Context, status int, challenge, used string) (bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.load()
	if a.cred != nil && a.cred.AccessToken != used {
		return true, nil // another request got a new token meanwhile
	}
	ch := oauth.ParseChallenge(challenge)
	if status == 403 {
		if !ch.InsufficientScope() {
			return false, nil // refused for good: the server's answer stands
		}
		max := a.opts.MaxStepUps
		if max <= 0 {
			max = 3
		}
		if a.stepUps >= max {
			return false, errs.Errorf(errs.Auth, "oauth", "the server still wants more scope (%s) after %d re-authorizations; check the scopes it may grant this client", ch.Scope, max)
		}
		a.stepUps++
		return a.full(ctx, ch)
	}
	if a.cred != nil && a.cred.RefreshToken != "" {
		var c *oauth.Credential
		var err error
		refresh := func(ctx context.Context, cur *oauth.Credential) (*oauth.Credential, error) {
			c, err := a.flow.Refresh(ctx, cur)
			return a.keep(c), err
		}
		if a.entry != nil {
			c, err = a.entry.RefreshOnce(ctx, a.cred, refresh)
		} else {
			c, err = refresh(ctx, a.cred)
		}
		if err != nil {
			return false, err // says to log in again: never a loop
		}
		if d := a.flow.DPoP(); d != nil && c.DPoPKey != "" {
			d.Adopt(c.DPoPKey, c.AccessToken) // (another process may have refreshed it)
		}
		a.cred = c
		return true, nil
	}
	return a.full(ctx, ch)
}

// full runs the whole authorization and keeps its credential (a.mu held).
func (a *auth) full(ctx context.Context, ch oauth.Challenge) (bool, error) {
	c, err := a.flow.Authorize(ctx, ch, a.cred)
	if err != nil {
		return false, err
	}
	c = a.keep(c)
	if a.entry != nil {
		if err := a.entry.Save(ctx, c); err != nil {
			return false, err
		}
	}
	a.cred = c
	return true, nil
}

// Login authorizes with the server at serverURL now (luagent mcp login):
// it asks the server without a token to get its challenge, runs the whole
// flow and stores the credential (in o.Store, when set). A server that does
// not ask for authorization is an error saying so.
func Login(ctx context.Context, serverURL string, o OAuthOptions, client *http.Client) (*oauth.Credential, error) {
	a, err := newAuth(serverURL, &o)
	if err != nil {
		return nil, err
	}
	// The challenge must come from the server itself, not from wherever
	// it redirects.
	client = origin.Client(client, "the MCP server")
	body := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"` + MetaProtocolVersion + `":"` + ModernVersion + `","` + MetaClientCapabilities + `":{}}}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, serverURL, strings.NewReader(body))
	if err != nil {
		return nil, errs.Errorf(errs.Invalid, "login", "not a server URL: %v", secret.URLError(err))
	}
	for k, v := range o.Headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", ModernVersion)
	req.Header.Set("Mcp-Method", "server/discover")
	resp, err := client.Do(req)
	if errs.KindOf(err) == errs.Protocol {
		return nil, &errs.Error{Kind: errs.Protocol, Op: "login", Msg: errs.Message(err), Err: err}
	}
	if err != nil {
		return nil, errs.Errorf(errs.Process, "login", "cannot reach %s: %v", secret.URL(serverURL), secret.URLError(err))
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
		return nil, errs.Errorf(errs.Invalid, "login", "%s does not ask for authorization (it answered HTTP %d without a token); nothing to log in to", secret.URL(serverURL), resp.StatusCode)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.load()
	if _, err := a.full(ctx, oauth.ParseChallenge(resp.Header.Get("WWW-Authenticate"))); err != nil {
		return nil, err
	}
	return a.cred, nil
}
