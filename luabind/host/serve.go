package host

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	agentmod "github.com/luagent/luagent/luabind/mod/agent"
	mcpmod "github.com/luagent/luagent/luabind/mod/mcp"
	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/luabind/vm"
	"github.com/luagent/luagent/runtime/errs"
	rmcp "github.com/luagent/luagent/runtime/mcp"
	"github.com/luagent/luagent/runtime/transport"
	"github.com/luagent/luagent/runtime/transport/httpserver"
	lua "github.com/yuin/gopher-lua"
	"golang.org/x/term"
)

// Serve runs the script, which must return an MCP server (mcp.server{...}),
// and serves it over stdio: the protocol on out (stdout), everything else —
// print, log, errors — on stderr. It returns when the client closes in (end
// of input), the process is signalled, or the script fails.
func (h *Host) Serve(ctx context.Context, s Script, in io.Reader, out io.Writer) int {
	return h.serve(ctx, s, func(ctx context.Context, srv *rmcp.Server) error {
		if _, ok := mcpmod.AuthConfig(srv); ok {
			fmt.Fprintln(h.cfg.Stderr, "luagent: s:auth applies to HTTP (--http) only; requests over stdio are not checked")
		}
		var stream *transport.Stdio
		fin, ok1 := in.(*os.File)
		fout, ok2 := out.(*os.File)
		if ok1 && ok2 {
			errf, _ := h.cfg.Stderr.(*os.File)
			var restore func()
			stream, restore = transport.NewStdioFiles(fin, fout, errf, 0)
			defer restore()
		} else {
			stream = transport.NewStdio(in, out, 0)
		}
		if ok1 && term.IsTerminal(int(fin.Fd())) {
			// A person ran it by hand: say what it is doing.
			fmt.Fprintf(h.cfg.Stderr, "luagent: serving %s over stdio (%s): an MCP client speaks JSON-RPC on stdin and stdout\n", srv.Name(), summary(srv))
			fmt.Fprintf(h.cfg.Stderr, "luagent: Ctrl-C or Ctrl-D stops it; --http serves over HTTP; to try it: npx @modelcontextprotocol/inspector %s serve %s\n", Executable(), s.Name)
		}
		// The replies of a loop tick go out together.
		h.Loop.Post(func() { h.Loop.SetTickHooks(stream.Cork, stream.Uncork) })
		return srv.ServeStream(ctx, stream)
	})
}

// HTTPConfig configures ServeHTTP.
type HTTPConfig struct {
	// Addr is HOST:PORT[/PATH] (path default /mcp). Port 0 picks a free port.
	Addr string
	// AllowOrigins are browser origins accepted besides loopback ones.
	AllowOrigins []string
	// Ready, if set, is called with the endpoint's URL once it listens.
	Ready func(url string)
	// Grace is how long in-flight requests may finish after a signal
	// (default 5 s).
	Grace time.Duration
	// AuthTokenEnv names the environment variable holding the bearer token
	// every request must carry (--auth-token-env); see serve_auth.go.
	AuthTokenEnv string
	// AuthServers are authorization servers for the protected resource
	// metadata (--auth-server).
	AuthServers []string
	// AllowHosts are Host names accepted besides loopback ones (--allow-host).
	AllowHosts []string
	// Workers is how many Lua states serve the endpoint (--workers; default 1).
	Workers int
	// Limits bound what each client may hold (connections, timeouts,
	// sizes, sessions); zero fields take httpserver.DefaultLimits.
	Limits httpserver.Limits
	// TLSCert and TLSKey, both set, serve HTTPS (and HTTP/2) with that
	// certificate and key (PEM files).
	TLSCert, TLSKey string
}

// ServeHTTP runs the script like Serve and serves its server over
// Streamable HTTP (both eras, httpserver.Serve) until the process is
// signalled.
func (h *Host) ServeHTTP(ctx context.Context, s Script, cfg HTTPConfig) int {
	var token string
	if cfg.AuthTokenEnv != "" {
		var err error
		if token, err = httpserver.EnvToken(cfg.AuthTokenEnv); err != nil {
			fmt.Fprintf(h.cfg.Stderr, "luagent: %v\n", err)
			return ExitUsage
		}
	}
	return h.serve(ctx, s, func(ctx context.Context, srv *rmcp.Server) error {
		srvs := []*rmcp.Server{srv}
		if cfg.Workers > 1 {
			ws, err := h.startWorkers(h.served, s, cfg.Workers-1)
			if err != nil {
				return err
			}
			defer ws.stop()
			srvs = append(srvs, ws.srvs...)
		}
		auth, err := h.httpAuth(srv, cfg, token)
		if err != nil {
			return err
		}
		return httpserver.Serve(ctx, httpserver.Endpoint{
			Addr:         cfg.Addr,
			Servers:      srvs,
			AllowOrigins: cfg.AllowOrigins,
			AllowHosts:   cfg.AllowHosts,
			Limits:       cfg.Limits,
			TLSCert:      cfg.TLSCert,
			TLSKey:       cfg.TLSKey,
			Grace:        cfg.Grace,
			Auth:         auth,
			Log:          func(line string) { fmt.Fprintf(h.cfg.Stderr, "luagent: %s\n", line) },
			Ready: func(at httpserver.Listening) {
				workers := ""
				if at.Workers > 1 {
					workers = fmt.Sprintf("; %d workers", at.Workers)
				}
				// The URL ends the line: scripts read it from there.
				fmt.Fprintf(h.cfg.Stderr, "luagent: serving %s (%s%s) at %s\n", srv.Name(), summary(srv), workers, at.URL)
				fmt.Fprintln(h.cfg.Stderr, "luagent: Ctrl-C stops it")
				if at.MetadataURL != "" {
					fmt.Fprintf(h.cfg.Stderr, "luagent: requests need a bearer token (metadata: %s)\n", at.MetadataURL)
				}
				if cfg.Ready != nil {
					cfg.Ready(at.URL)
				}
			},
		})
	})
}

