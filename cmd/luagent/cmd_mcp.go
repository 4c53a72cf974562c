package main

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/luagent/luagent/runtime/catalog"
)

// `luagent mcp VERB`: the saved servers (the catalog), checking one, and
// OAuth credentials. The verbs' bodies are in mcp*.go.

func mcpCmd(o *options, code *int, stdout, stderr io.Writer) *cobra.Command {
	var stop func()
	c := &cobra.Command{
		Use:   "mcp VERB [ARGS...]",
		Short: "saved MCP servers and their credentials: list, add, remove, enable, disable, get, import, tools, call, login, logout",
		Annotations: map[string]string{
			"footer": `luagent mcp VERB --help prints a verb's usage. Credentials are stored under
~/.luagent/credentials/ (LUAGENT_HOME replaces ~/.luagent). stdlib/doc/catalog.md
describes config.json.`,
		},
		// The verbs run no Lua host: SIGINT and SIGTERM end their servers.
		PersistentPreRun:  func(*cobra.Command, []string) { stop = endOnSignal(stderr) },
		PersistentPostRun: func(*cobra.Command, []string) { stop() },
		RunE: func(c *cobra.Command, args []string) error {
			var names []string
			for _, s := range c.Commands() {
				if s.IsAvailableCommand() {
					names = append(names, s.Name())
				}
			}
			slices.Sort(names)
			switch {
			case len(args) == 0:
				return usagef("mcp needs a verb (%s): luagent mcp list (luagent mcp --help says more)", strings.Join(names, ", "))
			case args[0] == "help":
				return c.Help()
			}
			return usagef("unknown mcp verb %s (luagent mcp takes %s; luagent mcp --help says more)", args[0], strings.Join(names, ", "))
		},
	}
	// The verbs are built when mcp is the command (run: declareFlags).
	later(o, c, func() {
		c.AddGroup(&cobra.Group{ID: "catalog", Title: "The saved servers (the catalog, ~/.luagent/config.json):"},
			&cobra.Group{ID: "check", Title: "Check a saved server (connect once, print, exit):"},
			&cobra.Group{ID: "creds", Title: "Credentials (OAuth):"})
		verb := func(group, use, short, long string, run func(c *cobra.Command, args []string) int) *cobra.Command {
			v := &cobra.Command{Use: use, Short: short, Long: long, GroupID: group,
				RunE: func(c *cobra.Command, args []string) error {
					*code = run(c, args)
					return nil
				}}
			c.AddCommand(v)
			return v
		}
		// oneName checks that a verb got one server name.
		oneName := func(verb string) cobra.PositionalArgs {
			return func(c *cobra.Command, args []string) error {
				if len(args) != 1 {
					return usagef("mcp %s takes one server name: luagent mcp %s NAME (luagent mcp list shows the names)", verb, verb)
				}
				return nil
			}
		}
		// complete offers the saved servers' names for a verb's first argument.
		complete := func(c *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			cfg, err := catalog.Load(catalogPath())
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var names []cobra.Completion
			for _, s := range cfg.Servers {
				names = append(names, s.Name)
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		}

		var listJSON bool
		list := verb("catalog", "list [--json]", "the saved servers: name, enabled, transport, command or URL", `Prints the saved servers of ~/.luagent/config.json, disabled ones too: name,
enabled, transport (stdio or http) and the command line or URL. It is the
saved configuration: nothing is started or connected.`,
			func(c *cobra.Command, args []string) int { return mcpList(listJSON, stdout, stderr) })
		list.Args = func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("mcp list takes only --json: luagent mcp list [--json]")
			}
			return nil
		}
		list.Annotations = map[string]string{"unknown": "mcp list takes only --json: luagent mcp list [--json]"}
		flagDecl{fs: list.Flags()}.boolean(&listJSON, "json", `a JSON array; each element is {name, enabled, transport, url, command, args, cwd, envKeys} (url and cwd null when unset; env names only, never values)`)
		list.Example = "  luagent mcp list"

		c.AddCommand(addCmd(o, code, stdout, stderr))

		remove := verb("catalog", "remove NAME", "forget a saved server", `Removes the saved server NAME from ~/.luagent/config.json. Its stored OAuth
credentials stay (luagent mcp logout URL removes them).`,
			func(c *cobra.Command, args []string) int { return mcpRemove(args[0], stdout, stderr) })
		remove.Args, remove.ValidArgsFunction = oneName("remove"), complete
		enable := verb("catalog", "enable NAME", "start it with the others", "Marks the saved server NAME enabled: it starts with the others.",
			func(c *cobra.Command, args []string) int { return setEnabled("enable", true, args[0], stdout, stderr) })
		enable.Args, enable.ValidArgsFunction = oneName("enable"), complete
		disable := verb("catalog", "disable NAME", "keep it saved but do not start it", "Marks the saved server NAME disabled: it stays saved but is not started.",
			func(c *cobra.Command, args []string) int {
				return setEnabled("disable", false, args[0], stdout, stderr)
			})
		disable.Args, disable.ValidArgsFunction = oneName("disable"), complete

		var getJSON bool
		get := verb("catalog", "get NAME [--json]", "one saved server in full (env names only, never values)", `Prints one saved server in full: transport, command or URL, cwd, the names
of its env variables (never their values), headers (values of
credential-like headers masked), OAuth settings (the client secret only as
set or not), the connectionId its credentials are bound to, timeouts with their defaults, protocol, roots, sampling.`,
			func(c *cobra.Command, args []string) int { return mcpGet(args[0], getJSON, stdout, stderr) })
		get.Args, get.ValidArgsFunction = oneName("get"), complete
		flagDecl{fs: get.Flags()}.boolean(&getJSON, "json", `the same as a JSON object: list --json's members and headers, oauth, startupTimeoutSeconds, requestTimeoutSeconds, protocol, roots, sampling, logLevel, maxConcurrentCalls, enabledTools, disabledTools, then every other field the entry has in config.json (env with its values <hidden>, connectionId, ...)`)
		get.Example = "  luagent mcp get everything"

		var from string
		var dry bool
		imp := verb("catalog", "import [--from HOST] [FILE] [--dry-run]", "copy servers from claude-desktop, claude-code, cursor, vscode, codex or gemini", `Copies the MCP servers another host keeps into ~/.luagent/config.json. HOST
is claude-desktop, claude-code, cursor, vscode, codex or gemini; FILE is that
host's configuration (default: where the host keeps it, the project's
first). Without --from or FILE every host's default places are tried and
each one found is said. A server whose name is saved already is skipped
with a note; what luagent cannot express (an sse transport, headers from
variables, envFile) is said in a note, with the command
that adds it by hand.

default places:
  claude-desktop   claude_desktop_config.json in Claude's folder (macOS ~/Library/Application
                   Support/Claude, Linux ~/.config/Claude, Windows %APPDATA%\Claude)
  claude-code      .mcp.json, ~/.claude.json (its mcpServers and projects.PATH.mcpServers)
  cursor           .cursor/mcp.json, ~/.cursor/mcp.json
  vscode           .vscode/mcp.json, the user's mcp.json and settings.json (Code/User/)
  codex            $CODEX_HOME/config.toml (default ~/.codex/config.toml)
  gemini           .gemini/settings.json, ~/.gemini/settings.json (Gemini CLI)`,
			func(c *cobra.Command, args []string) int {
				file := ""
				if len(args) == 1 {
					file = args[0]
				}
				return mcpImport(from, file, dry, stdout, stderr)
			})
		imp.Args = func(c *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usagef("mcp import takes one FILE: luagent mcp import --from cursor ~/.cursor/mcp.json")
			}
			return nil
		}
		d := flagDecl{fs: imp.Flags(), raw: true}
		d.fn("from", "HOST", "the host FILE is from (guessed from FILE's name otherwise)",
			"--from needs a host: "+strings.Join(catalog.ImportFormats, ", "), func(v string) error {
				if !slices.Contains(catalog.ImportFormats, v) {
					return fmt.Errorf("--from must be one of %s, not %q", strings.Join(catalog.ImportFormats, ", "), v)
				}
				from = v
				return nil
			})
		d.boolean(&dry, "dry-run,n", "show what would be added; write nothing")
		imp.RegisterFlagCompletionFunc("from", cobra.FixedCompletions(catalog.ImportFormats, cobra.ShellCompDirectiveNoFileComp))
		imp.Example = "  luagent mcp import --dry-run"

		connect := func() (connectFlags, error) {
			params, err := o.params()
			return connectFlags{params: params, trace: o.trace, verbose: o.verbose}, err
		}
		var toolsJSON bool
		tools := verb("check", "tools NAME [--json]", "the tools it lists", `Connects to the saved server NAME once (disabled entries too), prints the
tools it lists (name and the first line of the description), and exits. A
server that cannot start says why on one line and exits 1; one that needs
OAuth says to run luagent mcp login URL first. The global --set P=VALUE and
--params-file FILE give the parameters its env names ({"param": "P"}); -v
and --trace FILE show the protocol (env values never appear, only names).`,
			func(c *cobra.Command, args []string) int {
				f, err := connect()
				if err != nil {
					return fail(stderr, err)
				}
				return mcpTools(args[0], toolsJSON, f, stdout, stderr)
			})
		tools.Annotations = map[string]string{"usage": "usage: luagent mcp tools NAME [--json] [--set P=VALUE]... [--params-file FILE] [-v] [--trace FILE]\n"}
		tools.Args = func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("mcp tools needs a saved server's name: luagent mcp tools NAME (luagent mcp list shows the names)")
			}
			if len(args) > 1 {
				return usagef("mcp tools takes one server name and --json: luagent mcp tools NAME [--json]")
			}
			return nil
		}
		tools.ValidArgsFunction = complete
		flagDecl{fs: tools.Flags()}.boolean(&toolsJSON, "json", "a JSON array of the tools exactly as the server lists them")
		tools.Example = "  luagent mcp tools everything"

		var co callOptions
		call := verb("check", "call NAME TOOL [k=v ...]", "call one tool (or --args '{...}' for the arguments; --json prints the whole result)", `Connects to the saved server NAME once, calls TOOL, prints the result's
text (other content as JSON lines; structured content when there is no
text) and exits: 0, or 1 when the tool reports an error (printed on
stderr). A KEY=VALUE becomes a number, boolean, object or array when the
tool's input schema gives KEY that type, and a string otherwise. --json
prints the whole result instead (content, structuredContent, isError,
_meta) as one JSON object. Options as for luagent mcp tools (--set,
--params-file, -v, --trace).`,
			func(c *cobra.Command, args []string) int {
				f, err := connect()
				if err != nil {
					return fail(stderr, err)
				}
				pos, kv := args, []string(nil)
				if len(args) > 2 {
					pos, kv = args[:2], args[2:]
				}
				co.haveArgs = c.Flags().Changed("args")
				return mcpCall(pos, kv, co, f, stdout, stderr)
			})
		call.Annotations = map[string]string{"usage": `usage: luagent mcp call NAME TOOL [KEY=VALUE ...] [options]
       luagent mcp call NAME TOOL --args '{"key": "value"}' [options]
`}
		call.ValidArgsFunction = complete
		cd := flagDecl{fs: call.Flags(), raw: true}
		cd.str(&co.args, "args", "JSON", `the arguments as one JSON object, instead of k=v (--json '{...}' is read as --args too)`,
			`--args needs the arguments as a JSON object: luagent mcp call NAME TOOL --args '{"message":"hi"}'`)
		cd.boolean(&co.json, "json", "print the whole result as JSON: content, structuredContent, isError, _meta")
		call.Flags().SetAnnotation("json", "luagent_json_object", []string{"args"})
		call.Example = `  luagent mcp call everything echo message=hello
  luagent mcp call everything get-sum a=2 b=40
  luagent mcp call everything get-structured-content location=Chicago --json`

		var scopes []string
		loginUse := "mcp login takes one server URL or saved server's name, and --scope S (repeatable): luagent mcp login https://mcp.example.com/mcp --scope files:read"
		login := verb("creds", "login URL|NAME [--scope S]...", "authorize with the MCP server at URL (or the saved server NAME) now (OAuth: opens or prints the authorization URL, waits for the browser)", `Authorizes with the MCP server at URL now and stores the credential, so later
connections (mcp.connect{url = URL}, the saved server) need no browser step.
A saved server's URL (any equivalent spelling; the query counts) or its NAME
logs in with that entry's oauth settings: its clientId, clientSecret or
clientIdMetadataUrl instead of registering a new client, its scopes, and its
connectionId, which the credential is bound to. The server's authorization
server is discovered from URL (RFC 9728, RFC 8414); the browser opens (or
the URL is printed) and a loopback redirect receives the code.

The scope asked for is the server's challenge scope, else its resource
metadata's scopes_supported, else the entry's oauth.scopes; then the scopes
granted before (same authorization server and resource) and each --scope.`,
			func(c *cobra.Command, args []string) int { return mcpLogin(args[0], scopes, stdout, stderr) })
		login.Args = func(c *cobra.Command, args []string) error {
			switch {
			case len(args) == 0:
				return usagef("mcp login needs a server URL or a saved server's name: luagent mcp login https://mcp.example.com/mcp (or luagent mcp login NAME)")
			case len(args) > 1:
				return usagef("%s", loginUse)
			}
			return nil
		}
		login.ValidArgsFunction = complete
		login.Annotations = map[string]string{"unknown": loginUse}
		flagDecl{fs: login.Flags(), raw: true}.fn("scope", "S", `ask for scope S as well as those the server or the entry names (repeatable; "a b" adds both)`,
			"--scope needs a scope name: luagent mcp login URL --scope files:read", func(v string) error {
				if strings.TrimSpace(v) == "" {
					return fmt.Errorf("--scope needs a scope name: luagent mcp login URL --scope files:read")
				}
				scopes = append(scopes, strings.Fields(v)...)
				return nil
			})

		logoutErr := "mcp logout needs one server URL, exactly as it was used, or a saved server's name: luagent mcp logout https://mcp.example.com/mcp"
		logout := verb("creds", "logout URL|NAME", "remove the stored OAuth credentials of the MCP server URL (the exact URL) or the saved server NAME (nothing is revoked at the authorization server)", `Removes the stored OAuth credentials of the MCP server URL, which must be
exactly the URL they were stored for (query included), and those of the
saved servers at URL (any equivalent spelling; their own URL's, or those
bound to their connectionId); or those of the saved server NAME. Nothing is revoked at the authorization
server.`,
			func(c *cobra.Command, args []string) int { return mcpLogout(args[0], stdout, stderr) })
		logout.Args = func(c *cobra.Command, args []string) error {
			if len(args) != 1 || args[0] == "" {
				return usagef("%s", logoutErr)
			}
			return nil
		}
		logout.ValidArgsFunction = complete
		logout.Annotations = map[string]string{"unknown": logoutErr}
		setDefaults(c)
	})
	return c
}

