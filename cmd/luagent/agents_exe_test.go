package main

import (
	"context"
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
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// exeModel is a local stand-in for an agents-exe agent's OpenAI-compatible
// endpoint: it records each request's path, model and Authorization, and
// plays one tool call (the first tool offered, with a guessed token) then
// a text quoting the tool's result.
type exeModel struct {
	*httptest.Server
	mu    sync.Mutex
	paths []string
	model []string
	auth  []string
}

func newExeModel(t *testing.T) *exeModel {
	m := &exeModel{}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var req struct {
			Model    string
			Messages []struct{ Role, Content any }
			Tools    []struct{ Function struct{ Name string } }
		}
		json.Unmarshal(b, &req)
		m.mu.Lock()
		m.paths, m.model, m.auth = append(m.paths, r.URL.Path), append(m.model, req.Model), append(m.auth, r.Header.Get("Authorization"))
		m.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(delta map[string]any, finish any) {
			sse(w, "", map[string]any{"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": req.Model,
				"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
		}
		var result string
		for _, msg := range req.Messages {
			if msg.Role == "tool" {
				result = fmt.Sprint(msg.Content)
			}
		}
		if result == "" && len(req.Tools) > 0 {
			chunk(map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"index": 0, "id": "call_1", "type": "function",
				"function": map[string]any{"name": req.Tools[0].Function.Name, "arguments": `{"item":"map","token":"guess"}`}}}}, nil)
			chunk(map[string]any{}, "tool_calls")
		} else {
			chunk(map[string]any{"role": "assistant", "content": "kimi says: " + result}, nil)
			chunk(map[string]any{}, "stop")
		}
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(m.Close)
	return m
}

func (m *exeModel) requests() (paths, models, auth []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.paths...), append([]string(nil), m.model...), append([]string(nil), m.auth...)
}

// exeAgentFile writes testdata/exe_agent.json (the seed's format) with
// the model at modelURL and the vault server, as name in dir.
func exeAgentFile(t *testing.T, dir, name, modelURL string) string {
	t.Helper()
	src, err := os.ReadFile("testdata/exe_agent.json")
	if err != nil {
		t.Fatal(err)
	}
	server, _ := filepath.Abs("testdata/vault_server.lua")
	s := strings.NewReplacer("{{MODEL_URL}}", modelURL, "{{LUAGENT}}", bin, "{{VAULT_SERVER}}", server).Replace(string(src))
	return writeFile(t, dir, name, s)
}

const (
	exeKey    = "sk-kimi-SECRETKEY-51d0"
	exeSecret = "S3CRET-exe-ask-77aa"
)

// An agents-exe agent file in ask --agent: its model is modelName at
// modelUrl (OpenAI-compatible), with apiKeyId's key of the --api-keys
// file as the bearer token; its Param is a required secret parameter; the
// key and the secret are in no output. --model still wins. A file whose
// text starts with "{" is one whatever its name.
func TestAgentsExeAsk(t *testing.T) {
	m := newExeModel(t)
	dir := t.TempDir()
	file := exeAgentFile(t, dir, "agent.json", m.URL+"/kimi/v1")
	keys := writeFile(t, dir, "secret-keys", `{"keys": [{"id": "other", "value": "sk-other"}, {"id": "kimi", "value": "`+exeKey+`"}]}`)
	trace := filepath.Join(dir, "trace.jsonl")

	r := luagent(t, "", nil, "--trace", trace, "--api-keys", keys, "--set", "vault_token="+exeSecret, "ask", "--agent", file, "--json", "look up the map")
	if r.code != 0 || !strings.Contains(r.stdout, "kimi says: denied: wrong token") {
		t.Fatalf("ask: %+v", r)
	}
	paths, models, auth := m.requests()
	if len(paths) != 2 || paths[0] != "/kimi/v1/chat/completions" || models[0] != "kimi-k2.5" || auth[0] != "Bearer "+exeKey || auth[1] != "Bearer "+exeKey {
		t.Fatalf("the model requests: paths %q models %q auth %q", paths, models, auth)
	}
	raw, _ := os.ReadFile(trace)
	if !strings.Contains(string(raw), "kimi-k2.5") {
		t.Errorf("the trace names no model kimi-k2.5:\n%s", raw)
	}
	for what, s := range map[string]string{"stdout": r.stdout, "stderr": r.stderr, "trace": string(raw)} {
		if strings.Contains(s, exeKey) || strings.Contains(s, "SECRETKEY") || strings.Contains(s, exeSecret) {
			t.Errorf("the key or the secret is in ask's %s", what)
		}
	}

	// --model wins over the file's model.
	r = luagent(t, "", nil, "--api-keys", keys, "--set", "vault_token="+exeSecret, "ask", "--agent", file, "--model", "mock", "look up the map")
	if p, _, _ := m.requests(); r.code != 0 || !strings.Contains(r.stdout, "denied: wrong token") || len(p) != 2 {
		t.Errorf("ask --model mock: %d model requests, %+v", len(p), r)
	}

	// Content starting with "{" is an agents-exe file, whatever its name;
	// a keys file without the id sends no key.
	other := exeAgentFile(t, dir, "agent.desc", m.URL+"/kimi/v1")
	nokey := writeFile(t, dir, "nokey", `{"keys": []}`)
	r = luagent(t, "", nil, "--api-keys", nokey, "--set", "vault_token="+exeSecret, "ask", "--agent", other, "look up the map")
	if _, _, a := m.requests(); r.code != 0 || !strings.Contains(r.stdout, "kimi says:") || len(a) != 4 || a[2] != "" {
		t.Errorf("agent.desc without a key: auth %q, %+v", a, r)
	}

	// Without the parameter: a load error naming it, before any model call.
	r = luagent(t, "", nil, "--api-keys", keys, "ask", "--agent", file, "look up the map")
	if p, _, _ := m.requests(); r.code == 0 || !strings.Contains(r.stderr, "invalid") || !strings.Contains(r.stderr, "the parameter vault_token is required") || len(p) != 4 {
		t.Errorf("without vault_token: %d model requests, %+v", len(p), r)
	}
	noGoStack(t, r.stderr)

	// A keys file that is not JSON: an error naming the file, not its text.
	bad := writeFile(t, dir, "bad-keys", `{"keys": [{"id": "kimi", "value": "`+exeKey+`"`)
	r = luagent(t, "", nil, "--api-keys", bad, "--set", "vault_token="+exeSecret, "ask", "--agent", file, "look up the map")
	if r.code == 0 || !strings.Contains(r.stderr, "the API keys file "+bad) || strings.Contains(r.stderr, "SECRETKEY") {
		t.Errorf("a broken keys file: %+v", r)
	}
}

