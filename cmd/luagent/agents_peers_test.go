package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/testkit"
)

// luagent mcp-server --agent-file examples/agents.lua driven by the TS SDK
// v2 client (scripts/tsclient/drive.mjs) in both eras over stdio: the tools
// have the prompt schema, a call answers with progress messages, and a
// call aborted at its second progress (the timer's first step: its call
// is under way) stops the agent's tool call
// (notifications/cancelled to the timer server, in the trace).
func TestAgentsServedToTSClient(t *testing.T) {
	node, driver := testkit.TSClient(t)
	agents, _ := filepath.Abs("../../examples/agents.lua")
	for _, era := range []string{"modern", "legacy"} {
		t.Run(era, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			traceFile := filepath.Join(t.TempDir(), "trace.jsonl")
			ops := `[{"op":"listTools"},
{"op":"callTool","name":"word_counter","arguments":{"prompt":"count"}},
{"op":"callTool","name":"timer","arguments":{"prompt":"wait"}},
{"op":"callTool","name":"timer","arguments":{"prompt":"wait"},"cancelOnProgress":2},
{"op":"callTool","name":"word_counter","arguments":{"prompt":"count"}}]`
			args := append(driver, "--era", era, "--timeout", "60000", "--", bin, "--trace", traceFile, "--set", "timer_seconds=2", "mcp-server", "--agent-file", agents)
			cmd := exec.CommandContext(ctx, node, args...)
			cmd.Env = append(os.Environ(), "LUAGENT_HOME="+t.TempDir())
			cmd.Stdin = strings.NewReader(ops)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("drive.mjs: %v\n%s\n%s", err, out, stderr.String())
			}
			type line struct {
				Connected bool   `json:"connected"`
				Era       string `json:"era"`
				Op        string `json:"op"`
				OK        bool   `json:"ok"`
				Result    struct {
					Tools []struct {
						Name        string          `json:"name"`
						InputSchema json.RawMessage `json:"inputSchema"`
					} `json:"tools"`
					Content []struct {
						Text string `json:"text"`
					} `json:"content"`
					IsError bool `json:"isError"`
				} `json:"result"`
				Progress []struct {
					Message string `json:"message"`
				} `json:"progress"`
			}
			var lines []line
			sc := bufio.NewScanner(bytes.NewReader(out))
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				var l line
				if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
					t.Fatalf("%v: %s", err, sc.Text())
				}
				lines = append(lines, l)
			}
			if len(lines) != 6 || !lines[0].Connected || lines[0].Era != era {
				t.Fatalf("%s\n%s", out, stderr.String())
			}
			if tools := lines[1].Result.Tools; len(tools) != 2 || !strings.Contains(string(tools[0].InputSchema), `"required":["prompt"]`) {
				t.Errorf("tools/list: %+v", lines[1])
			}
			text := func(l line) string {
				if len(l.Result.Content) == 0 {
					return ""
				}
				return l.Result.Content[0].Text
			}
			if !lines[2].OK || text(lines[2]) != `The tool returned: "1"` {
				t.Errorf("word_counter: %+v", lines[2])
			}
			var msgs []string
			for _, p := range lines[3].Progress {
				msgs = append(msgs, p.Message)
			}
			if !lines[3].OK || !strings.Contains(text(lines[3]), "waited 2 s") || !strings.Contains(strings.Join(msgs, "\n"), "timer › wait: waited 2/4") {
				t.Errorf("timer: %+v", lines[3])
			}
			if lines[4].OK {
				t.Errorf("the aborted call answered: %+v", lines[4])
			}
			if !lines[5].OK || lines[5].Result.IsError {
				t.Errorf("after the abort: %+v", lines[5])
			}
			if !traceHas(traceFile, `"kind":"notification_out","server":"timer","method":"notifications/cancelled"`) {
				raw, _ := os.ReadFile(traceFile)
				t.Errorf("no notifications/cancelled to the timer server:\n%s", raw)
			}
		})
	}
}

