// Command mcpgoecho is the smallest idiomatic stdio MCP server written with
// github.com/mark3labs/mcp-go v1.2.1: one tool, echo(message), answered with
// one text content block. It is a peer in internal/benchsrv's benchmarks.
//
// Eras: mcp-go v1.2.1 is dual-era on stdio with default options. It knows
// 2026-07-28 (mcp.LATEST_PROTOCOL_VERSION) down to 2024-11-05; a request
// whose _meta names 2026-07-28 is served statelessly (server/discover is
// implemented, results carry resultType), and initialize negotiates at most
// 2025-11-25. The stdio transport does not narrow the version list.
package main

import (
	"context"
	"log"

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
	s := server.NewMCPServer("mcpgoecho", "1.2.1", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("echo",
		mcp.WithDescription("Echo the message back."),
		mcp.WithString("message", mcp.Required(), mcp.Description("text to echo back")),
	), echo)
	if err := server.ServeStdio(s); err != nil {
		log.Fatal(err)
	}
}
