// Command luagent is a Lua host that speaks the Model Context Protocol.
//
//	luagent                      interactive REPL
//	luagent run FILE [ARGS...]   run a script (FILE "-" reads stdin)
//	luagent FILE.lua [ARGS...]   the same
//	luagent -e 'CODE'            run CODE and exit
//	luagent --types DIR          write the Lua modules' type stubs for editors
//
// This file wires packages together; root.go and cmd_*.go declare the
// commands and their flags.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
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
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// version is what --version prints; release builds set it from git
// describe (scripts/release.sh: -ldflags -X main.version=...).
var version = "0.1.0-dev"

func main() {
	earlyOneP(os.Args[1:])
	// Nothing reads a heap profile but LUAGENT_ALLOCPROFILE below: without
	// it, no allocation is sampled (a sample unwinds the stack, reading
	// pages of the binary's tables a server never needs otherwise).
	runtime.MemProfileRate = 0
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

// earlyOneP gives `luagent serve` over stdio its one P (see runScript) before
// anything else runs: when GOMAXPROCS drops later, the second P's cache of
// heap spans (whatever package init allocated on it) goes back to the
// central lists, which costs about 135 page faults (~1 ms, 15% of a cold
// start to tools/list; scripts/bench/BENCHMARKS.md, 2026-12-04). serve
// --http keeps every P; runScript decides for the other modes, as before.
func earlyOneP(args []string) {
	if os.Getenv("GOMAXPROCS") == "" && servesStdio(args) {
		runtime.GOMAXPROCS(1)
	}
}

// servesStdio reports whether args (without the program's name) are
// `serve` without --http: a guess from the words alone, before the flags
// are parsed; runScript corrects it.
func servesStdio(args []string) bool {
	if len(args) == 0 || args[0] != "serve" {
		return false
	}
	for _, a := range args[1:] {
		if a == "--" {
			break
		}
		if a == "--http" || strings.HasPrefix(a, "--http=") {
			return false
		}
	}
	return true
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
	acp         *acpOptions  // `luagent acp ...` (nil: not acp)
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
	version    bool            // --version
	types      string          // --types DIR

	later map[*cobra.Command]func() // flags declared when their command runs
}

// runScript runs the modes that run Lua in a host: the REPL, -e, a
// script, serve, mcp-server, ask and chat.
func runScript(o options, stdin io.Reader, stdout, stderr io.Writer) int {
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
	if os.Getenv("GOMAXPROCS") == "" {
		if !(o.serve && o.http != "") {
			runtime.GOMAXPROCS(1)
		} else if runtime.GOMAXPROCS(0) == 1 {
			runtime.SetDefaultGOMAXPROCS() // earlyOneP guessed wrong
		}
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
	case o.acp != nil && o.acp.agent != "":
		scriptDir = filepath.Dir(o.acp.agent)
	}
	if o.acp != nil {
		// ACP owns stdout: print, io.write and child processes write to
		// stderr.
		realStdout = ownStdout(realStdout, stderr)
		stdout = stderr
	}
	if o.ask != nil && o.ask.headless() {
		// ask's JSON owns stdout: print, io.write and child processes
		// write to stderr.
		realStdout = ownStdout(realStdout, stderr)
		stdout = stderr
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
	repl := (o.script == "" && len(o.exprs) == 0 && !o.serve && o.ask == nil && o.chat == nil && o.acp == nil) || o.interactive
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
		return runAsk(o, h, stdin, realStdout, stderr)
	}
	if o.chat != nil {
		return runChat(o, h, stdin, stdout)
	}
	if o.acp != nil {
		return runACP(o, h, stdin, realStdout, stderr)
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
		if o.serve && o.http != "" && os.Getenv("GOGC") == "" {
			// An HTTP server allocates several KB a request in net/http
			// besides the call: at Go's default GOGC=100 the collector took
			// ~15% of the CPU under load; 200 gave 28-40% more calls/s at 16
			// clients (scripts/bench/BENCHMARKS.md, W3). A stdio server keeps
			// Go's default: its calls allocate ~1.3 KB each (20 objects),
			// the live heap is under 1 MB, so 10,000 calls make 8
			// collections of ~0.5 ms of CPU (1-2% of the calls' CPU), and
			// 200 cost ~4 MB of peak RSS (W5; BENCHMARKS.md, 2026-12-04).
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

const defaultHTTP = "127.0.0.1:8080/mcp"

func checkSandboxFlags(o options) error {
	if len(o.grants) > 0 && !o.sandbox {
		return fmt.Errorf("--grant is for --sandbox: luagent run --sandbox --grant %s FILE", o.grants[0])
	}
	if o.sandbox && (len(o.exprs) > 0 || o.interactive) {
		return fmt.Errorf("--sandbox runs a FILE: -e and -i are not sandboxed")
	}
	return nil
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
