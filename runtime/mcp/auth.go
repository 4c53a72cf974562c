package mcp

import (
	"context"
	"sync"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/oauth"
	"github.com/luagent/luagent/runtime/oauth/store"
)

// OAuthOptions turn on authorization for an HTTP server that answers 401:
// discovery, registration and the browser step (runtime/oauth), tokens kept
// in Store (nil: in memory for this client only).
type OAuthOptions struct {
	Config oauth.Config // ServerURL defaults to Options.URL
	Store  *store.Store
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
		}
	}
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
		if a.entry != nil {
			c, err = a.entry.RefreshOnce(ctx, a.cred, a.flow.Refresh)
		} else {
			c, err = a.flow.Refresh(ctx, a.cred)
		}
		if err != nil {
			return false, err // says to log in again: never a loop
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
	if a.entry != nil {
		if err := a.entry.Save(ctx, c); err != nil {
			return false, err
		}
	}
	a.cred = c
	return true, nil
}