// The TS SDK v2 client answers a served agent's server's elicitation and
// sampling in both eras: legacy as requests, modern as input_required
// rounds while the agent's run waits parked (one run: the agent starts
// once per call, in the trace).
func TestAgentsServedElicitationToTSClient(t *testing.T) {
	node, driver := testkit.TSClient(t)
	// The TS client gives its server only a few environment variables:
	// the asking server's path is written into a copy of the agent file.
	server, _ := filepath.Abs("testdata/ask_server.lua")
	src, err := os.ReadFile("testdata/ask_agent.lua")
	if err != nil {
		t.Fatal(err)
	}
	agentFile := filepath.Join(t.TempDir(), "ask_agent.lua")
	if err := os.WriteFile(agentFile, bytes.Replace(src, []byte(`env.get("ASK_SERVER")`), []byte(strconv.Quote(server)), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, era := range []string{"modern", "legacy"} {
		t.Run(era, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			traceFile := filepath.Join(t.TempDir(), "trace.jsonl")
			ops := `[{"op":"callTool","name":"greeter","arguments":{"prompt":"greet me"}},
{"op":"callTool","name":"greeter","arguments":{"prompt":"summarize this text"}}]`
			args := append(driver, "--era", era, "--timeout", "60000", "--", bin, "--trace", traceFile, "mcp-server", "--agent-file", agentFile)
			cmd := exec.CommandContext(ctx, node, args...)
			cmd.Env = append(os.Environ(), "LUAGENT_HOME="+t.TempDir())
			cmd.Stdin = strings.NewReader(ops)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("drive.mjs: %v\n%s\n%s", err, out, stderr.String())
			}
			for _, want := range []string{`greeting: accept TS`, `sampled: sampled by ts`} {
				if !strings.Contains(string(out), want) {
					t.Errorf("no %q in\n%s\n%s", want, out, stderr.String())
				}
			}
			raw, _ := os.ReadFile(traceFile)
			if n := strings.Count(string(raw), `"kind":"agent_start"`); n != 2 {
				t.Errorf("the agent started %d times for 2 calls (a rerun per round?)", n)
			}
		})
	}
}

// The MCP Inspector CLI lists and calls the agents of examples/agents.lua
// served over HTTP, in both eras. (The CLI shows neither progress nor a
// way to cancel; the Go SDK and TS client tests cover those.)
func TestAgentsServedToInspector(t *testing.T) {
	node, cli := testkit.Inspector(t)
	agents, _ := filepath.Abs("../../examples/agents.lua")
	url := startAgentsHTTP(t, newLogWatch(), nil, "serve", agents, "--http", "127.0.0.1:0/mcp")
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			home := t.TempDir()
			inspect := func(args ...string) string {
				t.Helper()
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				argv := append([]string{cli, "--cli", url, "--transport", "http", "--protocol-era", era, "--format", "json", "--connect-timeout", "20000"}, args...)
				cmd := exec.CommandContext(ctx, node, argv...)
				cmd.Env = append(os.Environ(), "HOME="+home, "NO_COLOR=1", "MCP_CATALOG_PATH="+filepath.Join(home, "mcp.json"))
				cmd.WaitDelay = 5 * time.Second
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				out, err := cmd.Output()
				if err != nil {
					t.Fatalf("mcp-inspector %s: %v\n%s\n%s", strings.Join(args, " "), err, out, stderr.String())
				}
				return string(out)
			}
			list := inspect("--method", "tools/list")
			if !strings.Contains(list, `"word_counter"`) || !strings.Contains(list, `"timer"`) || !strings.Contains(list, `"prompt"`) {
				t.Errorf("tools/list: %s", list)
			}
			call := inspect("--method", "tools/call", "--tool-name", "timer", "--tool-arg", "prompt=wait")
			if !strings.Contains(call, `waited 0.2 s`) {
				t.Errorf("tools/call: %s", call)
			}
		})
	}
}
