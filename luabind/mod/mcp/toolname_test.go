package mcp_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	rmcp "github.com/luagent/luagent/runtime/mcp"
	"github.com/luagent/luagent/runtime/testkit"
	"github.com/luagent/luagent/runtime/transport"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

const ctlTool = "a\u0001b" // a control character in a tool's name

// A tool whose name holds a control character is listed and called by
// luagent's client and by the Go SDK, in both eras: the name goes out as
// JSON (\u0001), not as Go's quoting (\x01), which no peer parses.
func TestControlCharacterToolName(t *testing.T) {
	bin := testkit.Build(t, "cmd/luagent")
	server, _ := filepath.Abs("testdata/servers/careless.lua")
	for _, era := range []string{"legacy", "modern"} {
		t.Run("luagent/"+era, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			rmcp.ForgetEra()
			c, err := rmcp.Connect(ctx, rmcp.Options{Name: "careless", Protocol: era, Timeout: 5 * time.Second,
				Command: transport.Command{Path: bin, Args: []string{"serve", server}}})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			tools, err := c.Tools(ctx)
			if err != nil || len(tools) != 2 || tools[0].Name != ctlTool {
				t.Fatalf("tools: %v %v", tools, err)
			}
			r, err := c.CallTool(ctx, ctlTool, json.RawMessage(`{"message":"hi"}`), rmcp.CallOptions{})
			if err != nil || r.Text() != "echo hi" {
				t.Fatalf("call: %v %v", r, err)
			}
			done := make(chan error, 1)
			c.CallToolAsync(ctx, ctlTool, json.RawMessage(`{"message":"again"}`), rmcp.CallOptions{}, func(_ json.RawMessage, err error) { done <- err })
			if err := <-done; err != nil {
				t.Fatalf("async call: %v", err)
			}
		})
		t.Run("gosdk/"+era, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cs := connectGoSDK(ctx, t, sdk.NewClient(&sdk.Implementation{Name: "gosdk-test", Version: "1"}, nil), "stdio", era, bin, server)
			tools, err := cs.ListTools(ctx, nil)
			if err != nil || len(tools.Tools) != 2 || tools.Tools[0].Name != ctlTool {
				t.Fatalf("tools: %v %v", tools, err)
			}
			r, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: ctlTool, Arguments: map[string]any{"message": "go"}})
			if err != nil || r.IsError || len(r.Content) != 1 || r.Content[0].(*sdk.TextContent).Text != "echo go" {
				t.Fatalf("call: %+v %v", r, err)
			}
		})
	}
}
