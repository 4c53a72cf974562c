// Command gosdkecho is the smallest idiomatic stdio MCP server written with
// the official Go SDK (github.com/modelcontextprotocol/go-sdk v1.8.0): one
// tool, echo(message), answered with one text content block. It is a peer in
// internal/benchsrv's benchmarks. Default options: on stdio the SDK serves
// both eras in one process (server/discover, or initialize); see
// internal/peers/README.md.
package main

import (
	"context"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoArgs struct {
	Message string `json:"message" jsonschema:"text to echo back"`
}

func echo(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Message}}}, nil, nil
}

func main() {
	s := mcp.NewServer(&mcp.Implementation{Name: "gosdkecho", Version: "1.8.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the message back."}, echo)
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
