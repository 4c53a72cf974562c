package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A server that prints its secret env to stderr and exits: the errors,
// the -v lines and the --trace file show <secret>, never the value — a
// catalog entry's literal (luagent mcp call) and a secret parameter bound
// to a hub server's env (an agent's own servers are such a hub).
func TestServerStderrMasksSecrets(t *testing.T) {
	const literal, param = "sk-literal-STDERR-31", "S3CRET-param-STDERR-42"
	home := t.TempDir()
	writeFile(t, home, "config.json", `{"version": 1, "mcpServers": {"crash": {"command": "sh",
	  "args": ["-c", "echo \"crash: key $KEY rejected\" >&2; exit 3"], "env": {"KEY": "`+literal+`"}}}}`)
	trace := filepath.Join(home, "call.jsonl")
	r := luagent(t, "", []string{"LUAGENT_HOME=" + home}, "mcp", "call", "crash", "echo", "message=hi", "-v", "--trace", trace)
	raw, _ := os.ReadFile(trace)
	if r.code == 0 || !strings.Contains(r.stderr, "last stderr: crash: key <secret> rejected") {
		t.Errorf("mcp call: %+v", r)
	}
	if len(raw) == 0 {
		t.Error("mcp call traced nothing")
	}
	for what, s := range map[string]string{"stdout": r.stdout, "stderr": r.stderr, "trace": string(raw)} {
		if strings.Contains(s, "STDERR-31") {
			t.Errorf("the literal is in mcp call's %s:\n%s", what, s)
		}
	}

	trace = filepath.Join(home, "hub.jsonl")
	r = luagent(t, "", nil, "-v", "--trace", trace, "--set", "tok="+param, "-e", `
local h = mcp.hub{ servers = { crash = { command = "sh", args = { "-c", 'echo "crash: token $TOK rejected" >&2; exit 3' },
  env = { TOK = { param = "tok" } } } } }
for _, s in ipairs(h:status()) do print(s.status, s.error, table.concat(s.stderr, "|")) end`)
	raw, _ = os.ReadFile(trace)
	if r.code != 0 || !strings.Contains(r.stdout, "last stderr: crash: token <secret> rejected") || !strings.Contains(r.stdout, "|crash: token <secret> rejected") {
		t.Errorf("hub status: %+v", r)
	}
	for what, s := range map[string]string{"stdout": r.stdout, "stderr": r.stderr, "trace": string(raw)} {
		if strings.Contains(s, "STDERR-42") {
			t.Errorf("the parameter is in the %s:\n%s", what, s)
		}
	}
}
