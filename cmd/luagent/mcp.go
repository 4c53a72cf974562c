package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/luagent/luagent/luabind/host"
	rmcp "github.com/luagent/luagent/runtime/mcp"
	"github.com/luagent/luagent/runtime/oauth"
	"github.com/luagent/luagent/runtime/oauth/store"
	"github.com/luagent/luagent/runtime/secret"
	"github.com/luagent/luagent/runtime/visible"
)

// mcpCommands are the `luagent mcp SUBCOMMAND [ARGS...]` commands. Each
// parses its own arguments and returns the exit code; a new one (login) is
// one more entry here, with its usage (usage.go).
var mcpCommands = map[string]mcpCommand{
	"login":   {mcpLogin, mcpLoginUsage},
	"logout":  {mcpLogout, mcpLogoutUsage},
	"list":    {mcpList, mcpListUsage},
	"add":     {mcpAdd, mcpAddUsage},
	"remove":  {mcpRemove, mcpRemoveUsage},
	"enable":  {mcpEnable, mcpEnableUsage},
	"disable": {mcpDisable, mcpDisableUsage},
	"get":     {mcpGet, mcpGetUsage},
	"import":  {mcpImport, mcpImportUsage},
	"tools":   {mcpTools, mcpToolsUsage},
	"call":    {mcpCall, mcpCallUsage},
}

type mcpCommand struct {
	run   func(args []string, stdout, stderr io.Writer) int
	usage string
}

// mcpLogin authorizes with one server now and stores the credential: the
// browser step opens (or prints) the authorization URL and waits on a
// loopback redirect.
func mcpLogin(args []string, stdout, stderr io.Writer) int {
	var u string
	var scopes []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--scope" || strings.HasPrefix(a, "--scope="):
			v, ok := strings.CutPrefix(a, "--scope=")
			if !ok {
				if i+1 >= len(args) {
					v = ""
				} else {
					v, i = args[i+1], i+1
				}
			}
			if strings.TrimSpace(v) == "" {
				fmt.Fprintln(stderr, "luagent: --scope needs a scope name: luagent mcp login URL --scope files:read")
				return host.ExitUsage
			}
			scopes = append(scopes, strings.Fields(v)...)
		case strings.HasPrefix(a, "-") || u != "":
			fmt.Fprintln(stderr, "luagent: mcp login takes one server URL and --scope S (repeatable): luagent mcp login https://mcp.example.com/mcp --scope files:read")
			return host.ExitUsage
		default:
			u = a
		}
	}
	if u == "" {
		fmt.Fprintln(stderr, "luagent: mcp login needs a server URL: luagent mcp login https://mcp.example.com/mcp")
		return host.ExitUsage
	}
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

// runMCP runs `luagent mcp ARGS...`.
func runMCP(args []string, stdout, stderr io.Writer) int {
	names := make([]string, 0, len(mcpCommands))
	for n := range mcpCommands {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(args) == 0 {
		fmt.Fprintf(stderr, "luagent: mcp needs a verb (%s): luagent mcp list (luagent mcp --help says more)\n", strings.Join(names, ", "))
		return host.ExitUsage
	}
	if isHelp(args[0]) {
		return printUsage(stdout, mcpUsage)
	}
	cmd, ok := mcpCommands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "luagent: unknown mcp verb %s (luagent mcp takes %s; luagent mcp --help says more)\n", args[0], strings.Join(names, ", "))
		return host.ExitUsage
	}
	if len(args) > 1 && (args[1] == "-h" || args[1] == "--help") {
		return printUsage(stdout, cmd.usage)
	}
	defer endOnSignal(stderr)()
	return cmd.run(args[1:], stdout, stderr)
}

// mcpLogout removes the stored credentials of one exact server URL. It does
// not revoke anything at the authorization server, and says so.
func mcpLogout(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 || args[0] == "" || strings.HasPrefix(args[0], "-") {
		fmt.Fprintln(stderr, "luagent: mcp logout needs one server URL, exactly as it was used: luagent mcp logout https://mcp.example.com/mcp")
		return host.ExitUsage
	}
	u := args[0]
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
