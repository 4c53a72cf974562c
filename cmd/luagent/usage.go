package main

import (
	"fmt"
	"io"

	"github.com/luagent/luagent/luabind/host"
)

// The usage texts: `luagent --help` lists the commands and the options
// every mode shares; each command answers --help with its own.

const usage = `usage: luagent [options] [COMMAND | FILE | -] [ARGS...]

A Lua host that speaks the Model Context Protocol: an interactive REPL, a
script runner, a host for MCP servers written in Lua, and an MCP client.

commands:
  luagent                      the interactive Lua REPL (type help in it)
  luagent run FILE [ARGS...]   run a script; arg[0]=FILE, arg[1..]=ARGS (also: luagent FILE)
  luagent run - [ARGS...]      run the script read from stdin
  luagent -e 'CODE'            run CODE (repeatable) and exit; -i opens the REPL after
  luagent serve FILE [--http [PORT|ADDR][/PATH]]
                               serve the MCP server FILE returns, over stdio or Streamable HTTP;
                               a FILE returning agents serves each agent as a tool
  luagent mcp-server --agent-file FILE... [serve options]
                               serve the files' agents as MCP tools (mcp-server --help)
  luagent ask [--model M] [--agent FILE] [--server NAME]... [--yes] [--json] PROMPT...
                               ask an agent over the catalog's servers (prompt on stdin when none)
  luagent chat [--model M] [--agent FILE] [--resume FILE] [--yes]
                               talk with an agent over the catalog's servers (/help in it)
  luagent mcp VERB [ARGS...]   saved MCP servers and their credentials: list, add, remove,
                               enable, disable, get, import, login, logout

luagent COMMAND --help prints the command's own options (luagent serve --help).

options:
  -e CODE      run CODE before anything else
  -i           open the REPL after -e or a script
  --clean      skip ~/.luagent/init.lua
  --init       run ~/.luagent/init.lua before serve's script too (serve skips it otherwise)
  --set NAME=VALUE     a parameter for the catalog's {"param": NAME} env references (repeatable)
  --set-json NAME=JSON a parameter whose value is JSON (an agent's binding gets it as such)
  --params-file FILE   parameters from a JSON object or NAME=VALUE lines (--set wins)
  --api-keys FILE      the agents-exe keys file agents-exe agent files' apiKeyId name keys in
                       (default ~/.config/agents-exe/secret-keys)
  --trace FILE write protocol and process events to FILE as JSON lines
  --log-http URL       POST the same events as batches of JSON lines to a collector (buffered; a dead one costs nothing)
  --otlp URL           export agent runs, turns, model requests, tool calls and MCP requests as OpenTelemetry spans (OTLP/HTTP)
  --types DIR  write type stubs of the Lua modules to DIR for editors (lua-language-server), then exit
  -v           print protocol and process events to stderr
  --version    print the version
  -h, --help   this help

environment:
  LUAGENT_HOME  replaces ~/.luagent (init.lua, lua/ modules, history, credentials/)
  LUA_PATH      more require patterns (";;" stands for the defaults); require finds luagent's
                built-in modules first, then FILE's own folder (run, serve, --agent FILE; the
                REPL and -e search no folder), ~/.luagent/lua/, LUA_PATH (stdlib/doc/modules.md)
  LUAGENT_LOG   log level: debug, info, warn, error

More: README.md (the tour and the Lua reference) and stdlib/doc/.
`

