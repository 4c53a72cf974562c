package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// descendants are the processes under pid (children, theirs, ...).
func descendants(t *testing.T, pid int) []int {
	t.Helper()
	parent := map[int][]int{}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		stat, err := os.ReadFile(d + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so split after ")".
		s := string(stat)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		child, _ := strconv.Atoi(filepath.Base(d))
		if len(f) > 1 {
			ppid, _ := strconv.Atoi(f[1])
			parent[ppid] = append(parent[ppid], child)
		}
	}
	var out []int
	for queue := []int{pid}; len(queue) > 0; queue = queue[1:] {
		for _, c := range parent[queue[0]] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// An agent whose server takes a secret parameter (env {param = ...}) and
// whose calls get it as a bound argument: run with --set and with
// --params-file, the secret reaches the server (env only) and appears in
// no output — stdout, stderr, the --trace file, the transcript (ask --json
// and a served call's structuredContent) and the command lines of the
// processes it starts (nor luagent's own with --params-file).
func TestAgentSecretParams(t *testing.T) {
	const secret = "S3CRET-vault-7f1c"
	agentFile, _ := filepath.Abs("testdata/vault_agent.lua")
	server, _ := filepath.Abs("testdata/vault_server.lua")
	paramsFile := filepath.Join(t.TempDir(), "params.json")
	os.WriteFile(paramsFile, []byte(`{"vault_token": "`+secret+`"}`), 0o600)
	env := []string{"VAULT_SERVER=" + server}

	for _, c := range []struct {
		name   string
		params []string
	}{
		{"set", []string{"--set", "vault_token=" + secret}},
		{"params-file", []string{"--params-file", paramsFile}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			noSecret := func(what, s string) {
				t.Helper()
				if strings.Contains(s, secret) || strings.Contains(s, "S3CRET") {
					t.Errorf("the secret is in %s:\n%s", what, s)
				}
			}
			dir := t.TempDir()

			// luagent ask: the transcript on stdout.
			traceFile := filepath.Join(dir, "ask.jsonl")
			r := luagent(t, "", env, append(append([]string{"--trace", traceFile}, c.params...), "ask", "--agent", agentFile, "--json", "look up the item")...)
			if r.code != 0 || !strings.Contains(r.stdout, `unlocked with <secret>`) {
				t.Fatalf("ask: %+v", r)
			}
			raw, _ := os.ReadFile(traceFile)
			noSecret("ask's transcript", r.stdout)
			noSecret("ask's stderr", r.stderr)
			noSecret("ask's trace", string(raw))
			if len(raw) == 0 {
				t.Error("ask traced nothing")
			}

			// mcp-server: the agent as a tool, its server alive while the
			// processes are read.
			traceFile = filepath.Join(dir, "serve.jsonl")
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			// -v: the human trace lines go to stderr too.
			cmd := exec.Command(bin, append(append([]string{"-v", "--trace", traceFile}, c.params...), "mcp-server", "--agent-file", agentFile)...)
			cmd.Env = append(append(os.Environ(), "LUAGENT_HOME="+t.TempDir()), env...)
			stderr := newLogWatch()
			cmd.Stderr = stderr
			client := sdk.NewClient(&sdk.Implementation{Name: "secrets", Version: "1"}, nil)
			cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "vault_keeper", Arguments: map[string]any{"prompt": "look up the item", "transcript": true}})
			if err != nil || res.IsError {
				t.Fatalf("call: %v %+v\n%s", err, res, stderr)
			}
			out, _ := json.Marshal(res)
			out = []byte(strings.ReplaceAll(strings.ReplaceAll(string(out), `\u003c`, "<"), `\u003e`, ">"))
			if !strings.Contains(string(out), "unlocked with <secret>") {
				t.Errorf("the result: %s", out)
			}
			noSecret("the served result and its transcript", string(out))
			kids := descendants(t, cmd.Process.Pid)
			if len(kids) == 0 {
				t.Fatal("no server process under mcp-server")
			}
			inEnv := false
			for _, pid := range kids {
				argv, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
				noSecret("the command line of process "+strconv.Itoa(pid), strings.ReplaceAll(string(argv), "\x00", " "))
				environ, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
				inEnv = inEnv || strings.Contains(string(environ), "VAULT_TOKEN="+secret)
			}
			if !inEnv {
				t.Error("no process under mcp-server has VAULT_TOKEN in its environment: the test reads the wrong processes")
			}
			if c.name == "params-file" {
				argv, _ := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/cmdline")
				noSecret("luagent's own command line", strings.ReplaceAll(string(argv), "\x00", " "))
			}
			cs.Close()
			raw, _ = os.ReadFile(traceFile)
			noSecret("mcp-server's trace", string(raw))
			noSecret("mcp-server's stderr", stderr.String())
			if !strings.Contains(string(raw), `"agent":"vault keeper"`) {
				t.Errorf("the trace has no events of the agent:\n%s", raw)
			}
			// The agent's run is a span under the tools/call that asked.
			calls, linked := map[string]bool{}, false
			for _, l := range strings.Split(string(raw), "\n") {
				var e struct{ Kind, Span, Parent, Method string }
				json.Unmarshal([]byte(l), &e)
				switch {
				case e.Kind == "request_in" && e.Method == "tools/call":
					calls[e.Span] = true
				case e.Kind == "agent_start":
					linked = linked || calls[e.Parent]
				}
			}
			if !linked {
				t.Errorf("no agent_start under a tools/call request_in:\n%s", raw)
			}
		})
	}
}

