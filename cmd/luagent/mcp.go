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
	"github.com/luagent/luagent/runtime/oauth/store"
)

// mcpCommands are the `luagent mcp SUBCOMMAND [ARGS...]` commands. Each
// parses its own arguments and returns the exit code; a new one (login) is
// one more entry here and a line in the usage text.
var mcpCommands = map[string]func(args []string, stdout, stderr io.Writer) int{
	"logout": mcpLogout,
}

// runMCP runs `luagent mcp ARGS...`.
func runMCP(args []string, stdout, stderr io.Writer) int {
	names := make([]string, 0, len(mcpCommands))
	for n := range mcpCommands {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(args) == 0 {
		fmt.Fprintf(stderr, "luagent: mcp needs a subcommand (%s): luagent mcp logout URL\n", strings.Join(names, ", "))
		return host.ExitUsage
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stderr, usage)
		return host.ExitOK
	}
	cmd, ok := mcpCommands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "luagent: unknown mcp subcommand %s (luagent mcp takes %s; luagent --help lists them)\n", args[0], strings.Join(names, ", "))
		return host.ExitUsage
	}
	return cmd(args[1:], stdout, stderr)
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
		fmt.Fprintf(stderr, "luagent: %v\n", err)
		return host.ExitError
	}
	if removed {
		fmt.Fprintf(stdout, "removed the stored credentials for %s (the authorization server was not asked to revoke them)\n", u)
		return host.ExitOK
	}
	fmt.Fprintf(stdout, "no stored credentials for %s\n", u)
	// The URL must match exactly: point at near misses (same host).
	if p, err := url.Parse(u); err == nil && p.Host != "" {
		urls, _ := st.URLs()
		var near []string
		for _, s := range urls {
			if q, err := url.Parse(s); err == nil && strings.EqualFold(q.Host, p.Host) {
				near = append(near, s)
			}
		}
		if len(near) > 0 {
			fmt.Fprintf(stderr, "luagent: credentials are stored for %s (the URL must match exactly, query included)\n", strings.Join(near, ", "))
		}
	}
	return host.ExitOK
}
