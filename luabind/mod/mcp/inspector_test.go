package mcp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/testkit"
)

// The official MCP Inspector CLI (@modelcontextprotocol/inspector 2.12.0 on
// the Node 24 of scripts/tsclient) drives the conformance fixture over
// Streamable HTTP, once per protocol era. Every request goes through a
// recording proxy, so the test fails if the inspector quietly spoke the
// other era: legacy must initialize a 2025-11-25 session, modern must never
// initialize and must send 2026-07-28 on every request.
func TestInspectorCLI(t *testing.T) {
	node, cli := testkit.Inspector(t)
	bin := testkit.Build(t, "cmd/luagent")
	server, _ := filepath.Abs(fixturePath)

	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			t.Parallel()
			wire := &inspWire{}
			endpoint := wire.proxy(t, serveHTTP(t, bin, server))
			home := t.TempDir() // the inspector keeps state in ~/.mcp-inspector

			type result struct {
				Result json.RawMessage `json:"result"`
			}
			// inspect runs one CLI invocation and returns its exit code, the
			// "result" it printed (--format json) and its stderr.
			inspect := func(args ...string) (int, json.RawMessage, string) {
				t.Helper()
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				argv := append([]string{cli, "--cli", endpoint, "--transport", "http", "--protocol-era", era,
					"--format", "json", "--connect-timeout", "20000"}, args...)
				cmd := exec.CommandContext(ctx, node, argv...)
				cmd.Env = append(os.Environ(), "HOME="+home, "NO_COLOR=1", "MCP_CATALOG_PATH="+filepath.Join(home, "mcp.json"))
				cmd.WaitDelay = 5 * time.Second
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err := cmd.Run()
				if ctx.Err() != nil {
					t.Fatalf("mcp-inspector %s: timed out\n%s\n%s", strings.Join(args, " "), stdout.String(), stderr.String())
				}
				code := 0
				var exit *exec.ExitError
				if errors.As(err, &exit) {
					code = exit.ExitCode()
				} else if err != nil {
					t.Fatalf("mcp-inspector: %v", err)
				}
				var r result
				if out := bytes.TrimSpace(stdout.Bytes()); len(out) > 0 {
					if err := json.Unmarshal(out, &r); err != nil {
						t.Fatalf("mcp-inspector %s printed %q (%v)\n%s", strings.Join(args, " "), out, err, stderr.String())
					}
				}
				return code, r.Result, stderr.String()
			}
			ok := func(args ...string) json.RawMessage {
				t.Helper()
				code, res, stderr := inspect(args...)
				if code != 0 || res == nil {
					t.Fatalf("mcp-inspector %s: exit %d, result %s\n%s", strings.Join(args, " "), code, res, stderr)
				}
				return res
			}

			type content struct {
				Type string `json:"type"`
				Text string `json:"text"`
			}
			type callResult struct {
				Meta    map[string]json.RawMessage `json:"_meta"`
				Content []content                  `json:"content"`
				IsError bool                       `json:"isError"`
			}
			// serverInfo is the modern era's per-result _meta entry; a
			// legacy result has none.
			checkMeta := func(what string, meta map[string]json.RawMessage) {
				t.Helper()
				raw, has := meta["io.modelcontextprotocol/serverInfo"]
				if era == "legacy" {
					if has {
						t.Errorf("%s: a legacy result carries serverInfo in _meta: %s", what, raw)
					}
					return
				}
				var info struct{ Name, Version string }
				if json.Unmarshal(raw, &info); info.Name != "luagent-conformance" || info.Version != "1.0.0" {
					t.Errorf("%s: _meta serverInfo = %s, want luagent-conformance 1.0.0", what, raw)
				}
			}
			call := func(wantText string, args ...string) {
				t.Helper()
				var r callResult
				json.Unmarshal(ok(append([]string{"--method", "tools/call"}, args...)...), &r)
				if r.IsError || len(r.Content) != 1 || r.Content[0].Type != "text" || r.Content[0].Text != wantText {
					t.Errorf("tools/call %s = %+v, want the text %q", strings.Join(args, " "), r, wantText)
				}
				checkMeta("tools/call "+args[1], r.Meta)
			}

			// tools/list
			var tools struct {
				Tools []struct {
					Name        string          `json:"name"`
					InputSchema json.RawMessage `json:"inputSchema"`
				} `json:"tools"`
			}
			json.Unmarshal(ok("--method", "tools/list"), &tools)
			var toolNames []string
			for _, tl := range tools.Tools {
				toolNames = append(toolNames, tl.Name)
			}
			for _, want := range []string{"test_simple_text", "test_custom_header", "json_schema_2020_12_tool", "test_error_handling"} {
				if !slices.Contains(toolNames, want) {
					t.Errorf("tools/list lacks %s: %v", want, toolNames)
				}
			}
			if len(tools.Tools) < 26 {
				t.Errorf("tools/list: %d tools, want at least 26", len(tools.Tools))
			}

			// tools/call: no arguments, a key=value argument (mirrored into
			// the Mcp-Param-Region header in the modern era), a JSON object
			// checked against a 2020-12 schema, and isError results.
			call("This is a simple text response for testing.", "--tool-name", "test_simple_text")
			call("region: eu", "--tool-name", "test_custom_header", "--tool-arg", "region=eu")
			call(`JSON Schema 2020-12 tool called with: {"email":"insp@example.com","name":"Insp"}`,
				"--tool-name", "json_schema_2020_12_tool", "--tool-args-json", `{"name":"Insp","email":"insp@example.com"}`)
			for _, c := range []struct{ args, want string }{
				{"test_error_handling", "This tool intentionally returns an error for testing"},
				{"json_schema_2020_12_tool --tool-arg name=Insp", "argument email is missing"},
			} {
				// The CLI exits 5 on an isError result and still prints it.
				code, res, stderr := inspect(append([]string{"--method", "tools/call", "--tool-name"}, strings.Fields(c.args)...)...)
				var r callResult
				json.Unmarshal(res, &r)
				if code != 5 || !r.IsError || len(r.Content) != 1 || !strings.Contains(r.Content[0].Text, c.want) {
					t.Errorf("tools/call %s: exit %d, result %s, want isError with %q\n%s", c.args, code, res, c.want, stderr)
				}
			}

			// resources/list and resources/read
			var resources struct {
				Resources []struct{ URI, Name, MimeType string } `json:"resources"`
			}
			json.Unmarshal(ok("--method", "resources/list"), &resources)
			found := false
			for _, r := range resources.Resources {
				found = found || r == struct{ URI, Name, MimeType string }{"test://static-text", "static-text", "text/plain"}
			}
			if !found || len(resources.Resources) < 5 {
				t.Errorf("resources/list = %+v, want test://static-text among at least 5", resources.Resources)
			}
			var read struct {
				Meta       map[string]json.RawMessage `json:"_meta"`
				Contents   []struct{ URI, MimeType, Text string }
				CacheScope *string `json:"cacheScope"`
			}
			json.Unmarshal(ok("--method", "resources/read", "--uri", "test://static-text"), &read)
			if len(read.Contents) != 1 || read.Contents[0] != (struct{ URI, MimeType, Text string }{
				"test://static-text", "text/plain", "This is the content of the static text resource."}) {
				t.Errorf("resources/read test://static-text = %+v", read.Contents)
			}
			checkMeta("resources/read", read.Meta)
			if hasHint := read.CacheScope != nil; hasHint != (era == "modern") {
				t.Errorf("resources/read: cacheScope present = %v in the %s era", hasHint, era)
			}
			if code, _, stderr := inspect("--method", "resources/read", "--uri", "test://no-such-resource"); code == 0 ||
				!strings.Contains(stderr, "test://no-such-resource") {
				t.Errorf("resources/read of an unknown URI: exit %d\n%s", code, stderr)
			}

			// prompts/list and prompts/get
			var prompts struct {
				Prompts []struct {
					Name      string `json:"name"`
					Arguments []struct {
						Name     string `json:"name"`
						Required bool   `json:"required"`
					} `json:"arguments"`
				} `json:"prompts"`
			}
			json.Unmarshal(ok("--method", "prompts/list"), &prompts)
			var promptNames []string
			for _, p := range prompts.Prompts {
				promptNames = append(promptNames, p.Name)
				if p.Name == "test_prompt_with_arguments" && (len(p.Arguments) != 2 || p.Arguments[0].Name != "arg1" || !p.Arguments[0].Required) {
					t.Errorf("prompts/list: test_prompt_with_arguments has arguments %+v", p.Arguments)
				}
			}
			for _, want := range []string{"test_simple_prompt", "test_prompt_with_arguments"} {
				if !slices.Contains(promptNames, want) {
					t.Errorf("prompts/list lacks %s: %v", want, promptNames)
				}
			}
			getPrompt := func(want string, args ...string) {
				t.Helper()
				var p struct {
					Meta     map[string]json.RawMessage `json:"_meta"`
					Messages []struct {
						Role    string  `json:"role"`
						Content content `json:"content"`
					} `json:"messages"`
				}
				json.Unmarshal(ok(append([]string{"--method", "prompts/get", "--prompt-name"}, args...)...), &p)
				if len(p.Messages) != 1 || p.Messages[0].Role != "user" || p.Messages[0].Content != (content{"text", want}) {
					t.Errorf("prompts/get %s = %+v, want %q", args[0], p.Messages, want)
				}
				checkMeta("prompts/get "+args[0], p.Meta)
			}
			getPrompt("This is a simple prompt for testing.", "test_simple_prompt")
			getPrompt("Prompt with arguments: arg1='a 1', arg2='b'", "test_prompt_with_arguments", "--prompt-args", "arg1=a 1", "arg2=b")

			wire.checkEra(t, era)
		})
	}
}

