package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// `luagent ask` end to end: the real binary, a catalog holding a Lua
// server, and local endpoints speaking OpenAI's and Anthropic's streaming
// wire formats.

const askServer = `
local s = mcp.server{ name = "srv", version = "1.0.0" }
s:tool{ name = "echo", description = "Echo a message", input = { message = "string" },
  annotations = { readOnlyHint = true }, handler = function(a) return "pong:" .. a.message end }
s:tool{ name = "write", description = "Write a note", input = { text = "string" },
  handler = function(a)
    local f = assert(io.open(arg[1], "a")); f:write(a.text, "\n"); f:close()
    return "wrote " .. a.text
  end }
return s
`

// askHome is a LUAGENT_HOME whose catalog serves askServer; notes is the
// file its write tool appends to.
func askHome(t *testing.T) (home, notes string) {
	t.Helper()
	home = t.TempDir()
	srv := writeFile(t, home, "srv.lua", askServer)
	notes = filepath.Join(home, "notes.txt")
	cfg := map[string]any{"version": 1, "mcpServers": map[string]any{
		"srv": map[string]any{"command": bin, "args": []string{"serve", srv, notes}}}}
	b, _ := json.Marshal(cfg)
	writeFile(t, home, "config.json", string(b))
	return home, notes
}

// fakeTurn is what a fake endpoint answers to one request body: a tool
// call (when the prompt names a tool and no result came back yet) or a
// text quoting the tool result it saw.
func fakeTurn(body string) (tool, args, text string) {
	switch {
	case strings.Contains(body, "pong:hi"):
		return "", "", "the server said pong:hi"
	case strings.Contains(body, "run with --yes"):
		return "", "", "the write was denied"
	case strings.Contains(body, "wrote hi"):
		return "", "", "the note is written"
	case strings.Contains(body, "please write"):
		return "srv__write", `{"text":"hi"}`, ""
	case strings.Contains(body, "please echo"):
		return "srv__echo", `{"message":"hi"}`, ""
	}
	return "", "", "nothing to do"
}

type wireLog struct {
	mu     sync.Mutex
	bodies []string
	auth   []string
}

func (w *wireLog) add(r *http.Request) string {
	b, _ := io.ReadAll(r.Body)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.bodies = append(w.bodies, string(b))
	w.auth = append(w.auth, r.Header.Get("Authorization")+r.Header.Get("X-Api-Key"))
	return string(b)
}

func sse(w http.ResponseWriter, event string, v any) {
	b, _ := json.Marshal(v)
	if event != "" {
		fmt.Fprintf(w, "event: %s\n", event)
	}
	fmt.Fprintf(w, "data: %s\n\n", b)
	w.(http.Flusher).Flush()
}

// openAIEndpoint speaks Chat Completions streaming: tool-call arguments
// split across chunks, finish_reason, a usage chunk, [DONE].
func openAIEndpoint(t *testing.T, log *wireLog) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := log.add(r)
		if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
			http.NotFound(w, r)
			return
		}
		if r.Header.Get("Authorization") == "Bearer sk-bad-SECRET" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":{"message":"Incorrect API key provided: sk-bad-SECRET.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(delta map[string]any, finish any) map[string]any {
			return map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-test",
				"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
		}
		tool, args, text := fakeTurn(body)
		if tool != "" {
			sse(w, "", chunk(map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"index": 0, "id": "call_1", "type": "function",
				"function": map[string]any{"name": tool, "arguments": ""}}}}, nil))
			half := len(args) / 2
			for _, piece := range []string{args[:half], args[half:]} {
				sse(w, "", chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "function": map[string]any{"arguments": piece}}}}, nil))
			}
			sse(w, "", chunk(map[string]any{}, "tool_calls"))
		} else {
			sse(w, "", chunk(map[string]any{"role": "assistant", "content": ""}, nil))
			for _, piece := range strings.SplitAfter(text, " ") {
				sse(w, "", chunk(map[string]any{"content": piece}, nil))
			}
			sse(w, "", chunk(map[string]any{}, "stop"))
		}
		sse(w, "", map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-test",
			"choices": []any{}, "usage": map[string]any{"prompt_tokens": 12, "completion_tokens": 7, "total_tokens": 19}})
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv
}

