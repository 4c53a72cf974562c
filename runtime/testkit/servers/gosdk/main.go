// Command gosdk is a small MCP server built on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk v1.8.0), served over stdio. It is a
// test peer for luagent's MCP client; testkit.GoSDKServer builds and
// starts it. See runtime/testkit/README.md for what each mode does on the wire.
//
// Modes (-mode):
//
//	modern       the SDK as shipped: one stdio process serves BOTH eras. The
//	             first request decides: server/discover (or any request with
//	             modern _meta) makes the process modern, initialize makes it
//	             legacy.
//	modern-only  modern, and `initialize` is refused with -32022 naming
//	             ["2026-07-28"] (a wrapper does this: the SDK cannot).
//	legacy       a legacy-only server: server/discover is answered with
//	             -32601 before the SDK sees it (a wrapper does this: the SDK
//	             alone cannot), and the SDK is limited to handshake versions.
//	sdk-legacy   the SDK limited to handshake versions with no wrapper:
//	             server/discover gets -32022 whose data.supported lists only
//	             legacy versions.
//
// With -http ADDR it serves Streamable HTTP at http://ADDR/mcp instead, and
// prints "listening on http://ADDR/mcp" to stderr once it listens: -mode
// legacy gives the SDK's stateful (session) server limited to handshake
// versions; -mode modern with -stateless its stateless server, which is
// how go-sdk serves 2026-07-28 over HTTP.
//
// Features: tools echo, add, slow, ask (elicitation), sample (sampling),
// roots (roots/list); resource test://static; template test://items/{id};
// prompt greet(name) with completion; -tools N extra tools tool_1..tool_N.
// ask/sample/roots are written once in the multi round-trip (MRTR) style: for
// a modern request the SDK returns resultType "input_required"; for a legacy
// session its built-in middleware turns the input requests into real
// server→client requests and re-runs the handler.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const modernVersion = "2026-07-28"

func main() {
	mode := flag.String("mode", "modern", "modern | modern-only | legacy | sdk-legacy")
	extra := flag.Int("tools", 0, "register N extra tools tool_1..tool_N")
	pageSize := flag.Int("page-size", 0, "list page size (0 = SDK default, 1000)")
	httpAddr := flag.String("http", "", "serve Streamable HTTP on this address (e.g. 127.0.0.1:0) instead of stdio")
	stateless := flag.Bool("stateless", false, "with -http: the SDK's stateless mode")
	flag.Parse()

	opts := &mcp.ServerOptions{
		Instructions:      "luagent test server (go-sdk v1.8.0, mode " + *mode + ")",
		PageSize:          *pageSize,
		CompletionHandler: complete,
	}
	var transport mcp.Transport = &mcp.StdioTransport{}
	switch *mode {
	case "modern":
	case "modern-only":
		opts.SupportedProtocolVersions = []string{modernVersion}
		transport = &refusing{Transport: transport, method: "initialize", refuse: refuseInitialize}
	case "legacy", "sdk-legacy":
		opts.SupportedProtocolVersions = slices.DeleteFunc(mcp.SupportedProtocolVersions(),
			func(v string) bool { return v >= modernVersion })
		if *mode == "legacy" {
			transport = &refusing{Transport: transport, method: "server/discover", refuse: refuseDiscover}
		}
	default:
		log.Fatalf("unknown -mode %q", *mode)
	}

	s := mcp.NewServer(&mcp.Implementation{Name: "luagent-gosdk-testserver", Version: "1.8.0"}, opts)
	register(s, *extra)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *httpAddr != "" {
		serveHTTP(ctx, s, *httpAddr, *stateless)
		return
	}
	if err := s.Run(ctx, transport); err != nil && ctx.Err() == nil {
		log.Printf("server: %v", err)
	}
}

