// Command gosdkecho is the smallest idiomatic MCP server written with the
// official Go SDK (github.com/modelcontextprotocol/go-sdk v1.8.0): one tool,
// echo(message), answered with one text content block. It is a peer in
// scripts/bench/benchsrv's (stdio) and scripts/bench/benchhttp's (Streamable HTTP)
// benchmarks.
//
// Default options: on stdio the SDK serves both eras in one process
// (server/discover, or initialize); see runtime/testkit/README.md.
//
// With -http ADDR (e.g. 127.0.0.1:0) it serves Streamable HTTP at
// http://ADDR/mcp through mcp.NewStreamableHTTPHandler instead, and prints
// "listening on http://HOST:PORT/mcp" to stderr once it listens. The SDK's
// HTTP handler serves 2025-11-25 sessions (Mcp-Session-Id) by default and
// 2026-07-28 only with -stateless (StreamableHTTPOptions.Stateless: its
// transport refuses versions >= 2026-07-28 otherwise); a stateless handler
// also answers sessionless 2025-11-25 requests.
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

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoArgs struct {
	Message string `json:"message" jsonschema:"text to echo back"`
}

func echo(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Message}}}, nil, nil
}

func main() {
	httpAddr := flag.String("http", "", "serve Streamable HTTP at http://ADDR/mcp instead of stdio (e.g. 127.0.0.1:0)")
	stateless := flag.Bool("stateless", false, "with -http: the SDK's stateless mode (needed for 2026-07-28)")
	flag.Parse()

	s := mcp.NewServer(&mcp.Implementation{Name: "gosdkecho", Version: "1.8.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the message back."}, echo)
	if *httpAddr != "" {
		serveHTTP(s, *httpAddr, *stateless)
		return
	}
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}

func serveHTTP(s *mcp.Server, addr string, stateless bool) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: stateless}))
	srv := &http.Server{Handler: mux}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() { <-ctx.Done(); srv.Close() }()
	fmt.Fprintf(os.Stderr, "listening on http://%s/mcp\n", ln.Addr())
	if err := srv.Serve(ln); err != nil && ctx.Err() == nil {
		log.Fatal(err)
	}
}
