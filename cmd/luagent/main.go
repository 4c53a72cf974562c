// Command luagent is a Lua host that speaks the Model Context Protocol.
//
//	luagent                      interactive REPL
//	luagent run FILE [ARGS...]   run a script (FILE "-" reads stdin)
//	luagent FILE.lua [ARGS...]   the same
//	luagent -e 'CODE'            run CODE and exit
//	luagent --types DIR          write the Lua modules' type stubs for editors
//
// This file only parses flags and wires packages together.
package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/luagent/luagent/luabind/host"
	mcpmod "github.com/luagent/luagent/luabind/mod/mcp"
	"github.com/luagent/luagent/luabind/vm"
	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/otlp"
	"github.com/luagent/luagent/runtime/secret"
	"github.com/luagent/luagent/runtime/trace"
	"github.com/luagent/luagent/runtime/transport"
	"github.com/luagent/luagent/runtime/transport/httpserver"
	"golang.org/x/term"
)

// version is what --version prints; release builds set it from git
// describe (scripts/release.sh: -ldflags -X main.version=...).
var version = "0.1.0-dev"

func main() {
	// luagent started again as the guard of the servers it starts (see
	// runtime/transport): that is all this process does.
	transport.RunGuardIfAsked()
	if exe, err := os.Executable(); err == nil {
		transport.EnableGuard(exe)
	}
	// LUAGENT_CPUPROFILE=FILE profiles the whole run, for performance work.
	if f := os.Getenv("LUAGENT_CPUPROFILE"); f != "" {
		if out, err := os.Create(f); err == nil {
			pprof.StartCPUProfile(out)
			code := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
			pprof.StopCPUProfile()
			out.Close()
			exit(code)
		}
	}
	// LUAGENT_ALLOCPROFILE=FILE writes where the run allocated, at its end.
	if f := os.Getenv("LUAGENT_ALLOCPROFILE"); f != "" {
		runtime.MemProfileRate = 4096
		code := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
		if out, err := os.Create(f); err == nil {
			pprof.Lookup("allocs").WriteTo(out, 0)
			out.Close()
		}
		exit(code)
	}
	exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// exit ends luagent: every server still running ends first (one that
// never became ready at once, the others with their grace).
func exit(code int) {
	transport.EndAll()
	os.Exit(code)
}

type options struct {
	serve       bool
	ask         *askOptions  // `luagent ask ...` (nil: not ask)
	chat        *chatOptions // `luagent chat ...` (nil: not chat)
	mcp         []string     // `luagent mcp SUBCOMMAND ARGS...` (nil: not an mcp command)
	handlerTO   time.Duration
	http        string   // serve over HTTP at this ADDR/PATH ("" = stdio)
	allowOrigin []string // more origins the HTTP server accepts
	authEnv     string   // env var holding the bearer token HTTP requests need
	authServers []string // authorization servers for the resource metadata
	allowHost   []string // more Host names the HTTP server accepts
	workers     int      // Lua states serving HTTP
	grace       time.Duration
	limits      httpserver.Limits // serve --http's limits (zero: the defaults)
	tlsCert     string
	tlsKey      string
	trace       string
	logHTTP     string // --log-http URL: trace events POSTed as JSON lines
	otlpURL     string // --otlp URL: the same events as OpenTelemetry spans
	verbose     bool
	clean       bool
	init        bool           // serve runs init.lua only when asked
	sets        catalog.Params // --set NAME=VALUE
	paramFiles  []string       // --params-file FILE (--set wins)
	interactive bool
	sandbox     bool     // run/serve --sandbox: the script gets the sandbox profile
	grants      []string // --grant MODULE, with --sandbox
	exprs       []string
	script      string // "" none, "-" stdin
	args        []string

	setsJSON   map[string]bool // names --set-json gave (JSON text)
	agentFiles []string        // mcp-server --agent-file FILE
	apiKeys    string          // --api-keys FILE: the agents-exe keys file
}

func parse(argv []string, stdout, stderr io.Writer) (options, int, bool) {
	o := options{sets: catalog.Params{}}
	for i := 0; i < len(argv); i++ {
		a := argv[i]
		switch {
		case isHelp(a):
			return o, printUsage(stdout, usage), false
		case a == "--version" || a == "version":
			fmt.Fprintln(stdout, "luagent", version)
			return o, host.ExitOK, false
		case a == "--clean":
			o.clean = true
		case a == "--init":
			o.init = true
		case a == "-v" || a == "--verbose":
			o.verbose = true
		case a == "--trace" || strings.HasPrefix(a, "--trace="):
			v, ok := optValue(argv, &i, "--trace")
			if !ok {
				fmt.Fprintln(stderr, "luagent: --trace needs a file: luagent --trace trace.jsonl run script.lua")
				return o, host.ExitUsage, false
			}
			o.trace = v
		case a == "--api-keys" || strings.HasPrefix(a, "--api-keys="):
			v, ok := optValue(argv, &i, "--api-keys")
			if !ok {
				fmt.Fprintln(stderr, "luagent: --api-keys needs a file: luagent --api-keys ~/.config/agents-exe/secret-keys mcp-server --agent-file agent.json")
				return o, host.ExitUsage, false
			}
			o.apiKeys = v
		case a == "--log-http" || strings.HasPrefix(a, "--log-http="):
			v, ok := optValue(argv, &i, "--log-http")
			if u, err := url.Parse(v); !ok || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				fmt.Fprintln(stderr, "luagent: --log-http needs a collector URL: luagent --log-http http://127.0.0.1:4318/events run script.lua")
				return o, host.ExitUsage, false
			}
			o.logHTTP = v
		case a == "--otlp" || strings.HasPrefix(a, "--otlp="):
			v, ok := optValue(argv, &i, "--otlp")
			if u, err := url.Parse(v); !ok || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				fmt.Fprintln(stderr, "luagent: --otlp needs the collector's OTLP/HTTP traces URL: luagent --otlp http://127.0.0.1:4318/v1/traces ask ...")
				return o, host.ExitUsage, false
			}
			o.otlpURL = v
		case a == "-i":
			o.interactive = true
		case a == "--types" || strings.HasPrefix(a, "--types="):
			v, ok := optValue(argv, &i, "--types")
			if !ok {
				fmt.Fprintln(stderr, "luagent: --types needs a folder: luagent --types .luagent/types")
				return o, host.ExitUsage, false
			}
			return o, writeTypes(v, stdout, stderr), false
		case isParamFlag(a):
			if !paramFlag(&o, argv, &i, stderr) {
				return o, host.ExitUsage, false
			}
		case a == "-e":
			if i+1 >= len(argv) {
				fmt.Fprintln(stderr, "luagent: -e needs an argument: luagent -e 'print(1)'")
				return o, host.ExitUsage, false
			}
			i++
			o.exprs = append(o.exprs, argv[i])
		case a == "--handler-timeout":
			if i+1 >= len(argv) {
				fmt.Fprintln(stderr, "luagent: --handler-timeout needs seconds: luagent serve --handler-timeout 30 server.lua")
				return o, host.ExitUsage, false
			}
			i++
			secs, err := strconv.ParseFloat(argv[i], 64)
			if err != nil || secs <= 0 {
				fmt.Fprintf(stderr, "luagent: --handler-timeout must be a number of seconds > 0, not %q\n", argv[i])
				return o, host.ExitUsage, false
			}
			o.handlerTO = time.Duration(secs * float64(time.Second))
		case a == "mcp":
			o.mcp = append([]string{}, argv[i+1:]...)
			return o, 0, true
		case a == "ask":
			return parseAsk(o, argv[i+1:], stdout, stderr)
		case a == "chat":
			return parseChat(o, argv[i+1:], stdout, stderr)
		case a == "serve":
			o.serve = true
			return parseServe(o, argv[i+1:], stdout, stderr)
		case a == "mcp-server":
			return parseMCPServer(o, argv[i+1:], stdout, stderr)
		case a == "run":
			if i+1 < len(argv) && (argv[i+1] == "-h" || argv[i+1] == "--help") {
				return o, printUsage(stdout, runUsage), false
			}
			for i+1 < len(argv) && isSandboxFlag(argv[i+1]) {
				i++
				if ok := sandboxFlag(&o, argv, &i, stderr); !ok {
					return o, host.ExitUsage, false
				}
			}
			if err := checkSandboxFlags(o); err != nil {
				fmt.Fprintf(stderr, "luagent: %v\n", err)
				return o, host.ExitUsage, false
			}
			if i+1 >= len(argv) {
				fmt.Fprintln(stderr, "luagent: run needs a file: luagent run script.lua (or - for stdin)")
				return o, host.ExitUsage, false
			}
			o.script, o.args = argv[i+1], argv[i+2:]
			return o, 0, true
		case a == "--":
			if i+1 < len(argv) {
				o.script, o.args = argv[i+1], argv[i+2:]
			}
			return o, 0, true
		case a == "-":
			o.script, o.args = "-", argv[i+1:]
			return o, 0, true
		case strings.HasPrefix(a, "-"):
			fmt.Fprintf(stderr, "luagent: unknown option %s (luagent --help lists them)\n", a)
			return o, host.ExitUsage, false
		default:
			if _, err := os.Stat(a); err != nil {
				fmt.Fprintf(stderr, "luagent: no such command or file: %s (luagent --help lists commands)\n", a)
				return o, host.ExitUsage, false
			}
			o.script, o.args = a, argv[i+1:]
			return o, 0, true
		}
	}
	return o, 0, true
}