// anthropicEndpoint speaks Messages streaming: message_start, content
// blocks with input_json_delta / text_delta, message_delta, message_stop.
func anthropicEndpoint(t *testing.T, log *wireLog) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := log.add(r)
		if !strings.HasSuffix(r.URL.Path, "/v1/messages") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		sse(w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": "msg_1", "type": "message",
			"role": "assistant", "model": "claude-test", "content": []any{}, "stop_reason": nil, "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": 11, "output_tokens": 1}}})
		tool, args, text := fakeTurn(body)
		stop := "end_turn"
		if tool != "" {
			stop = "tool_use"
			sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0,
				"content_block": map[string]any{"type": "tool_use", "id": "toolu_1", "name": tool, "input": map[string]any{}}})
			half := len(args) / 2
			for _, piece := range []string{args[:half], args[half:]} {
				sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
					"delta": map[string]any{"type": "input_json_delta", "partial_json": piece}})
			}
		} else {
			sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0,
				"content_block": map[string]any{"type": "text", "text": ""}})
			for _, piece := range strings.SplitAfter(text, " ") {
				sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
					"delta": map[string]any{"type": "text_delta", "text": piece}})
			}
		}
		sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
		sse(w, "message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
			"usage": map[string]any{"output_tokens": 6}})
		sse(w, "message_stop", map[string]any{"type": "message_stop"})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func openAIEnv(home, url, key string) []string {
	return []string{"LUAGENT_HOME=" + home, "OPENAI_BASE_URL=" + url + "/v1", "OPENAI_API_KEY=" + key, "LUAGENT_MODEL="}
}

