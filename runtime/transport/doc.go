// Package transport holds MCP's transports except the Streamable HTTP
// server: the stdio client (it spawns a server process and moves
// newline-delimited JSON messages over its stdin and stdout), the stdio
// server side (Stdio: luagent serving on its own stdin and stdout), and the
// HTTP clients (Streamable HTTP and the older HTTP+SSE). The Streamable HTTP
// server (handler, bearer tokens, listening, TLS, limits, shutdown) is
// runtime/transport/httpserver: it serves an mcp.Server, and runtime/mcp
// imports this package, so it cannot live here.
//
//	p, err := transport.Start(transport.Command{Path: "npx", Args: []string{"-y", "some-server"}},
//		transport.Options{Name: "fs", Trace: sink})
//	err = p.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"server/discover"}`))
//	msg, err := p.Read() // one goroutine reads; any number may write
//	err = p.Close()      // stdin EOF, then SIGTERM, then SIGKILL
//
// The framing follows the spec: one JSON object per line, no embedded
// newlines. A server that prints something else on stdout (a banner, a
// stray console.log) is tolerated: the line is skipped, reported through
// Options.OnJunk and a trace.JunkSkipped event, and reading goes on. A line
// longer than Options.MaxMessage is read through without being buffered and
// reported as an *OversizeError, after which reading also goes on. stderr is
// kept in a ring buffer so that the error returned when the server dies can
// say why.
//
// The child runs in its own process group so that shutdown signals reach
// whatever it spawned (npx starts node, uv starts python). When the server
// exits, anything left in its group is killed: nobody else would reap it.
// Nothing outlives luagent (lifetime.go): Kill ends a server at once,
// EndAll ends every server still running on the way out, and for exits
// luagent does not see, Linux's parent-death signal and a guard process
// (EnableGuard) kill what is left.
//
// A server inherits luagent's environment but the variables that hold
// luagent's own credentials (WithheldEnv), unless its Command names them;
// Command.Inherit narrows it further (env.go).
//
// LineReader, the framing alone, works over any io.Reader and is what Process
// uses for stdout.
//
// The package imports no Lua: any Go program can use it.
package transport