func run(argv []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o, code, ok := parse(argv, stdout, stderr)
	if !ok {
		return code
	}
	if o.mcp != nil {
		return runMCP(o.mcp, stdout, stderr)
	}
	if code, ok := checkNesting(stderr); !ok {
		return code
	}
	// One Lua state, run by one goroutine at a time, and goroutines that do
	// its I/O and hand it each message: with a second P idle, every
	// hand-over woke a thread to look for work (a futex wake and a spin:
	// 37 against 23 µs of CPU a sequential stdio call). With one P it is a
	// goroutine switch. serve --http keeps every P: its workers are Lua
	// states that run at once, and net/http parses requests beside them.
	// Blocking syscalls still get threads of their own; GOMAXPROCS set by
	// the user wins (scripts/bench/BENCHMARKS.md).
	if os.Getenv("GOMAXPROCS") == "" && !(o.serve && o.http != "") {
		runtime.GOMAXPROCS(1)
	}
	realStdout := stdout
	// require searches the folder of the user's script (run, serve, an
	// agent file), never the working folder: the REPL, -e and a script on
	// stdin have none.
	scriptDir := ""
	switch {
	case o.script != "" && o.script != "-":
		scriptDir = filepath.Dir(o.script)
	case o.ask != nil && o.ask.agent != "":
		scriptDir = filepath.Dir(o.ask.agent)
	case o.chat != nil && o.chat.agent != "":
		scriptDir = filepath.Dir(o.chat.agent)
	}
	if o.serve {
		// The protocol owns stdout: print and logs go to stderr.
		stdout = stderr
		if o.handlerTO > 0 {
			mcpmod.HandlerTimeout = o.handlerTO
		}
	}
	var sinks trace.Multi
	if o.trace != "" {
		f, err := os.OpenFile(o.trace, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			fmt.Fprintf(stderr, "luagent: cannot open the trace file: %v\n", err)
			return host.ExitUsage
		}
		defer f.Close()
		sinks = append(sinks, trace.NewJSONL(f))
	}
	if o.verbose {
		sinks = append(sinks, trace.NewHuman(stderr))
	}
	if o.logHTTP != "" {
		hs := trace.NewHTTP(o.logHTTP, trace.HTTPOptions{})
		defer func() {
			// A dead collector may hold the exit two seconds at most.
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			if st := hs.Close(ctx); st.Dropped > 0 || st.Queued > 0 {
				fmt.Fprintf(stderr, "luagent: --log-http: %d trace events dropped, %d not sent (%d failed posts): is the collector at %s up?\n", st.Dropped, st.Queued, st.FailedPosts, secret.URL(o.logHTTP))
			}
		}()
		sinks = append(sinks, hs)
	}
	if o.otlpURL != "" {
		ot, err := otlp.New(o.otlpURL, otlp.Options{Version: version})
		if err != nil {
			fmt.Fprintf(stderr, "luagent: %v\n", err)
			return host.ExitUsage
		}
		defer func() {
			// As with --log-http: a dead collector holds the exit 2 s at most.
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			ot.Close(ctx)
			if n := otlp.Failures(); n > 0 || ot.Skipped() > 0 {
				fmt.Fprintf(stderr, "luagent: --otlp: %d span exports failed, %d spans skipped: is the collector at %s up?\n", n, ot.Skipped(), secret.URL(o.otlpURL))
			}
		}()
		sinks = append(sinks, ot)
	}
	var sink trace.Sink
	if len(sinks) > 0 {
		sink = sinks
	}
	params, err := o.params()
	if err != nil {
		fmt.Fprintf(stderr, "luagent: %v\n", err)
		return host.ExitUsage
	}
	if o.authEnv != "" {
		transport.WithholdEnv(o.authEnv) // serve --http's bearer token is luagent's own
	}
	repl := (o.script == "" && len(o.exprs) == 0 && !o.serve && o.ask == nil && o.chat == nil) || o.interactive
	profile := vm.Full
	if o.sandbox {
		profile = vm.Sandbox
	}
	h := host.New(host.Config{
		Profile:     profile,
		Grants:      o.grants,
		Params:      params,
		ParamsJSON:  o.paramsJSON(params),
		Version:     version,
		Interactive: repl || o.chat != nil,
		APIKeysFile: o.apiKeys,
		Trace:       sink,
		Home:        host.Home(),
		Clean:       o.clean,
		ScriptDir:   scriptDir,
		LuaPath:     os.Getenv("LUA_PATH"),
		Stdout:      stdout,
		Stderr:      stderr,
		Exit:        exit, // os.exit
	})
	defer h.Close()
	ctx := context.Background()
	// A server's init.lua that connects to a luagent server started each
	// child in turn: serve runs it only when asked.
	// init.lua is the user's own (full) code: a sandboxed script runs alone.
	if (!o.serve || o.init) && !o.sandbox {
		h.RunInit(ctx)
	}

	if o.ask != nil {
		return runAsk(o, h, stdin, stdout, stderr)
	}
	if o.chat != nil {
		return runChat(o, h, stdin, stdout)
	}
	for _, e := range o.exprs {
		if code := h.Run(ctx, host.Script{Src: []byte(e), Name: "-e", Arg0: "-e"}); code != host.ExitOK {
			return code
		}
	}
	if o.script != "" {
		var src []byte
		var err error
		name := o.script
		if o.script == "-" {
			src, err = io.ReadAll(stdin)
			name = "stdin"
		} else {
			src, err = os.ReadFile(o.script)
		}
		if err != nil {
			fmt.Fprintf(stderr, "luagent: cannot read %s: %v\n", o.script, unwrapPathError(err))
			return host.ExitError
		}
		script := host.Script{Src: src, Name: name, Args: o.args, Arg0: o.script}
		if o.serve {
			// An agents-exe agent file serves as the agent it describes.
			script = host.AgentFileScript(script)
		}
		if len(o.agentFiles) > 0 {
			script = host.AgentFilesScript(o.agentFiles)
		}
		if o.serve && os.Getenv("GOGC") == "" {
			// A server's heap is small and turns over fast (about 4 KB of
			// garbage a call, little kept): at Go's default GOGC=100 the
			// collector took ~15% of the CPU under load; 200 gave 28-40%
			// more calls/s at 16 clients over HTTP for a few MB (scripts/bench/BENCHMARKS.md,
			// W3) and ~7% fewer instructions a stdio call (W2 profile).
			// A process-wide choice, so made here; GOGC set by the user wins.
			debug.SetGCPercent(200)
		}
		if o.serve && o.http != "" {
			return h.ServeHTTP(ctx, script, host.HTTPConfig{Addr: o.http, AllowOrigins: o.allowOrigin,
				AuthTokenEnv: o.authEnv, AuthServers: o.authServers, AllowHosts: o.allowHost, Workers: o.workers, Grace: o.grace,
				Limits: o.limits, TLSCert: o.tlsCert, TLSKey: o.tlsKey})
		}
		if o.serve {
			return h.Serve(ctx, script, stdin, realStdout)
		}
		if code := h.Run(ctx, script); code != host.ExitOK {
			return code
		}
	}
	if repl {
		tty := isTerminal(stdin) && isTerminal(stdout)
		return h.REPL(ctx, stdin, tty)
	}
	return host.ExitOK
}