// serve runs the script and hands the server it returned to run, on its own
// goroutine, while the loop serves the Lua side.
func (h *Host) serve(ctx context.Context, s Script, run func(context.Context, *rmcp.Server) error) int {
	proto, err := vm.CompileFor(h.L, s.Src, s.Name)
	var fn *lua.LFunction
	if err == nil {
		fn, err = vm.FunctionOf(h.L, proto)
	}
	if err != nil {
		fmt.Fprintf(h.cfg.Stderr, "luagent: %v\n", err)
		return ExitError
	}
	h.served = proto // workers run the same compiled chunk
	h.setArg(s)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stopSignals := h.onSignals(func(sig os.Signal) {
		cancel() // the transport stops first, then the loop
	})
	defer stopSignals()

	code := ExitOK
	var serveIt func(*rmcp.Server)
	main := h.Loop.Spawn(fn, nil, sched.SpawnOptions{Name: "main"})
	main.OnDone(func(t *sched.Task) {
		if f := t.Failure(); f != nil {
			h.printFailure(f)
			code = ExitError
			h.Loop.Stop()
			return
		}
		var ret lua.LValue = lua.LNil
		if r := t.Results(); len(r) > 0 {
			ret = r[0]
		}
		h.serverOf(ret, s.Name, func(srv *rmcp.Server, err error) {
			if err != nil {
				fmt.Fprintf(h.cfg.Stderr, "luagent: %v\n", err)
				code = ExitError
				h.Loop.Stop()
				return
			}
			serveIt(srv)
		})
	})
	serveIt = func(srv *rmcp.Server) {
		go func() {
			if err := run(ctx, srv); err != nil && ctx.Err() == nil {
				fmt.Fprintf(h.cfg.Stderr, "luagent: serving stopped: %v\n", err)
				h.Loop.Post(func() { code = ExitError })
			}
			srv.Close()
			// Handlers still running (past the grace, or spinning) stop too.
			h.Loop.Cancel(errs.New(errs.Cancelled, "", "the server is shutting down"))
			h.Loop.Post(h.Loop.Stop)
		}()
	}
	if err := h.Loop.Run(context.Background(), sched.UntilStopped); err != nil && code == ExitOK && errs.KindOf(err) == errs.Unknown {
		return ExitOK
	}
	return code
}

// serverOf calls done (on the loop) with the server a served script
// returned: an MCP server as it is; an agent or a list of agents made
// into one (in a task, as building it may wait); else an error saying
// what the script must return.
func (h *Host) serverOf(ret lua.LValue, name string, done func(*rmcp.Server, error)) {
	if srv, ok := mcpmod.ServerOf(ret); ok {
		done(srv, nil)
		return
	}
	wrong := func() {
		done(nil, fmt.Errorf("%s must return an MCP server (end it with `return s`, where s = mcp.server{...}) or agents (return agent.new{...}); it returned %s", name, ret.Type()))
	}
	if _, ok := ret.(*lua.LTable); !ok {
		wrong()
		return
	}
	// stdlib's agent.server_of makes agents a server, or says false.
	fn, err := agentmod.ModuleFunc(h.L, "server_of")
	if err != nil {
		done(nil, err)
		return
	}
	t := h.Loop.Spawn(fn, []lua.LValue{ret, lua.LString(h.cfg.Version)}, sched.SpawnOptions{Name: "agent.server"})
	t.OnDone(func(t *sched.Task) {
		if f := t.Failure(); f != nil {
			done(nil, errs.New(f.Kind, "", f.Message))
			return
		}
		var v lua.LValue = lua.LNil
		if r := t.Results(); len(r) > 0 {
			v = r[0]
		}
		if srv, ok := mcpmod.ServerOf(v); ok {
			done(srv, nil)
			return
		}
		wrong()
	})
}

// summary counts what a server offers, for a start-up line: "3 tools,
// 1 resource, 2 prompts".
func summary(srv *rmcp.Server) string {
	o := srv.Offered()
	var parts []string
	for _, c := range []struct {
		n    int
		noun string
	}{{o.Tools, "tool"}, {o.Resources, "resource"}, {o.ResourceTemplates, "resource template"}, {o.Prompts, "prompt"}} {
		if c.n > 0 || c.noun == "tool" {
			p := fmt.Sprintf("%d %s", c.n, c.noun)
			if c.n != 1 {
				p += "s"
			}
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ", ")
}
