package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/luagent/luagent/luabind/host"
	rmcp "github.com/luagent/luagent/runtime/mcp"
	"github.com/luagent/luagent/runtime/oauth"
	"github.com/luagent/luagent/runtime/oauth/store"
	"github.com/luagent/luagent/runtime/secret"
	"github.com/luagent/luagent/runtime/visible"
)

// mcpLogin authorizes with one server now and stores the credential: the
// browser step opens (or prints) the authorization URL and waits on a
// loopback redirect.
func mcpLogin(u string, scopes []string, stdout, stderr io.Writer) int {
	st := store.Default(host.Home())
	st.Warn = stderr
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cred, err := rmcp.Login(ctx, u, rmcp.OAuthOptions{Store: st, Config: oauth.Config{ServerURL: u, ClientName: "luagent", Scopes: scopes, Out: stderr}}, nil)
	if err != nil {
		fmt.Fprintf(stderr, "luagent: %s\n", visible.Text(err.Error()))
		return host.ExitError
	}
	scope := cred.Scope
	if scope == "" {
		scope = "(none named)"
	}
	fmt.Fprintf(stdout, "logged in to %s: authorization server %s, scopes %s; stored in %s\n", secret.URL(u), visible.Line(cred.Issuer), visible.Line(scope), st.Dir())
	return host.ExitOK
}

// mcpLogout removes the stored credentials of one exact server URL. It does
// not revoke anything at the authorization server, and says so.
func mcpLogout(u string, stdout, stderr io.Writer) int {
	st := store.Default(host.Home())
	st.Warn = stderr
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	removed, err := st.Delete(ctx, u)
	if err != nil {
		fmt.Fprintf(stderr, "luagent: %s\n", visible.Text(err.Error()))
		return host.ExitError
	}
	if removed {
		fmt.Fprintf(stdout, "removed the stored credentials for %s (the authorization server was not asked to revoke them)\n", secret.URL(u))
		return host.ExitOK
	}
	fmt.Fprintf(stdout, "no stored credentials for %s\n", secret.URL(u))
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
