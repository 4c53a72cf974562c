package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/runtime/errs"
	rmcp "github.com/luagent/luagent/runtime/mcp"
	"github.com/luagent/luagent/runtime/oauth"
	"github.com/luagent/luagent/runtime/oauth/store"
)

// authOptions reads how a url connection authorizes:
//
//	env = { MCP_ACCESS_TOKEN = "…" }   a static bearer token (no OAuth)
//	env = { MCP_OAUTH_TOKEN_FILE = path }   a JSON token record, refreshed in place
//	oauth = false                      no authorization at all
//	oauth = { client_id, client_secret, client_issuer, client_id_metadata_url,
//	          scopes, redirect_url, store = false }
//	oauth = { grant = "client_credentials", client_id, client_secret }
//	oauth = { grant = "client_credentials", client_id, private_key_pem,
//	          signing_algorithm }               private_key_jwt (ES256 default)
//	oauth = { grant = "jwt_bearer", client_id, client_secret,
//	          idp = { token_endpoint, client_id, client_secret, id_token } }
//	                                   enterprise-managed (ID-JAG) authorization
//	oauth = { grant = "jwt_bearer", client_id, assertion = jwt }
//	                                   workload identity federation
//	oauth = { dpop = true, … }         DPoP-bound tokens (RFC 9449)
//	on_auth_url = function(url) return callback_url end   the browser step
//
// By default a server that answers 401 is authorized with OAuth, tokens
// kept under ~/.luagent/credentials/mcp/.
func (m *module) authOptions(L *lua.LState, t *lua.LTable, o *rmcp.Options) error {
	if o.URL == "" {
		return nil
	}
	if u, err := url.Parse(o.URL); err != nil || (!strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https")) {
		return nil // not an HTTP endpoint: connect refuses it with its own message
	}
	if tok := o.Command.Env["MCP_ACCESS_TOKEN"]; tok != "" {
		o.Token = func(context.Context) (string, error) { return tok, nil }
		return nil
	}
	cfg := oauth.Config{ServerURL: o.URL, ClientName: "luagent"}
	useStore := m.cfg.Home != ""
	switch v := t.RawGetString("oauth").(type) {
	case *lua.LNilType:
	case lua.LBool:
		if !bool(v) {
			return nil
		}
	case *lua.LTable:
		cfg.ClientID = firstString(v, "client_id", "clientId")
		cfg.ClientSecret = firstString(v, "client_secret", "clientSecret")
		cfg.ClientIssuer = firstString(v, "client_issuer", "clientIssuer")
		cfg.ClientIDMetadataURL = firstString(v, "client_id_metadata_url", "clientIdMetadataUrl")
		cfg.RedirectURL = firstString(v, "redirect_url", "redirectUrl")
		if err := grantOptions(v, &cfg); err != nil {
			return err
		}
		switch sc := v.RawGetString("scopes").(type) {
		case *lua.LTable:
			for i := 1; i <= sc.Len(); i++ {
				cfg.Scopes = append(cfg.Scopes, lua.LVAsString(sc.RawGetInt(i)))
			}
		case lua.LString:
			cfg.Scopes = strings.Fields(string(sc))
		case *lua.LNilType:
		default:
			return fmt.Errorf("oauth.scopes must be a list of scope names")
		}
		if s, ok := v.RawGetString("store").(lua.LBool); ok && !bool(s) {
			useStore = false
		}
	default:
		return fmt.Errorf("oauth must be a table ({client_id = …, scopes = {…}}) or false")
	}
	if fn, ok := t.RawGetString("on_auth_url").(*lua.LFunction); ok {
		cfg.Browse = func(ctx context.Context, authURL string) (string, error) {
			arg, _ := json.Marshal(authURL)
			raw, err := m.callLua(ctx, fn, "on_auth_url", arg)
			if err != nil {
				return "", err
			}
			var cb string
			if json.Unmarshal(raw, &cb) != nil || cb == "" {
				return "", errs.New(errs.Invalid, "on_auth_url", "on_auth_url must return the URL the browser was sent back to (with code and state)")
			}
			return cb, nil
		}
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	o.OAuth = &rmcp.OAuthOptions{Config: cfg}
	if useStore {
		o.OAuth.Store = store.Default(m.cfg.Home)
	}
	if f := o.Command.Env["MCP_OAUTH_TOKEN_FILE"]; f != "" {
		// A token record kept elsewhere: used and refreshed in place.
		o.OAuth.Entry = store.Legacy(f, o.URL, nil)
	}
	return nil
}

func firstString(t *lua.LTable, keys ...string) string {
	for _, k := range keys {
		if s := optString(t, k); s != "" {
			return s
		}
	}
	return ""
}

// authRedirect is mcp.auth_redirect(url): GET url without following
// redirects and return the Location it redirects to — the browser step
// for authorization servers that approve without a person (tests, the
// conformance suite, pre-approved automation).
func (m *module) authRedirect(L *lua.LState) sched.Start {
	target := L.CheckString(1)
	return goDo(func(ctx context.Context) sched.Completion {
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
		if err != nil {
			return fail(errs.Errorf(errs.Invalid, "mcp.auth_redirect", "not a URL: %v", err))
		}
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := client.Do(req)
		if err != nil {
			return fail(errs.Errorf(errs.Process, "mcp.auth_redirect", "cannot reach the authorization server: %v", err))
		}
		resp.Body.Close()
		loc := resp.Header.Get("Location")
		if resp.StatusCode < 300 || resp.StatusCode > 399 || loc == "" {
			return fail(errs.Errorf(errs.Auth, "mcp.auth_redirect", "the authorization server answered HTTP %d without a redirect: it wants a person in a browser", resp.StatusCode))
		}
		if u, err := resp.Request.URL.Parse(loc); err == nil {
			loc = u.String()
		}
		return sched.Values(lua.LString(loc))
	})
}

// login is mcp.login(url [, {scopes=, client_id=, …, on_auth_url=}]):
// authorize with the server now and store the credential. It returns
// {issuer=, scope=, expires_at=} (never a token).
func (m *module) login(L *lua.LState) sched.Start {
	u := L.CheckString(1)
	t := L.CreateTable(0, 3)
	t.RawSetString("url", lua.LString(u))
	if o, ok := L.Get(2).(*lua.LTable); ok {
		t.RawSetString("oauth", o)
		t.RawSetString("on_auth_url", o.RawGetString("on_auth_url"))
	} else if L.Get(2) != lua.LNil {
		L.ArgError(2, "options must be a table ({scopes = {...}, client_id = ...})")
	}
	o := rmcp.Options{URL: u}
	if err := m.authOptions(L, t, &o); err != nil {
		L.ArgError(2, err.Error())
	}
	if o.OAuth == nil {
		L.ArgError(2, "oauth = false leaves nothing to log in with")
	}
	oa := *o.OAuth
	return goDo(func(ctx context.Context) sched.Completion {
		cred, err := rmcp.Login(ctx, u, oa, nil)
		if err != nil {
			return fail(err)
		}
		return func(L *lua.LState) ([]lua.LValue, error) {
			r := L.CreateTable(0, 3)
			r.RawSetString("issuer", lua.LString(cred.Issuer))
			r.RawSetString("scope", lua.LString(cred.Scope))
			if cred.ExpiresAt > 0 {
				r.RawSetString("expires_at", lua.LNumber(cred.ExpiresAt))
			}
			return []lua.LValue{r}, nil
		}
	})
}