type echoArgs struct {
	Message string `json:"message" jsonschema:"text to echo back"`
}
type addArgs struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}
type addOut struct {
	Sum float64 `json:"sum"`
}
type slowArgs struct {
	Seconds float64 `json:"seconds" jsonschema:"how long to run"`
}
type sampleArgs struct {
	Prompt string `json:"prompt,omitempty" jsonschema:"text to send for sampling (default: hello)"`
}
type noArgs struct{}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func register(s *mcp.Server, extra int) {
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the message back."},
		func(ctx context.Context, req *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
			// Sent only if the client asked for logs (legacy logging/setLevel,
			// modern _meta logLevel).
			_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "echo", Data: in.Message})
			return text(in.Message), nil, nil
		})

	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "Add two numbers."},
		func(ctx context.Context, req *mcp.CallToolRequest, in addArgs) (*mcp.CallToolResult, addOut, error) {
			sum := in.A + in.B
			return text(strconv.FormatFloat(sum, 'g', -1, 64)), addOut{Sum: sum}, nil
		})

	mcp.AddTool(s, &mcp.Tool{Name: "slow", Description: "Sleep for `seconds`, reporting progress every 100 ms; honours cancellation."},
		func(ctx context.Context, req *mcp.CallToolRequest, in slowArgs) (*mcp.CallToolResult, any, error) {
			token := req.Params.GetProgressToken()
			total := time.Duration(in.Seconds * float64(time.Second))
			start := time.Now()
			tick := time.NewTicker(100 * time.Millisecond)
			defer tick.Stop()
			for n := 1; time.Since(start) < total; n++ {
				select {
				case <-ctx.Done():
					return nil, nil, ctx.Err()
				case <-tick.C:
				}
				if token != nil {
					_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
						ProgressToken: token, Progress: float64(n), Total: in.Seconds * 10,
						Message: fmt.Sprintf("step %d", n),
					})
				}
			}
			return text(fmt.Sprintf("slept %gs", in.Seconds)), nil, nil
		})

	mcp.AddTool(s, &mcp.Tool{Name: "ask", Description: "Elicit a name (form) and greet it."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
			const state = "ask-state-1"
			resp, ok := req.Params.InputResponses["name"]
			if !ok {
				if err := needCapability(req, "elicitation"); err != nil {
					return nil, nil, err
				}
				return &mcp.CallToolResult{
					InputRequests: mcp.InputRequestMap{"name": &mcp.ElicitParams{
						Mode:    "form",
						Message: "What is your name?",
						RequestedSchema: map[string]any{
							"type":       "object",
							"properties": map[string]any{"name": map[string]any{"type": "string"}},
							"required":   []string{"name"},
						},
					}},
					RequestState: state,
				}, nil, nil
			}
			if req.Params.RequestState != state {
				return nil, nil, fmt.Errorf("requestState not echoed: got %q", req.Params.RequestState)
			}
			er, _ := resp.(*mcp.ElicitResult)
			if er == nil || er.Action != "accept" {
				action := "?"
				if er != nil {
					action = er.Action
				}
				return text("elicitation " + action), nil, nil
			}
			return text(fmt.Sprintf("hello %v", er.Content["name"])), nil, nil
		})

	mcp.AddTool(s, &mcp.Tool{Name: "sample", Description: "Ask the client to sample and return its text."},
		func(ctx context.Context, req *mcp.CallToolRequest, in sampleArgs) (*mcp.CallToolResult, any, error) {
			resp, ok := req.Params.InputResponses["sample"]
			if !ok {
				if err := needCapability(req, "sampling"); err != nil {
					return nil, nil, err
				}
				prompt := in.Prompt
				if prompt == "" {
					prompt = "hello"
				}
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"sample": &mcp.CreateMessageParams{
					Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: prompt}}},
					MaxTokens: 100,
				}}}, nil, nil
			}
			var content []mcp.Content
			switch r := resp.(type) {
			case *mcp.CreateMessageWithToolsResult: // modern retry and legacy middleware
				content = r.Content
			case *mcp.CreateMessageResult:
				content = []mcp.Content{r.Content}
			}
			var parts []string
			for _, c := range content {
				if t, ok := c.(*mcp.TextContent); ok {
					parts = append(parts, t.Text)
				}
			}
			return text(strings.Join(parts, "")), nil, nil
		})

	mcp.AddTool(s, &mcp.Tool{Name: "roots", Description: "List the client's roots, one URI per line."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
			resp, ok := req.Params.InputResponses["roots"]
			if !ok {
				if err := needCapability(req, "roots"); err != nil {
					return nil, nil, err
				}
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"roots": &mcp.ListRootsParams{}}}, nil, nil
			}
			var uris []string
			if r, ok := resp.(*mcp.ListRootsResult); ok {
				for _, root := range r.Roots {
					uris = append(uris, root.URI)
				}
			}
			if len(uris) == 0 {
				return text("(no roots)"), nil, nil
			}
			return text(strings.Join(uris, "\n")), nil, nil
		})

	for i := 1; i <= extra; i++ {
		name := fmt.Sprintf("tool_%d", i)
		mcp.AddTool(s, &mcp.Tool{Name: name, Description: "Extra tool for pagination tests."},
			func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, any, error) {
				return text(name), nil, nil
			})
	}

	s.AddResource(&mcp.Resource{URI: "test://static", Name: "static", MIMEType: "text/plain"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
				{URI: "test://static", MIMEType: "text/plain", Text: "static content"},
			}}, nil
		})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://items/{id}", Name: "item", MIMEType: "text/plain"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			id := strings.TrimPrefix(req.Params.URI, "test://items/")
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
				{URI: req.Params.URI, MIMEType: "text/plain", Text: "item " + id},
			}}, nil
		})

	s.AddPrompt(&mcp.Prompt{Name: "greet", Description: "Greet someone.",
		Arguments: []*mcp.PromptArgument{{Name: "name", Description: "who to greet", Required: true}}},
		func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			name := req.Params.Arguments["name"]
			if name == "" {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: `missing argument "name"`}
			}
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
				{Role: "user", Content: &mcp.TextContent{Text: "Hello, " + name + "!"}},
			}}, nil
		})
}