// params are the --params-file values with --set's over them.
func (o *options) params() (catalog.Params, error) {
	out := catalog.Params{}
	for _, f := range o.paramFiles {
		ps, err := catalog.ReadParamsFile(f)
		if err != nil {
			return nil, err
		}
		for k, v := range ps {
			out[k] = v
		}
	}
	for k, v := range o.sets {
		out[k] = v
	}
	return out, nil
}

func unwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// parseServe reads `serve`'s options and file, in any order: options may
// come before or after the file; `--` ends them (what follows goes to the
// script as arg).
func parseServe(o options, rest []string, stdout, stderr io.Writer) (options, int, bool) {
	fail := func(format string, a ...any) (options, int, bool) {
		fmt.Fprintf(stderr, "luagent: "+format+"\n", a...)
		return o, host.ExitUsage, false
	}
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case a == "--":
			if o.script == "" && i+1 < len(rest) {
				o.script, i = rest[i+1], i+1
			}
			o.args = append(o.args, rest[i+1:]...)
			i = len(rest)
		case a == "-h" || a == "--help":
			return o, printUsage(stdout, serveUsage), false
		case a == "--init":
			o.init = true
		case a == "--handler-timeout" || strings.HasPrefix(a, "--handler-timeout="):
			v, ok := optValue(rest, &i, "--handler-timeout")
			if !ok {
				return fail("--handler-timeout needs seconds: luagent serve --handler-timeout 30 server.lua")
			}
			secs, err := strconv.ParseFloat(v, 64)
			if err != nil || secs <= 0 {
				return fail("--handler-timeout must be a number of seconds > 0, not %q", v)
			}
			o.handlerTO = time.Duration(secs * float64(time.Second))
		case a == "--http" || strings.HasPrefix(a, "--http="):
			v, given := strings.CutPrefix(a, "--http=")
			if !given && i+1 < len(rest) && takesAddr(rest[i+1], o.script != "") {
				v, given, i = rest[i+1], true, i+1
			}
			o.http = defaultHTTP
			if given {
				addr, err := httpAddr(v)
				if err != nil {
					return fail("%v", err)
				}
				o.http = addr
			}
		case a == "--tls-cert" || strings.HasPrefix(a, "--tls-cert="):
			v, ok := optValue(rest, &i, "--tls-cert")
			if !ok {
				return fail("--tls-cert needs a PEM certificate file: --tls-cert cert.pem --tls-key key.pem")
			}
			o.tlsCert = v
		case a == "--tls-key" || strings.HasPrefix(a, "--tls-key="):
			v, ok := optValue(rest, &i, "--tls-key")
			if !ok {
				return fail("--tls-key needs a PEM private key file: --tls-cert cert.pem --tls-key key.pem")
			}
			o.tlsKey = v
		case a == "--allow-origin" || strings.HasPrefix(a, "--allow-origin="):
			v, ok := optValue(rest, &i, "--allow-origin")
			if !ok {
				return fail("--allow-origin needs an origin: --allow-origin https://app.example.com")
			}
			o.allowOrigin = append(o.allowOrigin, v)
		case a == "--auth-token-env" || strings.HasPrefix(a, "--auth-token-env="):
			v, ok := optValue(rest, &i, "--auth-token-env")
			if !ok || strings.ContainsAny(v, "= ") {
				return fail("--auth-token-env needs the name of an environment variable: --auth-token-env MCP_TOKEN")
			}
			o.authEnv = v
		case a == "--auth-server" || strings.HasPrefix(a, "--auth-server="):
			v, ok := optValue(rest, &i, "--auth-server")
			if !ok {
				return fail("--auth-server needs a URL: --auth-server https://auth.example.com")
			}
			if err := httpserver.CheckServerURL(v); err != nil {
				return fail("--auth-server: %v", err)
			}
			o.authServers = append(o.authServers, v)
		case a == "--allow-host" || strings.HasPrefix(a, "--allow-host="):
			v, ok := optValue(rest, &i, "--allow-host")
			if !ok || strings.ContainsAny(v, "/: ") {
				return fail("--allow-host needs a host name: --allow-host mcp.internal")
			}
			o.allowHost = append(o.allowHost, v)
		case a == "--workers" || strings.HasPrefix(a, "--workers="):
			v, ok := optValue(rest, &i, "--workers")
			n, err := strconv.Atoi(v)
			if !ok || err != nil || n < 1 || n > host.MaxWorkers {
				return fail("--workers needs a number of Lua states from 1 to %d: --workers 2", host.MaxWorkers)
			}
			o.workers = n
		case isSandboxFlag(a):
			if ok := sandboxFlag(&o, rest, &i, stderr); !ok {
				return o, host.ExitUsage, false
			}
		case a == "--grace" || strings.HasPrefix(a, "--grace="):
			v, ok := optValue(rest, &i, "--grace")
			secs, err := strconv.ParseFloat(v, 64)
			if !ok || err != nil || secs <= 0 {
				return fail("--grace needs seconds > 0: --grace 10")
			}
			o.grace = time.Duration(secs * float64(time.Second))
		case strings.HasPrefix(a, "-") && a != "-":
			if ok, err := parseLimitFlag(rest, &i, &o.limits); ok {
				if err != nil {
					return fail("%v", err)
				}
				continue
			}
			return fail("unknown serve option %s (luagent serve --help lists them)", a)
		case o.script == "":
			o.script = a
		default:
			o.args = append(o.args, a)
		}
	}
	if o.script == "" {
		return fail("serve needs a file: luagent serve server.lua")
	}
	if err := checkSandboxFlags(o); err != nil {
		return fail("%v", err)
	}
	if len(o.allowOrigin) > 0 && o.http == "" {
		return fail("--allow-origin is for HTTP: add --http")
	}
	if (len(o.allowHost) > 0 || o.workers > 1 || o.grace > 0) && o.http == "" {
		return fail("--allow-host, --workers and --grace are for HTTP: add --http (over stdio one client has one server)")
	}
	if (o.authEnv != "" || len(o.authServers) > 0) && o.http == "" {
		return fail("--auth-token-env and --auth-server are for HTTP: add --http (over stdio, pass credentials in the environment)")
	}
	if (o.limits != httpserver.Limits{} || o.tlsCert != "" || o.tlsKey != "") && o.http == "" {
		return fail("the connection limits and --tls-cert/--tls-key are for HTTP: add --http")
	}
	if (o.tlsCert == "") != (o.tlsKey == "") {
		return fail("--tls-cert and --tls-key go together: --tls-cert cert.pem --tls-key key.pem")
	}
	return o, 0, true
}

