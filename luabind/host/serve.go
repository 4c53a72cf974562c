package host

import (
	"context"
	"fmt"
	"io"
	"os"

	mcpmod "github.com/luagent/luagent/luabind/mod/mcp"
	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/transport"
	lua "github.com/yuin/gopher-lua"
)

// Serve runs the script, which must return an MCP server (mcp.server{...}),
// and serves it over stdio: the protocol on out (stdout), everything else —
// print, log, errors — on stderr. It returns when the client closes in (end
// of input), the process is signalled, or the script fails.
func (h *Host) Serve(ctx context.Context, s Script, in io.Reader, out io.Writer) int {
	fn, err := h.Load(s.Src, s.Name)
	if err != nil {
		fmt.Fprintf(h.cfg.Stderr, "luagent: %v\n", err)
		return ExitError
	}
	h.setArg(s)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stopSignals := h.onSignals(func(sig os.Signal) {
		h.Loop.Cancel(errs.New(errs.Cancelled, "", "interrupted by "+signalName(sig)))
		cancel()
	})
	defer stopSignals()

	code := ExitOK
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
		srv, ok := mcpmod.ServerOf(ret)
		if !ok {
			fmt.Fprintf(h.cfg.Stderr, "luagent: %s must return an MCP server (end it with `return s`, where s = mcp.server{...}); it returned %s\n", s.Name, ret.Type())
			code = ExitError
			h.Loop.Stop()
			return
		}
		stream := transport.NewStdio(in, out, 0)
		go func() {
			if err := srv.ServeStream(ctx, stream); err != nil && ctx.Err() == nil {
				fmt.Fprintf(h.cfg.Stderr, "luagent: serving stopped: %v\n", err)
			}
			srv.Close()
			h.Loop.Post(h.Loop.Stop)
		}()
	})
	if err := h.Loop.Run(ctx, sched.UntilStopped); err != nil && code == ExitOK && errs.KindOf(context.Cause(ctx)) == errs.Unknown {
		// Signalled: a clean stop for a server.
		return ExitOK
	}
	return code
}
