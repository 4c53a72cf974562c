package mcp_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/testkit"
)

// The conformance fixture driven by the official TypeScript SDK v2 client
// (@modelcontextprotocol/client 2.4.0 on Node 24, scripts/tsclient/drive.mjs) in
// both eras, over stdio and Streamable HTTP: every tool, resource and
// prompt; elicitation over two rounds, sampling and roots answered by the
// SDK's handlers.
func TestFixtureWithTSClient(t *testing.T) {
	node, driver := testkit.TSClient(t)
	bin := testkit.Build(t, "cmd/luagent")
	server, _ := filepath.Abs(fixturePath)

	type op map[string]any
	ops := []op{{"op": "setLogLevel", "level": "info"}}
	toolArgs := map[string]map[string]any{
		"test_sampling":            {"prompt": "hi"},
		"test_elicitation":         {"message": "Please provide your information"},
		"json_schema_2020_12_tool": {"name": "TS", "email": "ts@example.com"},
		"test_custom_header":       {"region": "eu"},
	}
	wantText := map[string]string{
		"test_simple_text":                           "This is a simple text response for testing.",
		"test_error_handling":                        "This tool intentionally returns an error for testing",
		"test_reconnection":                          "Reconnection test completed successfully.",
		"test_tool_with_logging":                     "Tool with logging executed successfully",
		"test_sampling":                              "LLM response: sampled by ts",
		"test_elicitation":                           `User response: action=accept, content={"color":"green","context":"ts context","email":"ts@example.com","name":"TS","ok":true,"username":"tsuser"}`,
		"test_elicitation_sep1034_defaults":          "Elicitation completed: action=accept",
		"test_elicitation_sep1330_enums":             "Elicitation completed: action=accept",
		"json_schema_2020_12_tool":                   `JSON Schema 2020-12 tool called with: {"email":"ts@example.com","name":"TS"}`,
		"test_missing_capability":                    "Success",
		"test_streaming_elicitation":                 "Streaming complete",
		"test_logging_tool":                          "Logging evaluated",
		"test_trigger_tool_change":                   "Mutation triggered",
		"test_trigger_prompt_change":                 "Mutation triggered",
		"test_input_required_result_elicitation":     "Hello, TS!",
		"test_input_required_result_sampling":        "Sampling result: sampled by ts",
		"test_input_required_result_list_roots":      "Found 1 root(s)",
		"test_input_required_result_request_state":   "state-ok: requestState validated",
		"test_input_required_result_multiple_inputs": "Name: TS; Greeting: sampled by ts; Roots: 1",
		"test_input_required_result_multi_round":     "Multi-round complete for TS who likes green",
		"test_input_required_result_tampered_state":  "integrity-ok: state verified",
		"test_input_required_result_capabilities":    "capabilities-ok: received elicit_input, sample_input",
		"test_custom_header":                         "region: eu",
	}
	blocks := map[string]string{ // tools whose content is not text: the types
		"test_image_content":          "image",
		"test_audio_content":          "audio",
		"test_embedded_resource":      "resource",
		"test_multiple_content_types": "text,image,resource",
	}
	names := []string{"test_tool_with_progress"}
	for n := range wantText {
		names = append(names, n)
	}
	for n := range blocks {
		names = append(names, n)
	}
	ops = append(ops, op{"op": "listTools"})
	for _, n := range names {
		o := op{"op": "callTool", "name": n}
		if a := toolArgs[n]; a != nil {
			o["arguments"] = a
		}
		ops = append(ops, o)
	}
	resources := []string{"test://static-text", "test://static-binary", "test://watched-resource", "test://embedded-resource",
		"test://mixed-content-resource", "test://template/123/data"}
	ops = append(ops, op{"op": "listResources"}, op{"op": "listResourceTemplates"})
	for _, u := range resources {
		ops = append(ops, op{"op": "readResource", "uri": u})
	}
	ops = append(ops, op{"op": "readResource", "uri": "test://nonexistent-resource-for-conformance-testing"})
	prompts := []op{
		{"op": "getPrompt", "name": "test_simple_prompt"},
		{"op": "getPrompt", "name": "test_prompt_with_arguments", "arguments": map[string]string{"arg1": "testValue1", "arg2": "testValue2"}},
		{"op": "getPrompt", "name": "test_prompt_with_embedded_resource", "arguments": map[string]string{"resourceUri": "test://example-resource"}},
		{"op": "getPrompt", "name": "test_prompt_with_image"},
		{"op": "getPrompt", "name": "test_input_required_result_prompt"},
	}
	ops = append(ops, op{"op": "listPrompts"})
	ops = append(ops, prompts...)
	ops = append(ops, op{"op": "complete", "ref": map[string]string{"type": "ref/prompt", "name": "test_prompt_with_arguments"},
		"argument": map[string]string{"name": "arg1", "value": "test"}})
	script, _ := json.Marshal(ops)

	for _, mode := range []string{"stdio/modern", "stdio/legacy", "http/modern", "http/legacy"} {
		transport, era, _ := strings.Cut(mode, "/")
		t.Run(mode, func(t *testing.T) {
			args := append(append([]string{}, driver...), "--era", era, "--timeout", "20000")
			if transport == "http" {
				args = append(args, "--url", serveHTTP(t, bin, server))
			} else {
				args = append(args, "--", bin, "serve", server)
			}
			cmd := exec.Command(node, args...)
			cmd.Stdin = bytes.NewReader(script)
			cmd.Env = append(os.Environ(), `TSCLIENT_ELICIT_CONTENT={"username":"tsuser","email":"ts@example.com","name":"TS","color":"green","context":"ts context","ok":true}`)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("drive.mjs: %v\n%s\n%s", err, out, stderr.String())
			}
			type line struct {
				Connected       bool            `json:"connected"`
				ProtocolVersion string          `json:"protocolVersion"`
				Op              string          `json:"op"`
				OK              bool            `json:"ok"`
				Result          json.RawMessage `json:"result"`
				Error           json.RawMessage `json:"error"`
				Progress        []struct {
					Progress float64 `json:"progress"`
					Total    float64 `json:"total"`
				} `json:"progress"`
				Logs []struct {
					Level string `json:"level"`
					Data  string `json:"data"`
				} `json:"logs"`
			}
			var lines []line
			sc := bufio.NewScanner(bytes.NewReader(out))
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				var l line
				if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
					t.Fatalf("drive.mjs printed %q", sc.Text())
				}
				lines = append(lines, l)
			}
			if len(lines) != len(ops)+1 || !lines[0].Connected {
				t.Fatalf("%d lines for %d ops:\n%s\n%s", len(lines), len(ops), out, stderr.String())
			}
			want := map[string]string{"modern": "2026-07-28", "legacy": "2025-11-25"}[era]
			if lines[0].ProtocolVersion != want {
				t.Fatalf("negotiated %s, want %s", lines[0].ProtocolVersion, want)
			}
			for i, l := range lines[1:] {
				o := ops[i]
				what := o["op"].(string)
				if n, ok := o["name"].(string); ok {
					what += " " + n
				}
				if u, ok := o["uri"].(string); ok {
					what += " " + u
				}
				if u, _ := o["uri"].(string); strings.Contains(u, "nonexistent") {
					if l.OK || !strings.Contains(string(l.Error), "nonexistent-resource-for-conformance-testing") {
						t.Errorf("%s: %s %s", what, l.Result, l.Error)
					}
					continue
				}
				if !l.OK {
					t.Errorf("%s failed: %s", what, l.Error)
					continue
				}
				var res struct {
					Content []struct {
						Type string `json:"type"`
						Text string `json:"text"`
					} `json:"content"`
					IsError  bool              `json:"isError"`
					Tools    []json.RawMessage `json:"tools"`
					Contents []struct {
						Text string `json:"text"`
						Blob string `json:"blob"`
					} `json:"contents"`
					Messages   []json.RawMessage `json:"messages"`
					Completion struct {
						Values []string `json:"values"`
					} `json:"completion"`
				}
				json.Unmarshal(l.Result, &res)
				name, _ := o["name"].(string)
				switch o["op"] {
				case "listTools":
					if len(res.Tools) < 26 {
						t.Errorf("%d tools", len(res.Tools))
					}
				case "callTool":
					if name == "test_tool_with_progress" {
						// The SDK dispatches notifications a microtask after the
						// response that follows them in the same read, and drops
						// progress whose request has ended: what shares a read
						// with the response (100; under load 50 too, sent 50 ms
						// earlier) can be lost on its side. The first, sent
						// 100 ms before the response, arrives; what arrives is
						// in order. The wire order of all three is checked in
						// TestFixtureModern.
						ok := len(l.Progress) >= 1 && l.Progress[0].Progress == 0 && l.Progress[0].Total == 100
						for i := 1; ok && i < len(l.Progress); i++ {
							ok = l.Progress[i].Progress == float64(50*i)
						}
						if !ok {
							t.Errorf("%s: progress %+v", what, l.Progress)
						}
						continue
					}
					if name == "test_tool_with_logging" && len(l.Logs) < 3 {
						t.Errorf("%s: %d log messages", what, len(l.Logs))
					}
					if ty := blocks[name]; ty != "" {
						var got []string
						for _, c := range res.Content {
							got = append(got, c.Type)
						}
						if strings.Join(got, ",") != ty {
							t.Errorf("%s: blocks %v", what, got)
						}
						continue
					}
					if len(res.Content) == 0 || !strings.HasPrefix(res.Content[0].Text, wantText[name]) {
						t.Errorf("%s: %s, want %q", what, l.Result, wantText[name])
					}
					if res.IsError != (name == "test_error_handling") {
						t.Errorf("%s: isError %v", what, res.IsError)
					}
				case "readResource":
					if len(res.Contents) != 1 || (res.Contents[0].Text == "" && res.Contents[0].Blob == "") {
						t.Errorf("%s: %s", what, l.Result)
					}
				case "getPrompt":
					if len(res.Messages) == 0 {
						t.Errorf("%s: %s", what, l.Result)
					}
					if name == "test_input_required_result_prompt" && !strings.Contains(string(res.Messages[0]), "Prompt with context: ts context") {
						t.Errorf("%s: %s", what, l.Result)
					}
					if name == "test_prompt_with_arguments" && !strings.Contains(string(res.Messages[0]), "testValue2") {
						t.Errorf("%s: %s", what, l.Result)
					}
				case "complete":
					if strings.Join(res.Completion.Values, ",") != "test,testValue1,testValue2" {
						t.Errorf("completion: %s", l.Result)
					}
				}
			}
		})
	}
}
