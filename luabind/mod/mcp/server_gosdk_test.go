package mcp_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/testkit"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// notified is the mutex that guards what an SDK client's handlers record;
// its Unlock wakes those in waitUntil. The SDK delivers notifications apart
// from the answer of the call that caused them, so they may still be on the
// way when the call returns.
type notified struct {
	sync.Mutex
	changed chan struct{} // closed by Unlock; nil when nobody waits
}

func (n *notified) Unlock() {
	if n.changed != nil {
		close(n.changed)
		n.changed = nil
	}
	n.Mutex.Unlock()
}

// waitUntil waits (10 s at most) until done, called with n locked, holds.
func (n *notified) waitUntil(done func() bool) {
	timeout := time.After(10 * time.Second)
	for {
		n.Lock()
		if done() {
			n.Unlock()
			return
		}
		if n.changed == nil {
			n.changed = make(chan struct{})
		}
		changed := n.changed
		n.Mutex.Unlock()
		select {
		case <-changed:
		case <-timeout:
			return // the checks that follow say what is missing
		}
	}
}

// The Lua server driven by the Go SDK v1.8.0 client, in both eras.
func TestServerWithGoSDKClient(t *testing.T) {
	bin := testkit.Build(t, "cmd/luagent")
	server, _ := filepath.Abs("testdata/servers/everything.lua")
	for _, era := range []string{"modern", "legacy"} {
		t.Run(era, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			var mu notified
			var progress []float64
			var logs []string
			elicits := 0
			client := sdk.NewClient(&sdk.Implementation{Name: "gosdk-test", Version: "1"}, &sdk.ClientOptions{
				ElicitationHandler: func(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
					mu.Lock()
					elicits++
					mu.Unlock()
					if strings.Contains(req.Params.Message, "First") {
						return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"name": "Go"}}, nil
					}
					return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"colour": "blue"}}, nil
				},
				CreateMessageHandler: func(ctx context.Context, req *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
					return &sdk.CreateMessageResult{Role: "assistant", Model: "go", Content: &sdk.TextContent{Text: "hi from Go"}}, nil
				},
				ProgressNotificationHandler: func(ctx context.Context, req *sdk.ProgressNotificationClientRequest) {
					mu.Lock()
					progress = append(progress, req.Params.Progress)
					mu.Unlock()
				},
				LoggingMessageHandler: func(ctx context.Context, req *sdk.LoggingMessageRequest) {
					mu.Lock()
					logs = append(logs, string(req.Params.Level))
					mu.Unlock()
				},
			})
			client.AddRoots(&sdk.Root{URI: "file:///go", Name: "go"})
			cs := connectGoSDK(ctx, t, client, "stdio", era, bin, server)
			text := func(r *sdk.CallToolResult) string {
				if r == nil || len(r.Content) == 0 {
					return ""
				}
				if tc, ok := r.Content[0].(*sdk.TextContent); ok {
					return tc.Text
				}
				return ""
			}
			call := func(name string, args map[string]any, meta sdk.Meta) *sdk.CallToolResult {
				t.Helper()
				p := &sdk.CallToolParams{Name: name, Arguments: args}
				if meta != nil {
					p.Meta = meta
				}
				r, err := cs.CallTool(ctx, p)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				return r
			}
			tools, err := cs.ListTools(ctx, nil)
			if err != nil || len(tools.Tools) < 15 {
				t.Fatalf("tools: %v %v", len(tools.Tools), err)
			}
			if got := text(call("echo", map[string]any{"message": "go"}, nil)); got != "go" {
				t.Errorf("echo %q", got)
			}
			if got := text(call("add", map[string]any{"a": 40, "b": 2}, nil)); got != "42" {
				t.Errorf("add %q", got)
			}
			st := call("structured", map[string]any{"city": "Rome"}, nil)
			if b, _ := json.Marshal(st.StructuredContent); !strings.Contains(string(b), `"city":"Rome"`) {
				t.Errorf("structured %s", b)
			}
			if r := call("fail", nil, nil); !r.IsError || text(r) != "the tool broke" {
				t.Errorf("fail %+v", r)
			}
			if got := text(call("ask_twice", nil, nil)); got != "hello Go, who likes blue" {
				t.Errorf("two elicitation rounds: %q", got)
			}
			if got := text(call("sample", nil, nil)); got != "the model said: hi from Go" {
				t.Errorf("sample %q", got)
			}
			if got := text(call("roots", nil, nil)); got != "file:///go" {
				t.Errorf("roots %q", got)
			}
			call("slow", map[string]any{"seconds": 0.3}, sdk.Meta{"progressToken": "p1"})
			if era == "legacy" {
				if err := cs.SetLoggingLevel(ctx, &sdk.SetLoggingLevelParams{Level: "error"}); err != nil {
					t.Fatal(err)
				}
				call("log", nil, nil)
			} else {
				call("log", nil, sdk.Meta{"io.modelcontextprotocol/logLevel": "error"})
			}
			res, err := cs.ListResources(ctx, nil)
			if err != nil || len(res.Resources) != 2 {
				t.Fatalf("resources %v %v", res, err)
			}
			rr, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "test://items/9"})
			if err != nil || rr.Contents[0].Text != "item 9" {
				t.Fatalf("read %v %v", rr, err)
			}
			if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "test://missing"}); err == nil {
				t.Error("reading a missing resource should fail")
			}
			tpl, err := cs.ListResourceTemplates(ctx, nil)
			if err != nil || len(tpl.ResourceTemplates) != 1 {
				t.Fatalf("templates %v %v", tpl, err)
			}
			pr, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "greet", Arguments: map[string]string{"name": "Gopher"}})
			if err != nil || pr.Messages[0].Content.(*sdk.TextContent).Text != "Hello, Gopher!" {
				t.Fatalf("prompt %v %v", pr, err)
			}
			comp, err := cs.Complete(ctx, &sdk.CompleteParams{Ref: &sdk.CompleteReference{Type: "ref/prompt", Name: "greet"},
				Argument: sdk.CompleteParamsArgument{Name: "name", Value: "a"}})
			if err != nil || len(comp.Completion.Values) != 3 {
				t.Fatalf("complete %v %v", comp, err)
			}
			mu.waitUntil(func() bool { return len(progress) >= 3 && len(logs) >= 4 })
			mu.Lock()
			defer mu.Unlock()
			if elicits != 2 {
				t.Errorf("%d elicitations, want 2", elicits)
			}
			if len(progress) != 3 {
				t.Errorf("progress %v", progress)
			}
			if strings.Join(logs, ",") != "error,critical,alert,emergency" {
				t.Errorf("logs %v", logs)
			}
		})
	}
}