// inspWire records every HTTP inspExchange between the inspector and luagent.
type inspWire struct {
	mu        sync.Mutex
	exchanges []*inspExchange
}

type inspExchange struct {
	method  string // HTTP method
	header  http.Header
	body    []byte
	mu      sync.Mutex
	status  int
	resp    bytes.Buffer
	resType string
}

// proxy starts a reverse proxy to upstream on 127.0.0.1 that records each
// inspExchange, and returns its URL (same path as upstream).
func (w *inspWire) proxy(t *testing.T, upstream string) string {
	t.Helper()
	target, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	rp := &httputil.ReverseProxy{
		Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(&url.URL{Scheme: target.Scheme, Host: target.Host}) },
		FlushInterval: -1,
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		x := &inspExchange{method: r.Method, header: r.Header.Clone(), body: body}
		w.mu.Lock()
		w.exchanges = append(w.exchanges, x)
		w.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		rp.ServeHTTP(&inspRecorder{ResponseWriter: rw, x: x}, r)
	}))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(func() { srv.CloseClientConnections(); srv.Close() })
	return srv.URL + target.Path
}

type inspRecorder struct {
	http.ResponseWriter
	x *inspExchange
}

func (r *inspRecorder) WriteHeader(code int) {
	r.x.mu.Lock()
	r.x.status, r.x.resType = code, r.Header().Get("Content-Type")
	r.x.mu.Unlock()
	r.ResponseWriter.WriteHeader(code)
}