// The same file in luagent serve FILE and luagent chat --agent FILE.
func TestAgentsExeServeAndChat(t *testing.T) {
	m := newExeModel(t)
	dir := t.TempDir()
	file := exeAgentFile(t, dir, "agent.json", m.URL+"/kimi/v1")
	keys := writeFile(t, dir, "secret-keys", `{"keys": [{"id": "kimi", "value": "`+exeKey+`"}]}`)
	trace := filepath.Join(dir, "serve.jsonl")

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.Command(bin, "--trace", trace, "--api-keys", keys, "--set", "vault_token="+exeSecret, "serve", file)
	cmd.Env = append(os.Environ(), "LUAGENT_HOME="+t.TempDir())
	stderr := newLogWatch()
	cmd.Stderr = stderr
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "exe", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != "exe-agent" || tools.Tools[0].Description != "an agents-exe agent" {
		t.Fatalf("tools: %v %+v", err, tools)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "exe-agent", Arguments: map[string]any{"prompt": "look up the map"}})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(res)
	if !strings.Contains(string(out), "kimi says: denied: wrong token") {
		t.Errorf("result %s\n%s", out, stderr)
	}
	cs.Close()
	paths, models, auth := m.requests()
	if len(paths) != 2 || paths[0] != "/kimi/v1/chat/completions" || models[0] != "kimi-k2.5" || auth[0] != "Bearer "+exeKey {
		t.Errorf("serve's model requests: paths %q models %q auth %q", paths, models, auth)
	}
	raw, _ := os.ReadFile(trace)
	for what, s := range map[string]string{"result": string(out), "stderr": stderr.String(), "trace": string(raw)} {
		if strings.Contains(s, exeKey) || strings.Contains(s, exeSecret) {
			t.Errorf("the key or the secret is in serve's %s", what)
		}
	}
	r := luagent(t, "", nil, "--api-keys", keys, "serve", file)
	if r.code == 0 || !strings.Contains(r.stderr, "the parameter vault_token is required") {
		t.Errorf("serve without vault_token: %+v", r)
	}
	noGoStack(t, r.stderr)

	r = luagent(t, "look up the map\n", nil, "--api-keys", keys, "--set", "vault_token="+exeSecret, "chat", "--agent", file)
	// (chat starts the servers progressively: the first turn may come
	// before the vault's tools.)
	if r.code != 0 || !strings.Contains(r.stdout, "model openai:kimi-k2.5") || !strings.Contains(r.stdout, "kimi says:") || strings.Contains(r.stdout+r.stderr, exeKey) {
		t.Errorf("chat: %+v", r)
	}
	if p, _, a := m.requests(); len(p) < 3 || p[2] != "/kimi/v1/chat/completions" || a[2] != "Bearer "+exeKey {
		t.Errorf("chat's model requests: %q %q", p, a)
	}
}
