package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/luagent/luagent/luabind/host"
	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/hub"
	rmcp "github.com/luagent/luagent/runtime/mcp"
	"github.com/luagent/luagent/runtime/oauth"
	"github.com/luagent/luagent/runtime/oauth/store"
	"github.com/luagent/luagent/runtime/secret"
	"github.com/luagent/luagent/runtime/visible"
)

// loginTarget resolves the argument of mcp login and logout: a saved
// server's name, or a URL, looked up in the catalog by any equivalent
// spelling (catalog.ServersAt; the query is significant). It returns the
// entry (nil for a URL no entry has) and the URL to use: the entry's own,
// where its credential is kept.
func loginTarget(verb, arg string) (*catalog.Server, string, error) {
	cfg, err := catalog.Load(catalogPath())
	if err != nil {
		return nil, "", err
	}
	if !strings.Contains(arg, "://") {
		s := cfg.Server(arg)
		switch {
		case s == nil:
			return nil, "", errs.Errorf(errs.NotFound, "catalog", "no server named %s in %s: give a saved server's name (luagent mcp list shows them) or a server URL (https://host/mcp)", arg, catalogPath())
		case s.URL == "":
			return nil, "", errs.Errorf(errs.Invalid, "catalog", "%s is a stdio server: only HTTP servers (url) log in with OAuth", arg)
		}
		return s, s.URL, nil
	}
	switch m := cfg.ServersAt(arg); len(m) {
	case 0:
		return nil, arg, nil
	case 1:
		return m[0], m[0].URL, nil
	default:
		var names []string
		for _, s := range m {
			names = append(names, s.Name)
		}
		return nil, "", errs.Errorf(errs.Invalid, "catalog", "%s is the URL of several saved servers (%s): say which one, luagent mcp %s NAME", secret.URL(arg), strings.Join(names, ", "), verb)
	}
}

// mcpLogin authorizes with one server now and stores the credential: the
// browser step opens (or prints) the authorization URL and waits on a
// loopback redirect. A saved server's URL or name logs in with its oauth
// settings, and the credential goes where the entry looks for it.
func mcpLogin(arg string, scopes []string, stdout, stderr io.Writer) int {
	entry, u, err := loginTarget("login", arg)
	if err != nil {
		return fail(stderr, err)
	}
	st := store.Default(host.Home())
	st.Warn = stderr
	opts := rmcp.OAuthOptions{Store: st, Config: oauth.Config{ServerURL: u, ClientName: "luagent"}}
	where := st.Dir()
	if entry != nil {
		opts = hub.OAuthOptions(entry, st)
		opts.Headers = entry.Headers
		if _, ok := entry.Env[rmcp.EnvAccessToken]; ok {
			return fail(stderr, errs.Errorf(errs.Invalid, "mcp login", "%s sends the token its env.%s gives, without OAuth: nothing to log in to (remove that env member to log in with OAuth)", entry.Name, rmcp.EnvAccessToken))
		}
		if _, ok := entry.Env[rmcp.EnvOAuthTokenFile]; ok {
			// The hub reads this entry's credential from its token file,
			// so the login writes it there.
			env, err := entry.ResolveEnv(nil, os.LookupEnv)
			if err != nil {
				return fail(stderr, err)
			}
			where = env[rmcp.EnvOAuthTokenFile]
			opts.Entry = store.Legacy(where, u, stderr)
		}
	}
	opts.Config.ExtraScopes, opts.Config.Out = scopes, stderr
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cred, err := rmcp.Login(ctx, u, opts, nil)
	if err != nil {
		fmt.Fprintf(stderr, "luagent: %s\n", visible.Text(err.Error()))
		return host.ExitError
	}
	scope := cred.Scope
	if scope == "" {
		scope = "(none named)"
	}
	what := secret.URL(u)
	if entry != nil {
		what += " (saved server " + entry.Name + ")"
	}
	fmt.Fprintf(stdout, "logged in to %s: authorization server %s, scopes %s; stored in %s\n", what, visible.Line(cred.Issuer), visible.Line(scope), where)
	return host.ExitOK
}

// mcpLogout removes the stored credentials of one exact server URL, and
// those of the saved servers at that URL (any equivalent spelling; bound to
// their connectionId or to their own URL); or those of one saved server by
// name. It does not revoke anything at the
// authorization server, and says so.
func mcpLogout(arg string, stdout, stderr io.Writer) int {
	st := store.Default(host.Home())
	st.Warn = stderr
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var entries []*store.Entry
	u := arg
	if !strings.Contains(arg, "://") {
		entry, eu, err := loginTarget("logout", arg)
		if err != nil {
			return fail(stderr, err)
		}
		u = eu
		o := hub.OAuthOptions(entry, st)
		if o.Entry == nil {
			o.Entry = st.Entry(eu)
		}
		entries = append(entries, o.Entry)
	} else {
		entries = append(entries, st.Entry(u))
		if cfg, err := catalog.Load(catalogPath()); err == nil {
			for _, s := range cfg.ServersAt(u) {
				o := hub.OAuthOptions(s, st)
				if o.Entry == nil {
					o.Entry = st.Entry(s.URL)
				}
				entries = append(entries, o.Entry)
			}
		}
	}
	removed := false
	for _, e := range entries {
		ok, err := e.Delete(ctx)
		if err != nil {
			fmt.Fprintf(stderr, "luagent: %s\n", visible.Text(err.Error()))
			return host.ExitError
		}
		removed = removed || ok
	}
	if removed {
		fmt.Fprintf(stdout, "removed the stored credentials for %s (the authorization server was not asked to revoke them)\n", secret.URL(u))
		return host.ExitOK
	}
	fmt.Fprintf(stdout, "no stored credentials for %s\n", secret.URL(u))
	if u != arg {
		return host.ExitOK
	}
	// The URL must match exactly: point at near misses (same host).
	if p, err := url.Parse(u); err == nil && p.Host != "" {
		urls, _ := st.URLs()
		var near []string
		for _, s := range urls {
			if q, err := url.Parse(s); err == nil && strings.EqualFold(q.Host, p.Host) {
				near = append(near, secret.URL(s))
			}
		}
		if len(near) > 0 {
			fmt.Fprintf(stderr, "luagent: credentials are stored for %s (the URL must match exactly, query included)\n", strings.Join(near, ", "))
		}
	}
	return host.ExitOK
}
