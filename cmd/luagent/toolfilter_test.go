package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// filterHome is askHome's catalog with the entry's members and the top
// level's set as given (merged into the file as JSON).
func filterHome(t *testing.T, entry, top map[string]any) (home, notes string) {
	t.Helper()
	home = t.TempDir()
	srv := writeFile(t, home, "srv.lua", askServer)
	notes = filepath.Join(home, "notes.txt")
	e := map[string]any{"command": bin, "args": []string{"serve", srv, notes}}
	for k, v := range entry {
		e[k] = v
	}
	cfg := map[string]any{"version": 1, "mcpServers": map[string]any{"srv": e}}
	for k, v := range top {
		cfg[k] = v
	}
	b, _ := json.Marshal(cfg)
	writeFile(t, home, "config.json", string(b))
	return home, notes
}

// A tool disabledTools names is not listed by mcp tools, not callable by
// mcp call (one line naming the filter), and not offered to the model by
// ask; mcp get shows the filters.
func TestToolFiltersCLI(t *testing.T) {
	home, notes := filterHome(t, map[string]any{"disabledTools": []string{"wr*"}}, nil)
	env := []string{"LUAGENT_HOME=" + home}
	r := ok(t, env, "mcp", "tools", "srv")
	if !strings.Contains(r.stdout, "echo") || strings.Contains(r.stdout, "write") {
		t.Errorf("mcp tools srv:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, "of its tools filtered out by srv's enabledTools/disabledTools") {
		t.Errorf("mcp tools srv does not say a tool is filtered out:\n%s", r.stderr)
	}
	if r := ok(t, env, "mcp", "tools", "srv", "--json"); strings.Contains(r.stdout, `"write"`) {
		t.Errorf("mcp tools --json lists write:\n%s", r.stdout)
	}
	failsWith(t, env, 1, "enabledTools/disabledTools in config.json", "mcp", "call", "srv", "write", "text=hi")
	if _, err := os.Stat(notes); !os.IsNotExist(err) {
		t.Errorf("the filtered tool ran: %v", err)
	}
	if r := ok(t, env, "mcp", "call", "srv", "echo", "message=hi"); !strings.Contains(r.stdout, "pong:hi") {
		t.Errorf("echo: %q", r.stdout)
	}
	if r := ok(t, env, "mcp", "get", "srv"); !strings.Contains(r.stdout, "disabled tools:") || !strings.Contains(r.stdout, "wr*") {
		t.Errorf("mcp get:\n%s", r.stdout)
	}
	var g map[string]any
	json.Unmarshal([]byte(ok(t, env, "mcp", "get", "srv", "--json").stdout), &g)
	if d, _ := g["disabledTools"].([]any); len(d) != 1 || d[0] != "wr*" || g["enabledTools"] != nil {
		t.Errorf("get --json: enabledTools %v, disabledTools %v", g["enabledTools"], g["disabledTools"])
	}

	var log wireLog
	ep := openAIEndpoint(t, &log)
	r = luagent(t, "", openAIEnv(home, ep.URL, "sk-test"), "ask", "--model", "openai:gpt-test", "please", "echo", "hi")
	if r.code != 0 || len(log.bodies) == 0 {
		t.Fatalf("ask: exit %d\n%s", r.code, r.stderr)
	}
	if first := log.bodies[0]; !strings.Contains(first, `"srv__echo"`) || strings.Contains(first, `srv__write`) {
		t.Errorf("the model was offered:\n%s", first)
	}

	// The mock model picks the best-matching tool it is offered: the
	// filtered write is not one of them.
	r = luagent(t, "", []string{"LUAGENT_HOME=" + home, "LUAGENT_MODEL="}, "ask", "--model", "mock", "write a note with text=hi")
	if strings.Contains(r.stderr, "write {") {
		t.Errorf("the mock model called write:\n%s", r.stderr)
	}
	if _, err := os.Stat(notes); !os.IsNotExist(err) {
		t.Errorf("the filtered tool ran: %v", err)
	}

	// enabledTools: only those; an invalid glob is refused in one line.
	home2, _ := filterHome(t, map[string]any{"enabledTools": []string{"write"}}, nil)
	if r := ok(t, []string{"LUAGENT_HOME=" + home2}, "mcp", "tools", "srv"); !strings.Contains(r.stdout, "write") || strings.Contains(r.stdout, "echo") {
		t.Errorf("enabledTools [write]:\n%s", r.stdout)
	}
	home3, _ := filterHome(t, map[string]any{"enabledTools": []string{"ec[ho"}}, nil)
	failsWith(t, []string{"LUAGENT_HOME=" + home3}, 1, `mcpServers.srv.enabledTools[0]: "ec[ho" is not a valid glob`, "mcp", "list")
}

// toolSearch and toolSearchThreshold decide whether ask defers the tools
// behind mcp_search_tools; an agent.new{tool_search = ...} wins over them.
func TestToolSearchSettingCLI(t *testing.T) {
	for _, c := range []struct {
		name   string
		top    map[string]any
		agent  string // an agent file's options, "" for the default agent
		search bool
	}{
		{"default: two tools are under 40", nil, "", false},
		{"always", map[string]any{"toolSearch": "always"}, "", true},
		{"auto over a threshold of 1", map[string]any{"toolSearchThreshold": 1}, "", true},
		{"never, whatever the threshold", map[string]any{"toolSearch": "never", "toolSearchThreshold": 1}, "", false},
		{"agent file: config.json applies", map[string]any{"toolSearch": "always"}, `model = "openai:gpt-test"`, true},
		{"agent file: tool_search wins", map[string]any{"toolSearch": "always"}, `model = "openai:gpt-test", tool_search = "never"`, false},
		{"agent file: tool_search_threshold wins", map[string]any{"toolSearch": "auto", "toolSearchThreshold": 100}, `model = "openai:gpt-test", tool_search_threshold = 1`, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			home, _ := filterHome(t, nil, c.top)
			var log wireLog
			ep := openAIEndpoint(t, &log)
			args := []string{"ask", "--model", "openai:gpt-test", "say hi"}
			if c.agent != "" {
				f := writeFile(t, home, "a.lua", "return agent.new{ "+c.agent+" }")
				args = []string{"ask", "--agent", f, "say hi"}
			}
			r := luagent(t, "", openAIEnv(home, ep.URL, "sk-test"), args...)
			if r.code != 0 || len(log.bodies) == 0 {
				t.Fatalf("ask: exit %d\n%s", r.code, r.stderr)
			}
			first := log.bodies[0]
			if strings.Contains(first, `"mcp_search_tools"`) != c.search || strings.Contains(first, `"srv__echo"`) == c.search {
				t.Errorf("search %v wanted; the model was offered:\n%s", c.search, first)
			}
		})
	}
	home, _ := filterHome(t, nil, map[string]any{"toolSearch": "sometimes"})
	failsWith(t, []string{"LUAGENT_HOME=" + home}, 1, `toolSearch: must be "auto", "always" or "never", not "sometimes"`, "mcp", "list")
}

