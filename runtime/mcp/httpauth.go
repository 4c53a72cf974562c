package mcp

import (
	"context"
	"io"
	"net/http"
	"net/url"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/oauth"
	"github.com/luagent/luagent/runtime/oauth/store"
)

// The names of the env members that say how an HTTP server authorizes
// (the seed's, for remote servers).
const (
	EnvAccessToken    = "MCP_ACCESS_TOKEN"
	EnvOAuthTokenFile = "MCP_OAUTH_TOKEN_FILE"
)

// HTTPAuth is how a connection to an HTTP server authorizes, from what
// mcp.connect{} (luabind) and a catalog entry (runtime/hub) both say.
// Apply is the one place the choice is made, so that the two agree:
//
//  1. AccessToken: sent as the bearer token, as given; no OAuth, and a
//     401 is an auth error saying the token was refused and what to do.
//  2. OAuth nil: no authorization (a 401 is the server's answer).
//  3. Otherwise OAuth, its credential kept in TokenFile (a record kept
//     outside luagent, used and refreshed in place: store.Legacy) or in
//     Store. A Background start uses only a credential already kept and
//     never opens a browser: without one a 401 is an auth error at once.
type HTTPAuth struct {
	// AccessToken is MCP_ACCESS_TOKEN.
	AccessToken string
	// TokenFile is MCP_OAUTH_TOKEN_FILE's path.
	TokenFile string
	// OAuth is the OAuth configuration (ServerURL and ClientName are
	// filled in when empty); nil turns OAuth off, and TokenFile with it.
	OAuth *oauth.Config
	// Store keeps OAuth credentials; nil keeps them in memory only.
	Store *store.Store
	// Entry, if set, is where the credential lives instead of Store's
	// record for the URL (one bound to a connectionId). TokenFile wins.
	Entry *store.Entry
	// Background: a start nobody watches (a hub's); see HTTPAuth.
	Background bool
	// Warn receives the token file's warnings (nil: os.Stderr).
	Warn io.Writer
}

// Apply sets o.Token or o.OAuth for o.URL. Its errors (an OAuth setting
// that is wrong; at a Background start, a token file that is missing or
// unreadable) have kinds and say what to do.
func (a HTTPAuth) Apply(o *Options) error {
	o.Token, o.OAuth, o.tokenFrom = nil, nil, ""
	if _, err := url.Parse(o.URL); err != nil || o.URL == "" {
		return nil // Connect refuses the URL with its own message
	}
	if tok := a.AccessToken; tok != "" {
		o.Token = func(context.Context) (string, error) { return tok, nil }
		o.tokenFrom = EnvAccessToken
		return nil
	}
	if a.OAuth == nil {
		return nil
	}
	cfg := *a.OAuth
	if cfg.ServerURL == "" {
		cfg.ServerURL = o.URL
	}
	if cfg.ClientName == "" {
		cfg.ClientName = "luagent"
	}
	entry, legacy := a.Entry, a.TokenFile != ""
	if legacy {
		entry = store.Legacy(a.TokenFile, o.URL, a.Warn)
	}
	if a.Background {
		switch {
		case legacy:
			// The file is what the user gave for this server: when it
			// cannot be used, say so now (missing, not private, not a
			// record) rather than answer "needs authorization".
			if _, err := entry.Load(); err != nil {
				return err
			}
		case entry != nil:
			if cred, err := entry.Load(); err != nil || cred == nil {
				return nil
			}
		case a.Store == nil:
			return nil
		default:
			if cred, err := a.Store.Load(cfg.ServerURL); err != nil || cred == nil {
				return nil
			}
		}
		why := "a background start does not open a browser"
		if legacy {
			why = "the server refused the token in " + a.TokenFile + " (" + EnvOAuthTokenFile + ") and it holds no refresh token; put new tokens in that file, or unset " + EnvOAuthTokenFile + " and run `luagent mcp login URL`"
		}
		cfg.Browse = func(context.Context, string) (string, error) {
			return "", errs.New(errs.Auth, "connect", why)
		}
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	o.OAuth = &OAuthOptions{Config: cfg, Store: a.Store, Entry: entry}
	return nil
}

// refusedToken answers a 401 to a request that carried a supplied token
// (Options.tokenFrom names where it came from): the token is not
// replaced, so the error says what to do. A 403 stays the server's answer.
func refusedToken(from string) func(context.Context, int, string, string) (bool, error) {
	return func(_ context.Context, status int, challenge, _ string) (bool, error) {
		if status != http.StatusUnauthorized {
			return false, nil
		}
		msg := "HTTP 401: the server refused the access token " + from + " supplies"
		if e := oauth.ParseChallenge(challenge).Error; e != "" {
			msg += " [" + e + "]"
		}
		return false, errs.New(errs.Auth, "connect", msg+"; set "+from+" to a valid token, or leave it out to authorize with OAuth (luagent mcp login URL)")
	}
}