// addCmd is `luagent mcp add`.
func addCmd(o *options, code *int, stdout, stderr io.Writer) *cobra.Command {
	a := &addOptions{s: catalog.Server{Enabled: true}}
	var disabled bool
	c := &cobra.Command{
		Use:     "add NAME -- COMMAND [ARGS...]",
		Short:   "save a stdio server (--env K=V, --cwd DIR before --); add NAME --transport http URL saves a Streamable HTTP server",
		GroupID: "catalog",
		Long: `Saves a server in ~/.luagent/config.json. A stdio server is started as
COMMAND ARGS (no shell: the arguments after -- reach it exactly); an HTTP
server is reached at URL (Streamable HTTP; an old SSE endpoint is served by
the legacy fallback). NAME is 1 to 64 letters, digits, _ or -. A COMMAND or
an argument that names an existing file by a relative path (greet.lua,
./bin/server) is saved as its absolute path, with a note, so the server
starts from any folder. An HTTP server's env takes two names: MCP_ACCESS_TOKEN
(a bearer token sent as given, no OAuth) and MCP_OAUTH_TOKEN_FILE (a token
file, refreshed in place).`,
		Example: `  luagent mcp add everything -- npx -y @modelcontextprotocol/server-everything
  luagent mcp add github --env-from GITHUB_TOKEN=GITHUB_TOKEN -- npx -y @modelcontextprotocol/server-github
  luagent mcp add remote --transport http https://mcp.example.com/mcp --scope read
  luagent mcp add hosted https://mcp.example.com/mcp --env-from MCP_ACCESS_TOKEN=HOSTED_TOKEN`,
		Annotations: map[string]string{
			"usage": `usage: luagent mcp add NAME [options] -- COMMAND [ARGS...]
       luagent mcp add NAME --transport http URL [options]
`,
			"unknown": "mcp add: unknown option %s; a server's own options go after --: luagent mcp add NAME -- COMMAND %s",
		},
		RunE: func(c *cobra.Command, args []string) error {
			a.s.Enabled = !disabled
			pos, command := args, []string(nil)
			dash := c.ArgsLenAtDash()
			if dash >= 0 {
				pos, command = args[:dash], args[dash:]
			}
			*code = mcpAdd(a, pos, command, dash >= 0, stdout, stderr)
			return nil
		},
	}
	later(o, c, func() { addFlags(c, a, &disabled) })
	return c
}

