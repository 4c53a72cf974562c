package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// logWatch is a process's stderr as it arrives, for a test to wait on.
type logWatch struct {
	mu   sync.Mutex
	b    strings.Builder
	grew chan struct{}
}

func newLogWatch() *logWatch { return &logWatch{grew: make(chan struct{})} }

func (w *logWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b.Write(p)
	close(w.grew)
	w.grew = make(chan struct{})
	return len(p), nil
}

func (w *logWatch) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// waitFor waits until the text holds substr (false after 20 s).
func (w *logWatch) waitFor(substr string) bool {
	timeout := time.After(20 * time.Second)
	for {
		w.mu.Lock()
		found, grew := strings.Contains(w.b.String(), substr), w.grew
		w.mu.Unlock()
		if found {
			return true
		}
		select {
		case <-grew:
		case <-timeout:
			return false
		}
	}
}

// traceHas waits (20 s at most) until the trace file has a line with each
// of the substrings after the last line with the first.
func traceHas(file string, first string, then ...string) bool {
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		raw, _ := os.ReadFile(file)
		s := string(raw)
		i := strings.LastIndex(s, first)
		if i < 0 {
			continue
		}
		all := true
		for _, sub := range then {
			all = all && strings.Contains(s[i:], sub)
		}
		if all {
			return true
		}
	}
	return false
}

// startAgentsHTTP runs `luagent ARGS...` (a serve --http) and returns its
// URL once it listens.
func startAgentsHTTP(t *testing.T, stderr *logWatch, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(append(os.Environ(), "LUAGENT_HOME="+t.TempDir()), env...)
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-exited })
	if !stderr.waitFor(" at http://") {
		t.Fatalf("the server did not start: %s", stderr)
	}
	_, url, _ := strings.Cut(stderr.String(), " at http://")
	url, _, _ = strings.Cut(url, "\n")
	return "http://" + strings.TrimSpace(url)
}