const defaultHTTP = "127.0.0.1:8080/mcp"

func isSandboxFlag(a string) bool {
	return a == "--sandbox" || a == "--grant" || strings.HasPrefix(a, "--grant=")
}

// sandboxFlag reads --sandbox or --grant MODULE at args[*i].
func sandboxFlag(o *options, args []string, i *int, stderr io.Writer) bool {
	if args[*i] == "--sandbox" {
		o.sandbox = true
		return true
	}
	v, ok := optValue(args, i, "--grant")
	if !ok {
		fmt.Fprintf(stderr, "luagent: --grant needs a module: --sandbox --grant %s\n", host.Grants[0])
		return false
	}
	if err := host.CheckGrants([]string{v}); err != nil {
		fmt.Fprintf(stderr, "luagent: --grant: %v\n", err)
		return false
	}
	o.grants = append(o.grants, v)
	return true
}

func checkSandboxFlags(o options) error {
	if len(o.grants) > 0 && !o.sandbox {
		return fmt.Errorf("--grant is for --sandbox: luagent run --sandbox --grant %s FILE", o.grants[0])
	}
	if o.sandbox && (len(o.exprs) > 0 || o.interactive) {
		return fmt.Errorf("--sandbox runs a FILE: -e and -i are not sandboxed")
	}
	return nil
}

// optValue reads an option's value from --opt=V or the next argument.
func optValue(args []string, i *int, name string) (string, bool) {
	if v, ok := strings.CutPrefix(args[*i], name+"="); ok {
		return v, v != ""
	}
	if *i+1 >= len(args) || looksLikeOption(args[*i+1]) {
		return "", false
	}
	*i++
	return args[*i], true
}

// looksLikeOption reports whether a separate value is the next option
// instead ("--trace -v run x.lua" forgot the file): not "-" and not a
// number. --name=VALUE takes any value.
func looksLikeOption(s string) bool {
	if len(s) < 2 || s[0] != '-' {
		return false
	}
	_, err := strconv.ParseFloat(s, 64)
	return err != nil
}

// takesAddr tells --http's optional ADDR[/PATH] from the script file or
// the next option: a value that is not an option is the address unless it
// may be the script (no script yet, and it names a .lua or an existing
// file). A value taken as the address must then be one (httpAddr).
func takesAddr(s string, haveScript bool) bool {
	if strings.HasPrefix(s, "-") {
		return false
	}
	if haveScript {
		return true
	}
	if strings.HasSuffix(s, ".lua") {
		return false
	}
	_, err := os.Stat(s)
	return err != nil
}