func (r *inspRecorder) Write(p []byte) (int, error) {
	r.x.mu.Lock()
	if r.x.status == 0 {
		r.x.status, r.x.resType = http.StatusOK, r.Header().Get("Content-Type")
	}
	r.x.resp.Write(p)
	r.x.mu.Unlock()
	return r.ResponseWriter.Write(p)
}

func (r *inspRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// inspMessage is the part of a JSON-RPC message the era checks look at.
type inspMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		ProtocolVersion string                     `json:"protocolVersion"`
		Meta            map[string]json.RawMessage `json:"_meta"`
		Name            string                     `json:"name"`
	} `json:"params"`
	Result json.RawMessage `json:"result"`
}

// messages decodes a request or response body: one JSON-RPC message, a
// batch, or an SSE stream of them.
func inspMessages(body []byte, contentType string) []inspMessage {
	var out []inspMessage
	decode := func(b []byte) {
		b = bytes.TrimSpace(b)
		var one inspMessage
		var many []inspMessage
		if json.Unmarshal(b, &one) == nil {
			out = append(out, one)
		} else if json.Unmarshal(b, &many) == nil {
			out = append(out, many...)
		}
	}
	if !strings.HasPrefix(contentType, "text/event-stream") {
		decode(body)
		return out
	}
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data:"); ok {
			decode([]byte(data))
		}
	}
	return out
}