// examples/agents.lua served to the Go SDK client, both eras, over stdio
// (mcp-server --agent-file) and HTTP (serve AGENT_FILE --http, two Lua
// workers): each agent
// is a tool with the prompt schema, a call returns the answer with the
// transcript when asked, the agent's tool calls arrive as progress with
// messages, and a cancelled call stops the agent's running tool call (the
// trace shows notifications/cancelled sent to the timer server and the
// call ending long before its 2 s).
func TestAgentsServedToGoSDK(t *testing.T) {
	agents, _ := filepath.Abs("../../examples/agents.lua")
	for _, transport := range []string{"stdio", "http"} {
		for _, era := range []string{"modern", "legacy"} {
			t.Run(transport+"/"+era, func(t *testing.T) {
				t.Parallel()
				ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
				defer cancel()
				var mu sync.Mutex
				var progress []string
				firstProgress := make(chan struct{}, 1)
				stepped := make(chan struct{}, 1) // the timer's first step: its call is under way
				client := sdk.NewClient(&sdk.Implementation{Name: "gosdk-agents", Version: "1"}, &sdk.ClientOptions{
					ProgressNotificationHandler: func(ctx context.Context, req *sdk.ProgressNotificationClientRequest) {
						mu.Lock()
						progress = append(progress, req.Params.Message)
						mu.Unlock()
						if strings.Contains(req.Params.Message, "waited 1/4") {
							select {
							case stepped <- struct{}{}:
							default:
							}
						}
						select {
						case firstProgress <- struct{}{}:
						default:
						}
					},
				})
				stderr := newLogWatch()
				traceFile := filepath.Join(t.TempDir(), "trace.jsonl")
				var tr sdk.Transport
				if transport == "stdio" {
					cmd := exec.Command(bin, "--trace", traceFile, "--set", "timer_seconds=2", "mcp-server", "--agent-file", agents)
					cmd.Env = append(os.Environ(), "LUAGENT_HOME="+t.TempDir())
					cmd.Stderr = stderr
					tr = &sdk.CommandTransport{Command: cmd}
				} else {
					tr = &sdk.StreamableClientTransport{Endpoint: startAgentsHTTP(t, stderr, nil, "--trace", traceFile, "--set", "timer_seconds=2", "serve", agents, "--http", "127.0.0.1:0/mcp", "--workers", "2")}
				}
				var opts *sdk.ClientSessionOptions
				if era == "legacy" {
					opts = &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"}
				}
				cs, err := client.Connect(ctx, tr, opts)
				if err != nil {
					t.Fatalf("%v\n%s", err, stderr)
				}
				defer cs.Close()
				want := map[string]string{"modern": "2026-07-28", "legacy": "2025-11-25"}[era]
				if v := cs.InitializeResult().ProtocolVersion; v != want {
					t.Fatalf("negotiated %s, want %s", v, want)
				}
				if info := cs.InitializeResult().ServerInfo; info.Name != "luagent-agents" || info.Version == "" {
					t.Errorf("server info %+v", info)
				}

				tools, err := cs.ListTools(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				names := map[string]string{}
				for _, tool := range tools.Tools {
					raw, _ := json.Marshal(tool.InputSchema)
					var s struct {
						Properties map[string]struct {
							Type string `json:"type"`
						} `json:"properties"`
						Required []string `json:"required"`
					}
					json.Unmarshal(raw, &s)
					if s.Properties["prompt"].Type != "string" || len(s.Required) != 1 || s.Required[0] != "prompt" {
						t.Errorf("%s: input schema %s", tool.Name, raw)
					}
					names[tool.Name] = tool.Description
				}
				if len(names) != 2 || names["word_counter"] != "Counts the words of a text" || names["timer"] == "" {
					t.Errorf("tools %v", names)
				}

				text := func(r *sdk.CallToolResult) string {
					if r != nil && len(r.Content) > 0 {
						if tc, ok := r.Content[0].(*sdk.TextContent); ok {
							return tc.Text
						}
					}
					return ""
				}
				r, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "word_counter", Arguments: map[string]any{"prompt": "count the words"}})
				if err != nil || r.IsError || text(r) != `The tool returned: "1"` {
					t.Errorf("word_counter: %v %+v %q", err, r, text(r))
				}
				p := &sdk.CallToolParams{Name: "timer", Arguments: map[string]any{"prompt": "wait", "transcript": true}}
				p.SetProgressToken("p1")
				r, err = cs.CallTool(ctx, p)
				if err != nil || r.IsError || !strings.Contains(text(r), "waited 2 s") {
					t.Fatalf("timer: %v %+v %q\n%s", err, r, text(r), stderr)
				}
				sc, _ := json.Marshal(r.StructuredContent)
				if !strings.Contains(string(sc), `"tool_calls":[{`) || !strings.Contains(string(sc), `"text":"The tool returned`) {
					t.Errorf("structuredContent %s", sc)
				}
				// The SDK may run progress handlers after CallTool returns.
				got := ""
				for end := time.Now().Add(10 * time.Second); time.Now().Before(end); {
					mu.Lock()
					got = strings.Join(progress, "\n")
					mu.Unlock()
					if strings.Contains(got, "timer › wait done") {
						break
					}
					select {
					case <-firstProgress:
					case <-time.After(time.Second):
					}
				}
				mu.Lock()
				progress = nil
				mu.Unlock()
				for _, line := range []string{"timer › wait …", "timer › wait: waited 4/4", "timer › wait done"} {
					if !strings.Contains(got, line) {
						t.Errorf("progress lacks %q:\n%s", line, got)
					}
				}

				// Cancel once the agent's tool call is under way on the server.
				for len(stepped) > 0 {
					<-stepped
				}
				cctx, ccancel := context.WithCancel(ctx)
				done := make(chan error, 1)
				go func() {
					p := &sdk.CallToolParams{Name: "timer", Arguments: map[string]any{"prompt": "wait"}}
					p.SetProgressToken("p2")
					_, err := cs.CallTool(cctx, p)
					done <- err
				}()
				select {
				case <-stepped:
				case <-ctx.Done():
					t.Fatal("no progress from the second call")
				}
				ccancel()
				if err := <-done; err == nil {
					t.Error("the cancelled call returned no error")
				}
				if !traceHas(traceFile, `"kind":"notification_out","server":"timer","method":"notifications/cancelled"`, `"kind":"agent_tool_call"`) {
					raw, _ := os.ReadFile(traceFile)
					t.Fatalf("no notifications/cancelled to the timer server in the trace:\n%s", raw)
				}
				var call struct {
					Duration time.Duration `json:"duration_ns"`
					Error    string        `json:"error"`
				}
				raw, _ := os.ReadFile(traceFile)
				lines := strings.Split(string(raw), "\n")
				for i := len(lines) - 1; i >= 0; i-- {
					if strings.Contains(lines[i], `"kind":"agent_tool_call"`) {
						json.Unmarshal([]byte(lines[i]), &call)
						break
					}
				}
				// Over modern HTTP the SDK cancels by closing the request's stream.
				if call.Duration >= 1900*time.Millisecond || !strings.Contains(call.Error, "cancel") && !strings.Contains(call.Error, "went away") {
					t.Errorf("the cancelled tool call: %+v", call)
				}
				// The server answers on after a cancel.
				r, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "word_counter", Arguments: map[string]any{"prompt": "count"}})
				if err != nil || r.IsError {
					t.Errorf("after the cancel: %v %+v", err, r)
				}
			})
		}
	}
}