const askUsage = `usage: luagent [options] ask [--model M] [--agent FILE] [--server NAME]... [--yes] [--json] [--code-mode] PROMPT...

Asks an agent once and exits. The agent has the catalog's servers
(~/.luagent/config.json; luagent mcp list), waits for them to start, streams
its answer to stdout and its tool activity (server › tool args, progress,
time and a one-line result) to stderr. The prompt is the arguments joined
by spaces, or stdin when there are none. Exit 0 on an answer, 1 with the
error's kind on one line (auth, rate_limit, limit, timeout, ...), 2 for usage.

options:
  --model M        the model: mock, openai:MODEL, anthropic:MODEL, ollama:MODEL or a
                   configured name (default: $LUAGENT_MODEL, else config.json's
                   "model", else mock, with a note)
  --agent FILE     ask the agent FILE returns (return agent.new{...}), or the one an
                   agents-exe JSON agent file describes; --model, --server and --yes
                   override its own settings
  --server NAME    offer only this catalog server's tools (repeatable)
  --yes, -y        allow every tool call the policy would ask about; without it
                   nobody is asked, so such calls are denied
  --json           print the transcript as JSON to stdout instead of the answer
  --code-mode      offer the model run_lua instead of the tools: a Lua snippet that
                   calls them as functions in a sandbox (README "Code mode")

environment:
  LUAGENT_MODEL    the default model
  OPENAI_API_KEY, OPENAI_BASE_URL, ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL
                   the providers' keys and endpoints (never printed)

examples:
  luagent ask "what tools do you have?"
  OPENAI_API_KEY=... luagent ask --model openai:gpt-4.1-mini "summarise README.md"
  echo "write a note" | luagent ask --agent examples/agent.lua --yes
`

const chatUsage = `usage: luagent [options] chat [--model M] [--agent FILE] [--resume FILE] [--yes] [--code-mode]

A conversation with an agent over the catalog's servers
(~/.luagent/config.json; luagent mcp list). It opens at once; the servers
start in the background (a line says how many are ready) and their tools
join when ready. A plain line goes to the agent; the answer streams, and
each tool call shows server › tool args, its progress, time and a
one-line result. A call the policy asks about asks you: y once, a for
the session, n [REASON] to deny (the reason goes to the model). A
server's form (elicitation) is asked field by field and checked before it
is sent (!decline, !cancel); a URL it asks you to open is shown in full
and opened only if you say y.

End a line with \ to continue it on the next. Tab completes /commands,
server and prompt names. Ctrl-C cancels a running turn (the servers are
told) and the session goes on; at the prompt it clears the line, and a
second one leaves; so does Ctrl-D. History is kept in
~/.luagent/chat_history. The conversation is saved in ~/.luagent/sessions/
after each turn (the path is printed on exit); --resume continues one.

commands (in the chat):
  /help                        the commands
  /mcp, /mcps                  the servers' manager, full screen: status, inspect (tools,
                               schemas, prompts), add, restart, authorize, enable, disable,
                               remove; q goes back (without a terminal: the status as text)
  /mcp NAME                    a server's tools (arguments, annotations), prompts, resources
  /mcp restart NAME            restart a server (the conversation stays)
  /mcp enable|disable NAME     enable or disable a server in the catalog (saved)
  /mcp auth NAME               authorize an HTTP server again (OAuth in the browser)
  /mcp prompt SERVER PROMPT [k=v ...]
                               send a server's prompt as the next turn (each
                               k=v split at its first =; k alone is empty)
  /model [NAME]                show the model, or switch keeping the conversation
  /clear                       a new conversation (the last one is saved)
  /save FILE                   write the conversation as JSON
  /lua CODE                    run one Lua line in the session's state
  /quit, /exit                 save and leave

options:
  --model M        the model: mock, openai:MODEL, anthropic:MODEL, ollama:MODEL or a
                   configured name (default: $LUAGENT_MODEL, else config.json's
                   "model", else mock, with a note)
  --agent FILE     talk with the agent FILE returns (return agent.new{...}), or
                   an agents-exe JSON agent file's; --model and --yes override its
                   own settings
  --resume FILE    continue a saved conversation (and save it there again), with the
                   model it was saved with unless --model (or --agent) says otherwise
  --yes, -y        allow every tool call the policy would ask about, unasked
  --code-mode      offer the model run_lua instead of the tools: a Lua snippet that
                   calls them as functions in a sandbox (README "Code mode")

environment:
  LUAGENT_MODEL    the default model
  LUAGENT_HOME     replaces ~/.luagent (config.json, chat_history, sessions/)
  OPENAI_API_KEY, OPENAI_BASE_URL, ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL
                   the providers' keys and endpoints (never printed)

examples:
  luagent chat
  luagent chat --agent examples/agent.lua --model openai:gpt-4.1-mini
  luagent chat --resume ~/.luagent/sessions/2026-12-02T03-10-00-a1b2c3.json
`