// checkEra fails the test unless every recorded inspExchange belongs to era.
func (w *inspWire) checkEra(t *testing.T, era string) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	var initialized, calls, paramHeader, resultTypes int
	var methods []string
	for _, x := range w.exchanges {
		x.mu.Lock()
		status, resType, respBody := x.status, x.resType, slices.Clone(x.resp.Bytes())
		x.mu.Unlock()
		// Only the read of an unknown resource may fail (400 in the modern
		// era, a JSON-RPC error on 200 in the legacy one).
		if status >= 400 && !bytes.Contains(x.body, []byte("test://no-such-resource")) {
			t.Errorf("HTTP %s %.200s: status %d", x.method, x.body, status)
		}
		if x.method != http.MethodPost {
			if era == "modern" && x.method != http.MethodOptions {
				t.Errorf("modern era: an HTTP %s request (sessions are legacy)", x.method)
			}
			continue
		}
		version := x.header.Get("Mcp-Protocol-Version")
		resp := inspMessages(respBody, resType)
		for _, m := range inspMessages(x.body, "application/json") {
			if m.Method == "" {
				continue
			}
			methods = append(methods, m.Method)
			switch era {
			case "legacy":
				if m.Method == "initialize" {
					initialized++
					if m.Params.ProtocolVersion != "2025-11-25" {
						t.Errorf("legacy initialize asked for %q", m.Params.ProtocolVersion)
					}
					var res struct{ ProtocolVersion string }
					for _, r := range resp {
						if string(r.ID) == string(m.ID) {
							json.Unmarshal(r.Result, &res)
						}
					}
					if res.ProtocolVersion != "2025-11-25" {
						t.Errorf("legacy initialize answered %q, want 2025-11-25:\n%s", res.ProtocolVersion, respBody)
					}
					continue
				}
				if version != "2025-11-25" || x.header.Get("Mcp-Session-Id") == "" {
					t.Errorf("legacy %s: MCP-Protocol-Version %q, Mcp-Session-Id %q", m.Method, version, x.header.Get("Mcp-Session-Id"))
				}
				if m.Method == "server/discover" {
					t.Errorf("legacy era: the inspector sent server/discover")
				}
			case "modern":
				if m.Method == "initialize" || m.Method == "notifications/initialized" {
					t.Errorf("modern era: the inspector sent %s", m.Method)
				}
				if version != "2026-07-28" || x.header.Get("Mcp-Method") != m.Method {
					t.Errorf("modern %s: MCP-Protocol-Version %q, Mcp-Method %q", m.Method, version, x.header.Get("Mcp-Method"))
				}
				if m.ID == nil {
					continue
				}
				var pv string
				json.Unmarshal(m.Params.Meta["io.modelcontextprotocol/protocolVersion"], &pv)
				if pv != "2026-07-28" {
					t.Errorf("modern %s: _meta protocolVersion %q", m.Method, pv)
				}
				if m.Method == "tools/call" {
					calls++
					if m.Params.Name == "test_custom_header" && x.header.Get("Mcp-Param-Region") == "eu" {
						paramHeader++
					}
					for _, r := range resp {
						var res struct{ ResultType string }
						if string(r.ID) == string(m.ID) && json.Unmarshal(r.Result, &res) == nil && res.ResultType == "complete" {
							resultTypes++
						}
					}
				}
			}
		}
	}
	t.Logf("%s era: %d HTTP exchanges, methods %v", era, len(w.exchanges), methods)
	if era == "legacy" && initialized == 0 {
		t.Error("legacy era: no initialize request reached luagent")
	}
	if era == "modern" {
		if calls == 0 || resultTypes != calls {
			t.Errorf("modern era: %d of %d tools/call answers carried resultType complete", resultTypes, calls)
		}
		if paramHeader != 1 {
			t.Errorf("modern era: test_custom_header was called %d times with Mcp-Param-Region: eu, want 1", paramHeader)
		}
	}
}