// complete offers names for greet's argument and ids for test://items/{id}.
func complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	var pool []string
	switch {
	case req.Params.Ref.Type == "ref/prompt" && req.Params.Ref.Name == "greet" && req.Params.Argument.Name == "name":
		pool = []string{"alice", "bob", "carol"}
	case req.Params.Ref.Type == "ref/resource" && req.Params.Ref.URI == "test://items/{id}" && req.Params.Argument.Name == "id":
		pool = []string{"1", "2", "3"}
	}
	values := []string{}
	for _, v := range pool {
		if strings.HasPrefix(v, req.Params.Argument.Value) {
			values = append(values, v)
		}
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values, Total: len(values)}}, nil
}

// needCapability refuses a modern request whose per-request capabilities lack
// what the tool would ask for (-32021, 2026-07-28 basic/index). Legacy sessions
// are left to the SDK, whose server→client request fails on its own.
func needCapability(req *mcp.CallToolRequest, name string) error {
	if req.ProtocolVersion() < modernVersion {
		return nil
	}
	caps := req.ClientCapabilities()
	have := caps != nil && map[string]bool{
		"elicitation": caps.Elicitation != nil,
		"sampling":    caps.Sampling != nil,
		"roots":       caps.RootsV2 != nil || caps.Roots != (mcp.RootCapabilities{}),
	}[name]
	if have {
		return nil
	}
	data, _ := json.Marshal(map[string]any{"requiredCapabilities": map[string]any{name: map[string]any{}}})
	return &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities,
		Message: "missing required client capability: " + name, Data: data}
}

// refusing wraps a transport so that calls to one method are answered by
// refuse and never reach the SDK.
type refusing struct {
	mcp.Transport
	method string
	refuse func(params json.RawMessage) *jsonrpc.Error
}

func (t *refusing) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &refusingConn{Connection: c, t: t}, nil
}

type refusingConn struct {
	mcp.Connection
	t *refusing
}

func (c *refusingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.Connection.Read(ctx)
		if err != nil {
			return nil, err
		}
		req, ok := msg.(*jsonrpc.Request)
		if !ok || req.Method != c.t.method || !req.ID.IsValid() {
			return msg, nil
		}
		if err := c.Connection.Write(ctx, &jsonrpc.Response{ID: req.ID, Error: c.t.refuse(req.Params)}); err != nil {
			return nil, err
		}
	}
}

// refuseDiscover answers like a legacy TypeScript-SDK server does.
func refuseDiscover(json.RawMessage) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "Method not found"}
}

// refuseInitialize names the supported versions, as 2026-07-28 versioning.mdx
// asks of a modern-only server receiving initialize.
func refuseInitialize(params json.RawMessage) *jsonrpc.Error {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(params, &p)
	data, _ := json.Marshal(map[string]any{"supported": []string{modernVersion}, "requested": p.ProtocolVersion})
	return &jsonrpc.Error{Code: mcp.CodeUnsupportedProtocolVersion, Message: "Unsupported protocol version", Data: data}
}

func serveHTTP(ctx context.Context, s *mcp.Server, addr string, stateless bool) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Fatal(err)
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: stateless})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	srv := &http.Server{Handler: mux}
	fmt.Fprintf(os.Stderr, "listening on http://%s/mcp\n", ln.Addr())
	go func() { <-ctx.Done(); srv.Close() }()
	if err := srv.Serve(ln); err != nil && ctx.Err() == nil {
		log.Print(err)
	}
}