// A required parameter without a value stops the agent file from loading,
// with an error naming it (kind invalid), before any model call.
func TestAgentRequiredParamMissing(t *testing.T) {
	agentFile, _ := filepath.Abs("testdata/vault_agent.lua")
	server, _ := filepath.Abs("testdata/vault_server.lua")
	traceFile := filepath.Join(t.TempDir(), "trace.jsonl")
	env := []string{"VAULT_SERVER=" + server}
	r := luagent(t, "", env, "--trace", traceFile, "ask", "--agent", agentFile, "look up the item")
	if r.code == 0 || !strings.Contains(r.stderr, "invalid") || !strings.Contains(r.stderr, "the parameter vault_token is required: pass --set vault_token=VALUE") {
		t.Errorf("ask: %+v", r)
	}
	raw, _ := os.ReadFile(traceFile)
	if strings.Contains(string(raw), "model_request") || strings.Contains(string(raw), "process_started") {
		t.Errorf("something ran before the error:\n%s", raw)
	}
	r = luagent(t, "", env, "mcp-server", "--agent-file", agentFile)
	if r.code == 0 || !strings.Contains(r.stderr, "the parameter vault_token is required") {
		t.Errorf("mcp-server: %+v", r)
	}
	noGoStack(t, r.stderr)
}

// An agents-exe agent file (JSON, McpSimpleBinary servers with Literal and
// Param env entries) serves as the agent it describes; its Param is a
// required secret parameter; its model is modelName at modelUrl.
func TestAgentsExeFile(t *testing.T) {
	const secret = "S3CRET-exe-0b9d"
	server, _ := filepath.Abs("testdata/vault_server.lua")
	model := newExeModel(t)
	desc := map[string]any{"tag": "OpenAIAgentDescription", "contents": map[string]any{
		"slug": "exe-agent", "apiKeyId": "none", "flavor": "OpenAIv1", "modelUrl": model.URL + "/v1", "modelName": "m",
		"announce": "an agents-exe agent", "systemPrompt": []string{"You look things up."},
		"mcpServers": []any{map[string]any{"tag": "McpSimpleBinary", "contents": map[string]any{
			"name": "vault", "executable": bin, "args": []string{"serve", server},
			"env": map[string]any{"VAULT_TOKEN": map[string]any{"tag": "Param", "contents": "vault_token"},
				"MODE": map[string]any{"tag": "Literal", "contents": "ro"}}}}},
	}}
	raw, _ := json.Marshal(desc)
	file := filepath.Join(t.TempDir(), "agent.json")
	os.WriteFile(file, raw, 0o644)
	traceFile := filepath.Join(t.TempDir(), "trace.jsonl")

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.Command(bin, "--trace", traceFile, "mcp-server", "--set", "vault_token="+secret, "--agent-file", file)
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
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "exe-agent", Arguments: map[string]any{"prompt": "look up the item"}})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(res)
	// The model cannot know the token: the server ran and refused it.
	if !strings.Contains(string(out), "denied: wrong token") {
		t.Errorf("result %s\n%s", out, stderr)
	}
	if paths, models, _ := model.requests(); len(paths) == 0 || paths[0] != "/v1/chat/completions" || models[0] != "m" {
		t.Errorf("the model requests: %q %q", paths, models)
	}
	cs.Close()
	trace, _ := os.ReadFile(traceFile)
	for what, s := range map[string]string{"result": string(out), "stderr": stderr.String(), "trace": string(trace)} {
		if strings.Contains(s, secret) {
			t.Errorf("the secret is in the %s", what)
		}
	}
	r := luagent(t, "", nil, "mcp-server", "--agent-file", file)
	if r.code == 0 || !strings.Contains(r.stderr, "the parameter vault_token is required") {
		t.Errorf("without the parameter: %+v", r)
	}
}

// A served agent's input = {...} joins its tool's schema, and a call's
// values follow the prompt; --set-json refuses a value that is not JSON
// without printing it.
func TestAgentsServedInputAndSetJSON(t *testing.T) {
	agentFile, _ := filepath.Abs("testdata/input_agent.lua")
	r := luagent(t, "", nil, "-e", `
local c = mcp.connect{ command = arg[-1], args = { "mcp-server", "--agent-file", "`+agentFile+`" } }
local t = c:tools()[1]
print(t.name, table.concat(t.inputSchema.required, ","), t.inputSchema.properties.note.type)
print(c:call("sum", { prompt = "add", a = 2 }).content[1].text)
c:close()`)
	if r.code != 0 || r.stdout != "sum\tprompt,a\tstring\nmock: add\n\nArguments: {\"a\":2}\n" {
		t.Errorf("%+v", r)
	}
	r = luagent(t, "", nil, "--set-json", "tok=s3cr3t-not-json", "-e", "print(1)")
	if r.code != 2 || strings.Contains(r.stderr, "s3cr3t") || !strings.Contains(r.stderr, "--set-json tok: the value is not JSON") {
		t.Errorf("--set-json: %+v", r)
	}
	r = luagent(t, "", nil, "mcp-server")
	if r.code != 2 || !strings.Contains(r.stderr, "mcp-server needs an agent file") {
		t.Errorf("mcp-server without a file: %+v", r)
	}
}
