package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// envServer reports what of its environment it sees: names set, never a
// value.
const envServer = `
local s = mcp.server{ name = "env", version = "1.0.0" }
s:tool{ name = "has", description = "Which of these variables are set", input = { names = "string" },
  annotations = { readOnlyHint = true }, handler = function(a)
    local out = {}
    for n in a.names:gmatch("[^,]+") do
      out[#out + 1] = n .. "=" .. (os.getenv(n) and "set" or "unset")
    end
    return table.concat(out, " ")
  end }
return s
`

// The keys luagent itself uses stay with luagent: a stdio server inherits
// everything but them unless its entry names them (env, inheritEnv), and
// inheritEnv narrows what it inherits. The key's value is never printed.
func TestServersDoNotInheritLuagentKeys(t *testing.T) {
	const key = "sk-proj-SECRET-4d9e1b"
	home := t.TempDir()
	srv := writeFile(t, home, "env.lua", envServer)
	entry := func(extra map[string]any) map[string]any {
		e := map[string]any{"command": bin, "args": []string{"serve", srv}}
		for k, v := range extra {
			e[k] = v
		}
		return e
	}
	writeCatalog(t, home, map[string]any{
		"plain":   entry(nil),
		"named":   entry(map[string]any{"env": map[string]any{"OPENAI_API_KEY": map[string]any{"fromEnv": "OPENAI_API_KEY"}}}),
		"minimal": entry(map[string]any{"inheritEnv": "minimal"}),
		"list":    entry(map[string]any{"inheritEnv": []string{"MY_SETTING", "ANTHROPIC_API_KEY"}}),
	})
	// A configured model's key variable is luagent's own too.
	cfg, _ := os.ReadFile(home + "/config.json")
	var m map[string]any
	json.Unmarshal(cfg, &m)
	m["models"] = map[string]any{"work": map[string]any{"provider": "openai", "model": "x", "apiKeyEnv": "WORK_OPENAI_KEY"}}
	b, _ := json.Marshal(m)
	writeFile(t, home, "config.json", string(b))

	env := []string{"LUAGENT_HOME=" + home, "OPENAI_API_KEY=" + key, "ANTHROPIC_API_KEY=" + key, "OPENAI_BASE_URL=http://127.0.0.1:1/v1",
		"MCP_ACCESS_TOKEN=" + key, "WORK_OPENAI_KEY=" + key, "MY_SETTING=on"}
	const names = "names=OPENAI_API_KEY,ANTHROPIC_API_KEY,OPENAI_BASE_URL,MCP_ACCESS_TOKEN,WORK_OPENAI_KEY,MY_SETTING,PATH,HOME"
	tests := []struct{ server, want string }{
		{"plain", "OPENAI_API_KEY=unset ANTHROPIC_API_KEY=unset OPENAI_BASE_URL=unset MCP_ACCESS_TOKEN=unset WORK_OPENAI_KEY=unset MY_SETTING=set PATH=set HOME=set"},
		{"named", "OPENAI_API_KEY=set ANTHROPIC_API_KEY=unset OPENAI_BASE_URL=unset MCP_ACCESS_TOKEN=unset WORK_OPENAI_KEY=unset MY_SETTING=set PATH=set HOME=set"},
		{"minimal", "OPENAI_API_KEY=unset ANTHROPIC_API_KEY=unset OPENAI_BASE_URL=unset MCP_ACCESS_TOKEN=unset WORK_OPENAI_KEY=unset MY_SETTING=unset PATH=set HOME=set"},
		{"list", "OPENAI_API_KEY=unset ANTHROPIC_API_KEY=set OPENAI_BASE_URL=unset MCP_ACCESS_TOKEN=unset WORK_OPENAI_KEY=unset MY_SETTING=set PATH=unset HOME=unset"},
	}
	for _, tt := range tests {
		t.Run(tt.server, func(t *testing.T) {
			r := luagent(t, "", env, "mcp", "call", tt.server, "has", names)
			if r.code != 0 || strings.TrimSpace(r.stdout) != tt.want {
				t.Errorf("exit %d\ngot  %s\nwant %s\nstderr: %s", r.code, strings.TrimSpace(r.stdout), tt.want, r.stderr)
			}
			if strings.Contains(r.stdout+r.stderr, "SECRET") {
				t.Error("a key was printed")
			}
		})
	}
	// The same through mcp.connect's inherit_env in a script.
	script := writeFile(t, home, "connect.lua", `
for _, ie in ipairs({ "default", "minimal", { "MY_SETTING", "OPENAI_API_KEY" } }) do
  local c = mcp.connect{ command = arg[-1], args = { "serve", arg[1] }, inherit_env = ie ~= "default" and ie or nil }
  print(c:call("has", { names = "OPENAI_API_KEY,MY_SETTING,PATH" }).content[1].text)
  c:close()
end
local ok, err = pcall(mcp.connect, { command = "x", inherit_env = "all" })
print(ok, (tostring(err):gsub("^.-bad argument", "bad argument")))
`)
	r := luagent(t, "", env, "run", script, srv)
	want := "OPENAI_API_KEY=unset MY_SETTING=set PATH=set\n" +
		"OPENAI_API_KEY=unset MY_SETTING=unset PATH=set\n" +
		"OPENAI_API_KEY=set MY_SETTING=set PATH=unset\n" +
		`false	bad argument #1 to 'mcp.connect' (inherit_env must be "minimal" or a list of variable names like {"PATH", "HOME"})` + "\n"
	if r.code != 0 || r.stdout != want {
		t.Errorf("exit %d\ngot:\n%s\nwant:\n%s\nstderr: %s", r.code, r.stdout, want, r.stderr)
	}
}