// serveHTTP starts `bin serve server --http` on a free loopback port and
// returns the endpoint's URL; the process ends with the test.
func serveHTTP(t *testing.T, bin, server string, args ...string) string {
	t.Helper()
	url, _, _ := serveAuth(t, bin, nil, append([]string{"serve", server, "--http", "127.0.0.1:0/mcp"}, args...)...)
	return url
}

// connectGoSDK connects client to `bin serve server` over transport
// ("stdio" or "http") in era ("modern" is the SDK's default negotiation,
// "legacy" pins 2025-11-25) and checks the negotiated version; the session
// closes with the test.
func connectGoSDK(ctx context.Context, t *testing.T, client *sdk.Client, transport, era, bin, server string) *sdk.ClientSession {
	t.Helper()
	var opts *sdk.ClientSessionOptions
	if era == "legacy" {
		opts = &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"}
	}
	var tr sdk.Transport = &sdk.CommandTransport{Command: exec.Command(bin, "serve", server)}
	if transport == "http" {
		tr = &sdk.StreamableClientTransport{Endpoint: serveHTTP(t, bin, server)}
	}
	cs, err := client.Connect(ctx, tr, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	want := map[string]string{"modern": "2026-07-28", "legacy": "2025-11-25"}[era]
	if v := cs.InitializeResult().ProtocolVersion; v != want {
		t.Fatalf("negotiated %s, want %s", v, want)
	}
	return cs
}