// addFlags declares mcp add's flags.
func addFlags(c *cobra.Command, a *addOptions, disabled *bool) {
	s := &a.s
	d := flagDecl{fs: c.Flags(), raw: true}
	d.fn("transport", "stdio|http", "the server's transport (default: http for a URL, stdio for a command after --)", "", func(v string) error {
		a.transport = v
		return nil
	})
	c.RegisterFlagCompletionFunc("transport", cobra.FixedCompletions([]string{"stdio", "http"}, cobra.ShellCompDirectiveNoFileComp))
	st := flagDecl{fs: c.Flags(), raw: true, group: "options of a stdio server (before --):"}
	env := func(kind string) func(string) error {
		return func(val string) error {
			// Never echo val: it may be a secret typed without its NAME=.
			k, v, ok := strings.Cut(val, "=")
			if !ok || k == "" {
				return fmt.Errorf("%s needs NAME=VALUE (the value is not shown here), like %s API_KEY=...", kind, kind)
			}
			if s.Env == nil {
				s.Env = map[string]catalog.EnvValue{}
			}
			switch kind {
			case "--env-param":
				s.Env[k] = catalog.EnvValue{Param: v}
			case "--env-from":
				s.Env[k] = catalog.EnvValue{FromEnv: v}
			default:
				s.Env[k] = catalog.EnvValue{Value: v}
			}
			return nil
		}
	}
	st.fn("env,e", "K=V", "set the variable K to V (repeatable; V is saved in the file, mode 0600, and never printed); an HTTP server takes MCP_ACCESS_TOKEN and MCP_OAUTH_TOKEN_FILE", "", env("--env"))
	st.fn("env-param", "K=P", "K comes from the parameter P: --set P=VALUE or --params-file", "", env("--env-param"))
	st.fn("env-from", "K=VAR", "K comes from luagent's own environment variable VAR", "", env("--env-from"))
	st.fn("inherit-env", "minimal|A,B", "which of luagent's variables it inherits besides --env: the MCP SDKs' short list (HOME, PATH, ...), or only A and B (default: all but luagent's own keys, such as OPENAI_API_KEY, unless --env names them)", "", func(v string) error {
		// minimal, or NAME,NAME,... (the catalog checks the names).
		if v == catalog.InheritMinimal {
			s.InheritEnv = catalog.InheritEnv{Minimal: true}
		} else {
			s.InheritEnv = catalog.InheritEnv{List: true, Names: inheritList(v)}
		}
		return nil
	})
	st.fn("cwd", "DIR", "start the server in DIR", "", func(v string) error {
		abs, err := filepath.Abs(v)
		if err != nil {
			return fmt.Errorf("--cwd %s: %v", v, err)
		}
		s.Cwd = abs
		return nil
	})
	ht := flagDecl{fs: c.Flags(), raw: true, group: "options of an HTTP server:"}
	ht.fn("header,H", "K:V", "send the header K: V with every request (repeatable)", "", func(val string) error {
		k, v, ok := strings.Cut(val, ":")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return fmt.Errorf(`--header needs NAME:VALUE, like --header "X-Team: a"`)
		}
		if s.Headers == nil {
			s.Headers = map[string]string{}
		}
		s.Headers[k] = strings.TrimSpace(v)
		return nil
	})
	ht.fn("scope", "S", "ask for OAuth scope S (repeatable)", "", func(v string) error {
		if strings.TrimSpace(v) == "" {
			return fmt.Errorf("--scope needs a scope name: --scope files:read")
		}
		if s.OAuth == nil {
			s.OAuth = &catalog.OAuth{}
		}
		s.OAuth.Scopes = append(s.OAuth.Scopes, strings.Fields(v)...)
		return nil
	})
	ht.fn("client-id", "ID", "a pre-registered OAuth client id", "", func(v string) error {
		if s.OAuth == nil {
			s.OAuth = &catalog.OAuth{}
		}
		s.OAuth.ClientID = v
		return nil
	})
	both := flagDecl{fs: c.Flags(), group: "both:"}
	tools := flagDecl{fs: c.Flags(), raw: true, group: "both:"}
	tools.fn("enable-tool", "T", "offer only the tools named T or matching the glob T (repeatable; enabledTools)", "", func(v string) error {
		s.EnabledTools = append(s.EnabledTools, v)
		return nil
	})
	tools.fn("disable-tool", "T", "never offer the tool T or those matching the glob T; wins over --enable-tool (repeatable; disabledTools)", "", func(v string) error {
		s.DisabledTools = append(s.DisabledTools, v)
		return nil
	})
	both.boolean(&a.force, "force,f", "replace a saved server of the same name")
	both.boolean(disabled, "disabled", "save it disabled")
}
