package mcp_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"strconv"

	"github.com/luagent/luagent/runtime/mcp"
	"github.com/luagent/luagent/runtime/transport"
	"github.com/luagent/luagent/runtime/transport/httpserver"
)

// A Go tool served over stdio, with no Lua involved. Here the client's
// side of the pipe is written by hand; a real server passes os.Stdin and
// os.Stdout to transport.NewStdio.
func ExampleServer() {
	srv := mcp.NewServer(mcp.ServerOptions{Info: mcp.Implementation{Name: "calc", Version: "1.0.0"}})
	defer srv.Close()
	mcp.AddToolFunc(srv, mcp.Tool{Name: "add", Description: "Add two numbers"},
		func(ctx context.Context, in struct {
			A float64 `json:"a"`
			B float64 `json:"b"`
		}) (*mcp.CallToolResult, error) {
			return mcp.TextResult(strconv.FormatFloat(in.A+in.B, 'g', -1, 64)), nil
		})

	clientOut, serverIn := io.Pipe()
	serverOut, clientIn := io.Pipe()
	go srv.ServeStream(context.Background(), transport.NewStdio(clientOut, clientIn, 0))

	// A 2026-07-28 request: no handshake, the envelope in _meta.
	fmt.Fprintln(serverIn, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3},`+
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	answer, _ := bufio.NewReader(serverOut).ReadString('\n')
	fmt.Print(answer)
	serverIn.Close()
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"calc","version":"1.0.0"}},"content":[{"type":"text","text":"5"}]}}
}

// The same tool over Streamable HTTP (runtime/transport/httpserver), called by the Go
// client in each era.
func ExampleServer_http() {
	srv := mcp.NewServer(mcp.ServerOptions{Info: mcp.Implementation{Name: "calc", Version: "1.0.0"}})
	defer srv.Close()
	mcp.AddToolFunc(srv, mcp.Tool{Name: "add"}, func(ctx context.Context, in struct{ A, B float64 }) (*mcp.CallToolResult, error) {
		return mcp.TextResult(strconv.FormatFloat(in.A+in.B, 'g', -1, 64)), nil
	})
	h := httpserver.NewHandler(srv, httpserver.Options{})
	defer h.Close()
	web := httptest.NewServer(h)
	defer web.Close()

	ctx := context.Background()
	for _, era := range []string{"modern", "legacy"} {
		c, err := mcp.Connect(ctx, mcp.Options{URL: web.URL, Protocol: era})
		if err != nil {
			fmt.Println(err)
			return
		}
		res, err := c.CallTool(ctx, "add", []byte(`{"A":2,"B":3}`), mcp.CallOptions{})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(c.Info().Era, res.Text())
		c.Close()
	}
	// Output:
	// modern 5
	// legacy 5
}
