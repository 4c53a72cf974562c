package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// savedHome is a LUAGENT_HOME whose catalog holds config (the mcpServers
// object's members).
func savedHome(t *testing.T, servers string) []string {
	home, env := catalogHome(t)
	os.MkdirAll(home, 0o700)
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(`{"version":1,"mcpServers":{`+servers+`}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	return env
}

func typedEntry(t *testing.T, extra string) string {
	script, _ := filepath.Abs("testdata/typed.lua")
	return `"typed":{"command":` + quoteJSON(bin) + `,"args":["serve",` + quoteJSON(script) + `]` + extra + `}`
}

func quoteJSON(s string) string {
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`
}

// mcp tools and mcp call connect once to a saved server, print and exit.
func TestMCPToolsAndCall(t *testing.T) {
	env := savedHome(t, typedEntry(t, `,"enabled":false`))
	r := ok(t, env, "mcp", "tools", "typed")
	if !strings.Contains(r.stdout, "describe  Say the type of each argument\n") || strings.Contains(r.stdout, "second line") {
		t.Errorf("tools: %q", r.stdout)
	}
	r = ok(t, env, "mcp", "tools", "typed", "--json")
	if !strings.HasPrefix(r.stdout, "[") || !strings.Contains(r.stdout, `"name": "broken"`) {
		t.Errorf("tools --json: %s", r.stdout)
	}
	r = ok(t, env, "mcp", "call", "typed", "describe", "n=42", "flag=true", `opts={"a":1}`, "name=7", `list=[1,2]`)
	if got := strings.TrimSpace(r.stdout); got != "n:number flag:boolean opts:table name:string list:table" {
		t.Errorf("k=v typed by the schema: %q", got)
	}
	r = ok(t, env, "mcp", "call", "typed", "describe", "--json", `{"n":1,"flag":false,"opts":{},"name":"x","list":[]}`)
	if got := strings.TrimSpace(r.stdout); got != "n:number flag:boolean opts:table name:string list:table" {
		t.Errorf("--json: %q", got)
	}
	failsWith(t, env, 1, "the tool wants a number", "mcp", "call", "typed", "describe", "n=many")
	r = failsWith(t, env, 1, "it broke", "mcp", "call", "typed", "broken")
	if r.stdout != "" {
		t.Errorf("a tool error on stdout: %q", r.stdout)
	}
	failsWith(t, env, 1, "typed has no tool nope (it has: broken, describe, env)", "mcp", "call", "typed", "nope")
	failsWith(t, env, 1, "no server named ghost", "mcp", "tools", "ghost")
	failsWith(t, env, 2, "needs a server and a tool", "mcp", "call", "typed")
	failsWith(t, env, 2, "not both", "mcp", "call", "typed", "describe", "n=1", "--json", "{}")
	if r := ok(t, env, "mcp", "call", "--help"); !strings.Contains(r.stdout, "KEY=VALUE") {
		t.Errorf("call --help: %s", r.stdout)
	}
}

// A server that cannot start, or wants OAuth, says so on one line.
func TestMCPToolsFailures(t *testing.T) {
	wants := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://`+r.Host+`/.well-known/oauth-protected-resource/mcp"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer wants.Close()
	env := savedHome(t, `"crash":{"command":"sh","args":["-c","echo 'fatal: no config' >&2; exit 3"]},
		"remote":{"url":"`+wants.URL+`/mcp"}`)
	failsWith(t, env, 1, "fatal: no config", "mcp", "tools", "crash")
	failsWith(t, env, 1, "luagent mcp login "+wants.URL+"/mcp", "mcp", "tools", "remote")
}

// An env value given with --set reaches the server and nothing printed:
// not -v, not --trace, not an error.
func TestMCPCallSecret(t *testing.T) {
	const secret = "cli-s3cret-77aa"
	env := savedHome(t, typedEntry(t, `,"env":{"TOKEN":{"param":"tok"}}`))
	tracePath := filepath.Join(t.TempDir(), "trace.jsonl")
	r := ok(t, env, "mcp", "call", "typed", "env", "name=TOKEN", "--set", "tok="+secret, "-v", "--trace", tracePath)
	if strings.TrimSpace(r.stdout) != secret {
		t.Fatalf("the server did not get the value: %q", r.stdout)
	}
	tr, _ := os.ReadFile(tracePath)
	if strings.Contains(r.stderr, secret) || strings.Contains(string(tr), secret) || !strings.Contains(string(tr), "TOKEN") {
		t.Errorf("the secret leaked (or the trace lacks the name):\nstderr: %s\ntrace: %s", r.stderr, tr)
	}
	r = failsWith(t, env, 1, "--set tok=VALUE", "mcp", "tools", "typed")
	if strings.Contains(r.stderr, secret) {
		t.Error("secret in an error")
	}
	params := filepath.Join(t.TempDir(), "params")
	os.WriteFile(params, []byte("# the token\ntok="+secret+"\n"), 0o600)
	if r := ok(t, env, "mcp", "call", "typed", "env", "name=TOKEN", "--params-file", params); strings.TrimSpace(r.stdout) != secret {
		t.Errorf("--params-file: %q", r.stdout)
	}
}

// --set and --params-file on the command line reach a script's mcp.hub():
// the catalog's {"param": NAME} env references take them, --set wins.
func TestHubParamsFromTheCommandLine(t *testing.T) {
	const secret = "hub-s3cret-41bb"
	env := savedHome(t, typedEntry(t, `,"env":{"TOKEN":{"param":"tok"}}`))
	script := `local hub = mcp.hub()
print(hub:call("typed__env", { name = "TOKEN" }).content[1].text)
hub:close()`
	r := luagent(t, "", env, "--set", "tok="+secret, "-v", "-e", script)
	if r.code != 0 || strings.TrimSpace(r.stdout) != secret {
		t.Fatalf("--set did not reach the hub's server: %+v", r)
	}
	if strings.Contains(r.stderr, secret) {
		t.Errorf("the value is in -v's output:\n%s", r.stderr)
	}
	params := filepath.Join(t.TempDir(), "params.json")
	os.WriteFile(params, []byte(`{"tok": "from-the-file"}`), 0o600)
	if r := luagent(t, "", env, "--params-file", params, "-e", script); strings.TrimSpace(r.stdout) != "from-the-file" {
		t.Errorf("--params-file (JSON): %+v", r)
	}
	if r := luagent(t, "", env, "--set", "tok=flag-wins", "--params-file", params, "-e", script); strings.TrimSpace(r.stdout) != "flag-wins" {
		t.Errorf("--set after --params-file: %+v", r)
	}
	r = luagent(t, "", env, "-e", script)
	if r.code != 1 || !strings.Contains(r.stderr, "needs the parameter tok: pass --set tok=VALUE") {
		t.Errorf("a missing parameter: %+v", r)
	}
	if r := luagent(t, "", env, "--set", secret, "-e", "print(1)"); r.code != 2 || strings.Contains(r.stderr, secret) {
		t.Errorf("--set without NAME=: %+v", r)
	}
}