const runUsage = `usage: luagent [options] run FILE [ARGS...]
       luagent [options] run - [ARGS...]
       luagent [options] run --sandbox [--grant MODULE]... FILE [ARGS...]
       luagent [options] FILE [ARGS...]

Runs the Lua script FILE (- reads it from stdin), then exits: with 0, with 1
when the script raised an error (its file:line, message and traceback are
printed on stderr), 130/143 on SIGINT/SIGTERM. The script sees arg[0]=FILE,
arg[1..]=ARGS and arg[-1]=this luagent binary's path; ... holds ARGS too.
~/.luagent/init.lua runs first unless --clean is given.

A first line #!/usr/bin/env -S luagent run makes a script executable.

--sandbox runs FILE as untrusted code (stdlib/doc/sandbox.md): no files,
processes, network or environment; json, inspect, task, log, string, table,
math; a time limit, an instruction budget and a memory ceiling. --grant env,
--grant mcp (connect, hub) and --grant agent add those modules.

options (before run): -e CODE, -i (open the REPL after), --clean, --trace FILE, -v
`

const serveUsage = `usage: luagent serve FILE [options] [-- ARGS...]

Runs FILE, which must return an MCP server (return mcp.server{...}) or
agents (an agent.new{...} or a list: one tool each, as luagent mcp-server;
an agents-exe JSON agent file is the agent it describes), and serves it:
over stdio by default (the protocol on stdin/stdout, print and logs on
stderr), or over Streamable HTTP with --http. Both protocol eras
(2025-11-25 and 2026-07-28) are answered. ~/.luagent/init.lua does not run
unless --init is given. ARGS after -- reach the script as arg[1..].

options:
  --http [PORT|ADDR][/PATH]  serve over HTTP instead of stdio (default 127.0.0.1:8080/mcp;
                             a bare PORT is 127.0.0.1:PORT)
  --handler-timeout SECONDS  stop a request's handler after this long (default 60)
  --init                     run ~/.luagent/init.lua first
  --sandbox                  run FILE as untrusted code: mcp.server but no files, processes,
                             network or environment; limits per request (stdlib/doc/sandbox.md)
  --grant MODULE             with --sandbox: also give env, mcp (connect, hub) or agent
options of serve --http:
  --allow-origin ORIGIN      accept browser requests from ORIGIN too
  --auth-token-env NAME      require Authorization: Bearer <the value of $NAME>
  --auth-server URL          an authorization server to advertise (repeatable)
  --allow-host NAME          accept Host NAME too (a proxy in front of a loopback server)
  --workers N                run N Lua states of the script (default 1)
  --grace SECONDS            time requests in flight get to finish on SIGTERM (default 5)
  --tls-cert FILE --tls-key FILE
                             serve HTTPS (and HTTP/2) with this PEM certificate and key
limits of serve --http (what one client may hold; stdlib/doc/http-server.md):
  --max-conns N              connections open at once (default 1024; more wait)
  --max-sessions N           2025-11-25 sessions; a new one ends the least recently used (default 1000)
  --session-idle SECONDS     end a session unused this long (default 1800)
  --idle-timeout SECONDS     close a keep-alive connection idle this long (default 60)
  --header-timeout SECONDS   to receive a request's head (default 10)
  --body-timeout SECONDS     to receive a whole request, head and body (default 30)
  --write-timeout SECONDS    to write an answer or event to a client that does not read (default 30)
  --max-body SIZE            largest request body (default 4MiB)

examples:
  luagent serve examples/notes.lua
  luagent serve examples/notes.lua --http 8081
  npx @modelcontextprotocol/inspector bin/luagent serve examples/notes.lua
`