// An elicitation or a sampling request a served agent's server makes
// reaches the calling client, and its answer goes back to the server: in
// the legacy era as a request to the client; in the modern era as an
// input_required round (the Go SDK answers and calls again), the agent's
// run parked meanwhile rather than run again.
func TestAgentsServedElicitation(t *testing.T) {
	agentFile, _ := filepath.Abs("testdata/ask_agent.lua")
	server, _ := filepath.Abs("testdata/ask_server.lua")
	for _, era := range []string{"legacy", "modern"} {
		want := "greeting: accept Go"
		t.Run(era, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			asked := 0
			client := sdk.NewClient(&sdk.Implementation{Name: "elicit", Version: "1"}, &sdk.ClientOptions{
				ElicitationHandler: func(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
					asked++
					return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"name": "Go"}}, nil
				},
				CreateMessageHandler: func(ctx context.Context, req *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
					asked++
					return &sdk.CreateMessageResult{Role: "assistant", Model: "go", Content: &sdk.TextContent{Text: "hi from Go"}}, nil
				},
			})
			cmd := exec.Command(bin, "mcp-server", "--agent-file", agentFile)
			cmd.Env = append(os.Environ(), "LUAGENT_HOME="+t.TempDir(), "ASK_SERVER="+server)
			stderr := newLogWatch()
			cmd.Stderr = stderr
			var opts *sdk.ClientSessionOptions
			if era == "legacy" {
				opts = &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"}
			}
			cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, opts)
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			defer cs.Close()
			r, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "greeter", Arguments: map[string]any{"prompt": "greet me"}})
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			out, _ := json.Marshal(r.Content)
			if !strings.Contains(string(out), want) {
				t.Errorf("got %s, want %q\n%s", out, want, stderr)
			}
			r, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "greeter", Arguments: map[string]any{"prompt": "summarize this text"}})
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			out, _ = json.Marshal(r.Content)
			if !strings.Contains(string(out), "sampled: hi from Go") {
				t.Errorf("sampling: got %s, want the client's sample\n%s", out, stderr)
			}
			if asked != 2 {
				t.Errorf("the client was asked %d times, want 2", asked)
			}
		})
	}
}

// Two served calls at once whose agent runs both wait on one 2026-07-28
// server's question: each question reaches its own call (the run's tag
// rides its tool call's context to the hub's on_elicit), none declined.
func TestAgentsServedElicitationConcurrent(t *testing.T) {
	agentFile, _ := filepath.Abs("testdata/ask_agent.lua")
	server, _ := filepath.Abs("testdata/ask_server.lua")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var asked atomic.Int32
	client := sdk.NewClient(&sdk.Implementation{Name: "elicit", Version: "1"}, &sdk.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			asked.Add(1)
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"name": "Go"}}, nil
		},
	})
	cmd := exec.Command(bin, "mcp-server", "--agent-file", agentFile)
	cmd.Env = append(os.Environ(), "LUAGENT_HOME="+t.TempDir(), "ASK_SERVER="+server)
	stderr := newLogWatch()
	cmd.Stderr = stderr
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	defer cs.Close()
	outs := make(chan string, 2)
	for range 2 {
		go func() {
			r, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "greeter", Arguments: map[string]any{"prompt": "meet someone"}})
			if err != nil {
				outs <- err.Error()
				return
			}
			b, _ := json.Marshal(r.Content)
			outs <- string(b)
		}()
	}
	for range 2 {
		if out := <-outs; !strings.Contains(out, "met: accept Go") {
			t.Errorf("got %s, want the client's answer\n%s", out, stderr)
		}
	}
	if n := asked.Load(); n != 2 {
		t.Errorf("the client was asked %d times, want 2", n)
	}
}