// mcp add --inherit-env saves inheritEnv, mcp get shows it, and a bad
// value is one line naming the field.
func TestMCPAddInheritEnv(t *testing.T) {
	home := t.TempDir()
	env := []string{"LUAGENT_HOME=" + home}
	for _, tc := range []struct {
		flag, get, json string
	}{
		{"minimal", "minimal (HOME, LOGNAME, PATH, SHELL, TERM, USER)", `"inheritEnv": "minimal"`},
		{"PATH,GITHUB_TOKEN", "PATH, GITHUB_TOKEN", `"inheritEnv": [`},
	} {
		if r := luagent(t, "", env, "mcp", "add", "--force", "s", "--inherit-env", tc.flag, "--", "npx", "srv"); r.code != 0 || !strings.Contains(r.stdout, "inherits: ") {
			t.Fatalf("add: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		if r := luagent(t, "", env, "mcp", "get", "s"); getRow(r.stdout, "inherits") != tc.get {
			t.Errorf("get:\n%s\nwant inherits: %s", r.stdout, tc.get)
		}
		if r := luagent(t, "", env, "mcp", "get", "s", "--json"); !strings.Contains(r.stdout, tc.json) {
			t.Errorf("get --json:\n%s", r.stdout)
		}
	}
	r := luagent(t, "", env, "mcp", "get", "s", "--json")
	var g struct{ InheritEnv []string }
	if err := json.Unmarshal([]byte(r.stdout), &g); err != nil || strings.Join(g.InheritEnv, ",") != "PATH,GITHUB_TOKEN" {
		t.Errorf("get --json inheritEnv: %v %+v", err, g)
	}
	luagent(t, "", env, "mcp", "add", "--force", "d", "--", "npx", "srv")
	if r := luagent(t, "", env, "mcp", "get", "d"); getRow(r.stdout, "inherits") != "all of luagent's environment but its own keys" {
		t.Errorf("get of the default:\n%s", r.stdout)
	}
	r = luagent(t, "", env, "mcp", "add", "bad", "--inherit-env", "A=B", "--", "npx")
	if r.code != 2 || !strings.Contains(r.stderr, "--inherit-env: must be a variable's name") || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("bad name: exit %d\n%s", r.code, r.stderr)
	}
}

// getRow is the value of the row label of `mcp get`'s text.
func getRow(out, label string) string {
	for _, l := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(l, label+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func writeCatalog(t *testing.T, home string, servers map[string]any) {
	t.Helper()
	b, err := json.Marshal(map[string]any{"version": 1, "mcpServers": servers})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, home, "config.json", string(b))
}
