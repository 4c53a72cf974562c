// Command mcpgoecho is the smallest idiomatic MCP server written with
// github.com/mark3labs/mcp-go v1.2.1: one tool, echo(message), answered with
// one text content block. It is a peer in scripts/bench/benchsrv's (stdio) and
// scripts/bench/benchhttp's (Streamable HTTP) benchmarks.
//
// Eras: mcp-go v1.2.1 is dual-era on stdio with default options. It knows
// 2026-07-28 (mcp.LATEST_PROTOCOL_VERSION) down to 2024-11-05; a request
// whose _meta names 2026-07-28 is served statelessly (server/discover is
// implemented, results carry resultType), and initialize negotiates at most
// 2025-11-25. The stdio transport does not narrow the version list.
//
// With -http ADDR (e.g. 127.0.0.1:0) it serves Streamable HTTP at
// http://ADDR/mcp through server.NewStreamableHTTPServer (default options,
// mounted as an http.Handler so that port 0 works) instead, and prints
// "listening on http://HOST:PORT/mcp" to stderr once it listens. Its HTTP
// server is dual-era too: 2026-07-28 requests are served per POST,
// initialize opens a 2025-11-25 session.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func echo(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	msg, err := req.RequireString("message")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	return mcp.NewToolResultText(msg), nil
}

func main() {
	httpAddr := flag.String("http", "", "serve Streamable HTTP at http://ADDR/mcp instead of stdio (e.g. 127.0.0.1:0)")
	flag.Parse()

	s := server.NewMCPServer("mcpgoecho", "1.2.1", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("echo",
		mcp.WithDescription("Echo the message back."),
		mcp.WithString("message", mcp.Required(), mcp.Description("text to echo back")),
	), echo)
	if *httpAddr != "" {
		serveHTTP(s, *httpAddr)
		return
	}
	if err := server.ServeStdio(s); err != nil {
		log.Fatal(err)
	}
}

func serveHTTP(s *server.MCPServer, addr string) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", server.NewStreamableHTTPServer(s))
	srv := &http.Server{Handler: mux}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() { <-ctx.Done(); srv.Close() }()
	fmt.Fprintf(os.Stderr, "listening on http://%s/mcp\n", ln.Addr())
	if err := srv.Serve(ln); err != nil && ctx.Err() == nil {
		log.Fatal(err)
	}
}