const mcpUsage = `usage: luagent mcp VERB [ARGS...]

The saved servers (the catalog, ~/.luagent/config.json):
  list [--json]              the saved servers: name, enabled, transport, command or URL
  add NAME -- COMMAND [ARGS...]
                             save a stdio server (--env K=V, --cwd DIR before --)
  add NAME --transport http URL
                             save a Streamable HTTP server (--header K:V, --scope S, --client-id ID)
  remove NAME                forget a saved server
  enable NAME, disable NAME  start it (or not) with the others
  get NAME [--json]          one saved server in full (env names only, never values)
  import [--from HOST] [FILE] [--dry-run]
                             copy servers from claude-desktop, claude-code, cursor, vscode or codex

Check a saved server (connect once, print, exit):
  tools NAME [--json]        the tools it lists
  call NAME TOOL [k=v ...]   call one tool (or --json '{...}' for the arguments)

Credentials (OAuth):
  login URL [--scope S]...   authorize with the MCP server at URL now (OAuth: opens
                             or prints the authorization URL, waits for the browser)
  logout URL                 remove the stored OAuth credentials of the MCP server URL
                             (the exact URL; nothing is revoked at the authorization server)

luagent mcp VERB --help prints a verb's usage. Credentials are stored under
~/.luagent/credentials/ (LUAGENT_HOME replaces ~/.luagent). stdlib/doc/catalog.md
describes config.json.
`

const mcpListUsage = `usage: luagent mcp list [--json]

Prints the saved servers of ~/.luagent/config.json, disabled ones too: name,
enabled, transport (stdio or http) and the command line or URL. It is the
saved configuration: nothing is started or connected.

  --json   a JSON array; each element is {name, enabled, transport, url,
           command, args, cwd, envKeys} (url and cwd null when unset; env
           names only, never values)
`

const mcpAddUsage = `usage: luagent mcp add NAME [options] -- COMMAND [ARGS...]
       luagent mcp add NAME --transport http URL [options]

Saves a server in ~/.luagent/config.json. A stdio server is started as
COMMAND ARGS (no shell: the arguments after -- reach it exactly); an HTTP
server is reached at URL (Streamable HTTP; an old SSE endpoint is served by
the legacy fallback). NAME is 1 to 64 letters, digits, _ or -.

options of a stdio server (before --):
  --env K=V, -e K=V   set the variable K to V (repeatable; V is saved in the
                      file, mode 0600, and never printed)
  --env-param K=P     K comes from the parameter P: --set P=VALUE or --params-file
  --env-from K=VAR    K comes from luagent's own environment variable VAR
  --inherit-env minimal|A,B
                      which of luagent's variables it inherits besides --env:
                      the MCP SDKs' short list (HOME, PATH, ...), or only A
                      and B (default: all but luagent's own keys, such as
                      OPENAI_API_KEY, unless --env names them)
  --cwd DIR           start the server in DIR
options of an HTTP server:
  --header K:V, -H    send the header K: V with every request (repeatable)
  --scope S           ask for OAuth scope S (repeatable)
  --client-id ID      a pre-registered OAuth client id
both:
  --force, -f         replace a saved server of the same name
  --disabled          save it disabled

examples:
  luagent mcp add everything -- npx -y @modelcontextprotocol/server-everything
  luagent mcp add github --env-from GITHUB_TOKEN=GITHUB_TOKEN -- npx -y @modelcontextprotocol/server-github
  luagent mcp add remote --transport http https://mcp.example.com/mcp --scope read
`

const mcpRemoveUsage = `usage: luagent mcp remove NAME

Removes the saved server NAME from ~/.luagent/config.json. Its stored OAuth
credentials stay (luagent mcp logout URL removes them).
`

const mcpEnableUsage = `usage: luagent mcp enable NAME

Marks the saved server NAME enabled: it starts with the others.
`

const mcpDisableUsage = `usage: luagent mcp disable NAME

Marks the saved server NAME disabled: it stays saved but is not started.
`