// mcp import --from codex maps enabled_tools and disabled_tools.
func TestImportCodexToolFiltersCLI(t *testing.T) {
	home, env := catalogHome(t)
	src := writeFile(t, t.TempDir(), "config.toml", `
[mcp_servers.gh]
command = "gh-mcp"
enabled_tools = ["search_issues", "get_issue"]
disabled_tools = ["get_issue"]
`)
	r := ok(t, env, "mcp", "import", "--from", "codex", src)
	if !strings.Contains(r.stdout, "added gh") || strings.Contains(r.stdout, "enabled_tools") {
		t.Errorf("import:\n%s", r.stdout)
	}
	b, err := os.ReadFile(filepath.Join(home, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"enabledTools": ["search_issues", "get_issue"]`) || !strings.Contains(string(b), `"disabledTools": ["get_issue"]`) {
		t.Errorf("config.json:\n%s", b)
	}
}

// mcp add --enable-tool and --disable-tool save the filters (a bad glob is
// refused); an import note's command keeps them.
func TestAddToolFilterFlags(t *testing.T) {
	home, env := catalogHome(t)
	ok(t, env, "mcp", "add", "x", "--enable-tool", "read_*", "--disable-tool", "read_secret", "--disable-tool", "rm", "--", "some-server")
	b, _ := os.ReadFile(filepath.Join(home, "config.json"))
	if !strings.Contains(string(b), `"enabledTools": ["read_*"]`) || !strings.Contains(string(b), `"disabledTools": ["read_secret", "rm"]`) {
		t.Errorf("config.json:\n%s", b)
	}
	failsWith(t, env, 2, `"[x" is not a valid glob`, "mcp", "add", "y", "--enable-tool", "[x", "--", "some-server")
	src := writeFile(t, t.TempDir(), "config.toml", `
[mcp_servers.web]
url = "https://example.com/mcp"
env_http_headers = { "X-Org" = "ORG" }
disabled_tools = ["delete_all"]
`)
	_, env2 := catalogHome(t)
	if r := ok(t, env2, "mcp", "import", "--from", "codex", src); !strings.Contains(r.stdout, "--disable-tool delete_all") {
		t.Errorf("the note's command drops the filter:\n%s", r.stdout)
	}
}

// A Gemini CLI settings.json (told by its .gemini folder) imports with
// includeTools/excludeTools as the filters.
func TestImportGeminiCLI(t *testing.T) {
	home, env := catalogHome(t)
	dir := filepath.Join(t.TempDir(), ".gemini")
	os.MkdirAll(dir, 0o755)
	src := writeFile(t, dir, "settings.json", `{"mcpServers": {"git": {"command": "uvx", "args": ["mcp-server-git"], "includeTools": ["git_status"], "excludeTools": ["git_push"]}}}`)
	if r := ok(t, env, "mcp", "import", src); !strings.Contains(r.stdout, "added git") {
		t.Errorf("import:\n%s", r.stdout)
	}
	b, _ := os.ReadFile(filepath.Join(home, "config.json"))
	if !strings.Contains(string(b), `"enabledTools": ["git_status"]`) || !strings.Contains(string(b), `"disabledTools": ["git_push"]`) {
		t.Errorf("config.json:\n%s", b)
	}
}