func TestAskOpenAI(t *testing.T) {
	home, _ := askHome(t)
	var log wireLog
	ep := openAIEndpoint(t, &log)
	r := luagent(t, "", openAIEnv(home, ep.URL, "sk-good-SECRET"), "ask", "--model", "openai:gpt-test", "please", "echo", "hi")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if r.stdout != "the server said pong:hi\n" {
		t.Errorf("stdout = %q, want the model's final text", r.stdout)
	}
	for _, want := range []string{`srv › echo {"message":"hi"}`, "✓", "pong:hi"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if len(log.bodies) != 2 || !strings.Contains(log.bodies[0], `"srv__echo"`) || !strings.Contains(log.bodies[0], `"stream":true`) {
		t.Errorf("requests: %d, first %s", len(log.bodies), log.bodies[0])
	}
	if strings.Contains(r.stdout+r.stderr, "SECRET") {
		t.Errorf("the key was printed")
	}
}

func TestAskAnthropic(t *testing.T) {
	home, _ := askHome(t)
	var log wireLog
	ep := anthropicEndpoint(t, &log)
	env := []string{"LUAGENT_HOME=" + home, "ANTHROPIC_BASE_URL=" + ep.URL, "ANTHROPIC_API_KEY=ak-SECRET", "LUAGENT_MODEL=anthropic:claude-test"}
	r := luagent(t, "", env, "ask", "please echo hi")
	if r.code != 0 || r.stdout != "the server said pong:hi\n" {
		t.Fatalf("exit %d\nstdout: %q\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if len(log.bodies) != 2 || !strings.Contains(log.bodies[1], `"tool_result"`) || log.auth[0] != "ak-SECRET" {
		t.Errorf("requests: %d, second %s", len(log.bodies), log.bodies[len(log.bodies)-1])
	}
	if strings.Contains(r.stdout+r.stderr, "SECRET") {
		t.Errorf("the key was printed")
	}
}

func TestAskJSON(t *testing.T) {
	home, _ := askHome(t)
	var log wireLog
	ep := openAIEndpoint(t, &log)
	r := luagent(t, "", openAIEnv(home, ep.URL, "sk-good-SECRET"), "ask", "--json", "--model", "openai:gpt-test", "please echo hi")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	var tr struct {
		Model     string                  `json:"model"`
		End       string                  `json:"end"`
		Messages  []struct{ Role string } `json:"messages"`
		ToolCalls []struct {
			Server, Tool, Decision string
			Result                 struct{ Content []struct{ Text string } }
		} `json:"tool_calls"`
		Turns []struct{ Turn int } `json:"turns"`
		Usage struct {
			InputTokens  int `json:"input_tokens"`
			OutputTokens int `json:"output_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &tr); err != nil {
		t.Fatalf("stdout is not the transcript JSON: %v\n%s", err, r.stdout)
	}
	if tr.End != "answer" || len(tr.Turns) != 2 || len(tr.ToolCalls) != 1 || tr.ToolCalls[0].Server != "srv" ||
		tr.ToolCalls[0].Tool != "echo" || tr.ToolCalls[0].Decision != "allow" || tr.ToolCalls[0].Result.Content[0].Text != "pong:hi" ||
		len(tr.Messages) != 4 || tr.Messages[0].Role != "user" || tr.Usage.InputTokens != 24 {
		t.Errorf("transcript: %+v", tr)
	}
}

func TestAskMutatingToolNeedsYes(t *testing.T) {
	home, notes := askHome(t)
	var log wireLog
	ep := openAIEndpoint(t, &log)
	env := openAIEnv(home, ep.URL, "sk-good-SECRET")
	r := luagent(t, "", env, "ask", "--model", "openai:gpt-test", "please write hi")
	if r.code != 0 || r.stdout != "the write was denied\n" || !strings.Contains(r.stderr, "run with --yes to allow") {
		t.Fatalf("without --yes: exit %d\nstdout: %q\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(notes); err == nil {
		t.Fatal("the denied tool ran")
	}
	r = luagent(t, "", env, "ask", "--yes", "--model", "openai:gpt-test", "please write hi")
	if r.code != 0 || r.stdout != "the note is written\n" {
		t.Fatalf("with --yes: exit %d\nstdout: %q\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if b, _ := os.ReadFile(notes); string(b) != "hi\n" {
		t.Errorf("notes = %q", b)
	}
}

func TestAskAuthError(t *testing.T) {
	home, _ := askHome(t)
	var log wireLog
	ep := openAIEndpoint(t, &log)
	r := luagent(t, "", openAIEnv(home, ep.URL, "sk-bad-SECRET"), "ask", "--model", "openai:gpt-test", "please echo hi")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\nstderr: %s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "luagent: auth: ") {
		t.Errorf("last stderr line = %q, want the auth kind", last)
	}
	if strings.Contains(r.stdout+r.stderr, "SECRET") {
		t.Errorf("the key was printed:\n%s", r.stderr)
	}
	noGoStack(t, r.stderr)
}

func TestAskAgentFileAndStdin(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "shout.lua", `
return agent.new{ name = "shouter", model = "mock", hub = false,
  tools = { { name = "shout", description = "Shout a text", input = { text = "string" },
    annotations = { readOnlyHint = true }, handler = function(a) return a.text:upper() end } } }
`)
	r := luagent(t, "please shout it\n", nil, "ask", "--agent", file)
	if r.code != 0 || !strings.Contains(r.stdout, "EXAMPLE") || !strings.Contains(r.stderr, `shout {"text":"example"}`) {
		t.Fatalf("exit %d\nstdout: %q\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	bad := writeFile(t, dir, "bad.lua", `return 42`)
	r = luagent(t, "", nil, "ask", "--agent", bad, "hi")
	if r.code != 1 || !strings.Contains(r.stderr, "luagent: invalid: ") || !strings.Contains(r.stderr, "must return an agent") {
		t.Errorf("a file without an agent: exit %d\nstderr: %s", r.code, r.stderr)
	}
}

func TestAskUsage(t *testing.T) {
	r := luagent(t, "", nil, "ask", "--help")
	if r.code != 0 || !strings.Contains(r.stdout, "usage: luagent [options] ask") {
		t.Errorf("--help: exit %d\n%s", r.code, r.stdout)
	}
	r = luagent(t, "", nil, "ask")
	if r.code != 2 || !strings.Contains(r.stderr, "ask needs a prompt") {
		t.Errorf("no prompt: exit %d\n%s", r.code, r.stderr)
	}
	r = luagent(t, "", nil, "ask", "--bogus", "x")
	if r.code != 2 {
		t.Errorf("unknown option: exit %d", r.code)
	}
	r = luagent(t, "", []string{"LUAGENT_MODEL="}, "ask", "hello")
	if r.code != 0 || r.stdout != "mock: hello\n" || !strings.Contains(r.stderr, "no model configured") {
		t.Errorf("the mock fallback: exit %d\nstdout: %q\nstderr: %s", r.code, r.stdout, r.stderr)
	}
}

// The catalog's "models" and "model": a configured model is the default
// of ask and of agent.new{} without a model; --model NAME names one; the
// key comes from the variable the entry names.
func TestAskConfiguredModel(t *testing.T) {
	home, _ := askHome(t)
	var log wireLog
	ep := openAIEndpoint(t, &log)
	raw, _ := os.ReadFile(filepath.Join(home, "config.json"))
	var cfg map[string]any
	json.Unmarshal(raw, &cfg)
	cfg["models"] = map[string]any{"local": map[string]any{"provider": "openai", "baseUrl": ep.URL + "/v1", "apiKeyEnv": "LOCAL_KEY", "model": "gpt-local"}}
	cfg["model"] = "local"
	b, _ := json.Marshal(cfg)
	os.WriteFile(filepath.Join(home, "config.json"), b, 0o600)
	env := []string{"LUAGENT_HOME=" + home, "LOCAL_KEY=sk-local-SECRET", "OPENAI_API_KEY=", "LUAGENT_MODEL="}
	seen := func() ([]string, []string) {
		log.mu.Lock()
		defer log.mu.Unlock()
		return append([]string(nil), log.bodies...), append([]string(nil), log.auth...)
	}
	for _, args := range [][]string{
		{"ask", "please", "echo", "hi"},
		{"ask", "--model", "local", "please", "echo", "hi"},
		{"-e", `print((agent.new{}:ask("please echo hi")))`},
	} {
		before, _ := seen()
		n := len(before)
		r := luagent(t, "", env, args...)
		if r.code != 0 || r.stdout != "the server said pong:hi\n" || strings.Contains(r.stderr, "mock") {
			t.Errorf("%v: %+v", args, r)
			continue
		}
		bodies, auth := seen()
		if len(bodies) != n+2 || !strings.Contains(bodies[n], `"model":"gpt-local"`) || auth[n] != "Bearer sk-local-SECRET" {
			t.Errorf("%v: the configured model was not used: %d requests, %v", args, len(bodies)-n, auth[n:])
		}
		if strings.Contains(r.stdout+r.stderr, "SECRET") {
			t.Errorf("%v: the key was printed", args)
		}
	}
}

// A signal during ask's turn ends it as it ends a script: one line
// saying so, exit 130 or 143, and (--json) no transcript.
func TestAskInterrupted(t *testing.T) {
	agentFile := filepath.Join(t.TempDir(), "slow.lua")
	writeFile(t, filepath.Dir(agentFile), "slow.lua", `return agent.new{ model = function()
  io.stderr:write("thinking\n")
  task.sleep(30)
  return { text = "late" }
end }`)
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
		name string
	}{{syscall.SIGINT, 130, "SIGINT"}, {syscall.SIGTERM, 143, "SIGTERM"}} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, "ask", "--json", "--agent", agentFile, "hi")
			cmd.Env = append(os.Environ(), "LUAGENT_HOME="+t.TempDir())
			var out bytes.Buffer
			errw := newLogWatch()
			cmd.Stdout, cmd.Stderr = &out, errw
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if !errw.waitFor("thinking") {
				cmd.Process.Kill()
				t.Fatalf("the model did not start:\n%s", errw)
			}
			cmd.Process.Signal(tc.sig)
			cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); code != tc.code {
				t.Errorf("exit %d, want %d", code, tc.code)
			}
			if want := "thinking\nluagent: interrupted by " + tc.name + "\n"; errw.String() != want || out.Len() != 0 {
				t.Errorf("stderr %q (want %q), stdout %q", errw, want, out.String())
			}
		})
	}
}

// An --agent file's server that does not start is named on stderr, as the
// default agent's is: otherwise its tools are missing in silence.
func TestAskAgentFileSaysWhichServerFailed(t *testing.T) {
	home := t.TempDir()
	writeFile(t, home, "config.json", `{"version":1,"mcpServers":{"gone":{"command":"/nonexistent/luagent-gone"}}}`)
	dir := t.TempDir()
	file := writeFile(t, dir, "a.lua", `return agent.new{ model = "mock", servers = { "gone" } }`)
	r := luagent(t, "", []string{"LUAGENT_HOME=" + home}, "ask", "--agent", file, "hello")
	if r.code != 0 || !strings.Contains(r.stderr, "gone failed to start") {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 0 and gone's failure named", r.code, r.stderr)
	}
}