const mcpGetUsage = `usage: luagent mcp get NAME [--json]

Prints one saved server in full: transport, command or URL, cwd, the names
of its env variables (never their values), headers (values of
credential-like headers masked), OAuth settings (the client secret only as
set or not), timeouts with their defaults, protocol, roots, sampling.

  --json   the same as a JSON object: list --json's members and headers,
           oauth, startupTimeoutSeconds, requestTimeoutSeconds, protocol,
           roots, sampling, logLevel, maxConcurrentCalls
`

const mcpToolsUsage = `usage: luagent mcp tools NAME [--json] [--set P=VALUE]... [--params-file FILE] [-v] [--trace FILE]

Connects to the saved server NAME once (disabled entries too), prints the
tools it lists (name and the first line of the description), and exits. A
server that cannot start says why on one line and exits 1; one that needs
OAuth says to run luagent mcp login URL first.

  --json               a JSON array of the tools exactly as the server lists them
  --set P=VALUE        the value of the parameter P ({"param": "P"} in env)
  --params-file FILE   parameters as P=VALUE lines
  -v, --trace FILE     the protocol trace on stderr, or as JSON lines in FILE
                       (env values never appear, only their names)
`

const mcpCallUsage = `usage: luagent mcp call NAME TOOL [KEY=VALUE ...] [options]
       luagent mcp call NAME TOOL --json '{"key": "value"}' [options]

Connects to the saved server NAME once, calls TOOL, prints the result's
text (other content as JSON lines; structured content when there is no
text) and exits: 0, or 1 when the tool reports an error (printed on
stderr). A KEY=VALUE becomes a number, boolean, object or array when the
tool's input schema gives KEY that type, and a string otherwise. Options
as for luagent mcp tools (--set, --params-file, -v, --trace).

  luagent mcp call everything echo message=hello
  luagent mcp call everything add a=2 b=40
`

const mcpLoginUsage = `usage: luagent mcp login URL [--scope S]...

Authorizes with the MCP server at URL now and stores the credential, so later
connections (mcp.connect{url = URL}) need no browser step. The server's
authorization server is discovered from URL (RFC 9728, RFC 8414); the browser
opens (or the URL is printed) and a loopback redirect receives the code.

  --scope S   ask for scope S as well as those the server names (repeatable;
              "a b" adds both)
`

const mcpLogoutUsage = `usage: luagent mcp logout URL

Removes the stored OAuth credentials of the MCP server URL, which must be
exactly the URL they were stored for (query included). Nothing is revoked at
the authorization server.
`

const mcpImportUsage = `usage: luagent mcp import [--from HOST] [FILE] [--dry-run]

Copies the MCP servers another host keeps into ~/.luagent/config.json. HOST
is claude-desktop, claude-code, cursor, vscode or codex; FILE is that
host's configuration (default: where the host keeps it, the project's
first). Without --from or FILE every host's default places are tried and
each one found is said. A server whose name is saved already is skipped
with a note; what luagent cannot express (an sse transport, headers from
variables, envFile, tool filters) is said in a note too.

  --from HOST      the host FILE is from (guessed from FILE's name otherwise)
  --dry-run, -n    show what would be added; write nothing

default places:
  claude-desktop   claude_desktop_config.json in Claude's folder (macOS ~/Library/Application
                   Support/Claude, Linux ~/.config/Claude, Windows %APPDATA%\Claude)
  claude-code      .mcp.json, ~/.claude.json (its mcpServers and projects.PATH.mcpServers)
  cursor           .cursor/mcp.json, ~/.cursor/mcp.json
  vscode           .vscode/mcp.json, the user's mcp.json and settings.json (Code/User/)
  codex            $CODEX_HOME/config.toml (default ~/.codex/config.toml)
`

// isHelp reports whether a is a request for help.
func isHelp(a string) bool { return a == "-h" || a == "--help" || a == "help" }

// printUsage writes text to w and returns the exit code of a help request.
func printUsage(w io.Writer, text string) int {
	fmt.Fprint(w, text)
	return host.ExitOK
}
