package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// catalogHome returns a fresh LUAGENT_HOME and the env that selects it.
func catalogHome(t *testing.T) (string, []string) {
	home := filepath.Join(t.TempDir(), "home")
	return home, []string{"LUAGENT_HOME=" + home}
}

// ok runs luagent and fails the test unless it exits 0.
func ok(t *testing.T, env []string, args ...string) result {
	t.Helper()
	r := luagent(t, "", env, args...)
	if r.code != 0 {
		t.Fatalf("luagent %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r
}

// failsWith runs luagent and checks the exit code and that stderr is one
// line containing want.
func failsWith(t *testing.T, env []string, code int, want string, args ...string) result {
	t.Helper()
	r := luagent(t, "", env, args...)
	if r.code != code || !strings.Contains(r.stderr, want) || strings.Count(strings.TrimRight(r.stderr, "\n"), "\n") != 0 {
		t.Errorf("luagent %s: exit %d, stderr %q; want exit %d and one line containing %q", strings.Join(args, " "), r.code, r.stderr, code, want)
	}
	noGoStack(t, r.stderr)
	return r
}

func TestMCPListJSONShape(t *testing.T) {
	home, env := catalogHome(t)
	if r := ok(t, env, "mcp", "list", "--json"); r.stdout != "[]\n" {
		t.Errorf("empty catalog: %q, want []", r.stdout)
	}
	ok(t, env, "mcp", "add", "fs", "--env", "B=2", "--env", "A=1", "--cwd", "/tmp", "--", "npx", "-y", "@modelcontextprotocol/server-filesystem", ".")
	ok(t, env, "mcp", "add", "web", "--transport", "http", "https://example.com/mcp?a=1&b=2")
	ok(t, env, "mcp", "add", "off", "--disabled", "--", "true")
	r := ok(t, env, "mcp", "list", "--json")
	var got []map[string]json.RawMessage
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("not a JSON array: %v\n%s", err, r.stdout)
	}
	if len(got) != 3 {
		t.Fatalf("%d entries, want 3 (disabled included)", len(got))
	}
	want := []map[string]string{
		{"name": `"fs"`, "enabled": `true`, "transport": `"stdio"`, "url": `null`, "command": `"npx"`,
			"args": `["-y","@modelcontextprotocol/server-filesystem","."]`, "cwd": `"/tmp"`, "envKeys": `["A","B"]`},
		{"name": `"web"`, "enabled": `true`, "transport": `"http"`, "url": `"https://example.com/mcp?a=1&b=2"`, "command": `""`,
			"args": `[]`, "cwd": `null`, "envKeys": `[]`},
		{"name": `"off"`, "enabled": `false`, "transport": `"stdio"`, "url": `null`, "command": `"true"`,
			"args": `[]`, "cwd": `null`, "envKeys": `[]`},
	}
	for i, w := range want {
		var keys []string
		for k := range got[i] {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if strings.Join(keys, ",") != "args,command,cwd,enabled,envKeys,name,transport,url" {
			t.Errorf("entry %d has members %v, want exactly name, enabled, transport, url, command, args, cwd, envKeys", i, keys)
		}
		for k, v := range w {
			var compact strings.Builder
			var x any
			json.Unmarshal(got[i][k], &x)
			b, _ := json.Marshal(x)
			compact.Write(b)
			if k == "url" && x != nil {
				compact.Reset()
				compact.WriteString(`"` + x.(string) + `"`)
			}
			if compact.String() != v {
				t.Errorf("entry %d: %s = %s, want %s", i, k, got[i][k], v)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(home, "config.json")); err != nil {
		t.Error(err)
	}
	// The table: name, enabled, transport, command or url.
	r = ok(t, env, "mcp", "list")
	for _, w := range []string{"NAME", "ENABLED", "TRANSPORT", "COMMAND OR URL", "fs", "npx -y @modelcontextprotocol/server-filesystem .",
		"web", "https://example.com/mcp?a=1&b=2", "off", "no"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("table lacks %q:\n%s", w, r.stdout)
		}
	}
}

func TestMCPAddArgsExact(t *testing.T) {
	_, env := catalogHome(t)
	args := []string{"--flag", "a b", "$HOME", "", "--", "-e", "X=1", "`x`", "--force"}
	ok(t, env, append([]string{"mcp", "add", "odd", "--"}, append([]string{"prog"}, args...)...)...)
	var got []listEntry
	json.Unmarshal([]byte(ok(t, env, "mcp", "list", "--json").stdout), &got)
	if len(got) != 1 || got[0].Command != "prog" || !reflect.DeepEqual(got[0].Args, args) || len(got[0].EnvKeys) != 0 {
		t.Errorf("saved %+v, want prog with %q", got, args)
	}
}

func TestMCPEditVerbs(t *testing.T) {
	_, env := catalogHome(t)
	ok(t, env, "mcp", "add", "a", "--", "true")
	failsWith(t, env, 1, "a server named a is already in the catalog; pick another name, or pass --force", "mcp", "add", "a", "--", "false")
	ok(t, env, "mcp", "add", "a", "--force", "--", "false")
	if r := ok(t, env, "mcp", "get", "a"); !strings.Contains(r.stdout, "command:") || !strings.Contains(r.stdout, "false") {
		t.Errorf("get after --force: %s", r.stdout)
	}
	if r := ok(t, env, "mcp", "disable", "a"); r.stdout != "disabled a\n" {
		t.Errorf("disable: %q", r.stdout)
	}
	if r := ok(t, env, "mcp", "disable", "a"); r.stdout != "a was already disabled\n" {
		t.Errorf("disable again: %q", r.stdout)
	}
	if r := ok(t, env, "mcp", "enable", "a"); r.stdout != "enabled a\n" {
		t.Errorf("enable: %q", r.stdout)
	}
	ok(t, env, "mcp", "remove", "a")
	for _, verb := range []string{"remove", "enable", "disable", "get"} {
		failsWith(t, env, 1, "no server named a in", "mcp", verb, "a")
	}
	if r := ok(t, env, "mcp", "list", "--json"); r.stdout != "[]\n" {
		t.Errorf("after remove: %s", r.stdout)
	}
	usage := []struct {
		args []string
		want string
	}{
		{[]string{"mcp", "add"}, "mcp add needs a NAME"},
		{[]string{"mcp", "add", "x"}, "needs a command after --"},
		{[]string{"mcp", "add", "x", "npx", "-y"}, "unknown option -y; a server's own options go after --"},
		{[]string{"mcp", "add", "x", "npx"}, "put the command after --"},
		{[]string{"mcp", "add", "x", "--transport", "http"}, "takes one URL"},
		{[]string{"mcp", "add", "x", "--transport", "ws", "u"}, "--transport must be stdio or http"},
		{[]string{"mcp", "add", "x", "--header", "novalue", "https://x.example/mcp"}, "--header needs NAME:VALUE"},
		{[]string{"mcp", "add", "x", "--cwd"}, "--cwd needs a value"},
		{[]string{"mcp", "remove"}, "mcp remove takes one server name"},
		{[]string{"mcp", "get", "a", "b"}, "mcp get takes one server name"},
		{[]string{"mcp", "list", "extra"}, "mcp list takes only --json"},
	}
	for _, u := range usage {
		failsWith(t, env, 2, u.want, u.args...)
	}
	// Rules of the format are checked before saving, as the command
	// line's mistakes: exit 2, the argument or flag to fix.
	failsWith(t, env, 2, "URL ftp://example.com: must be an http or https URL", "mcp", "add", "x", "--transport", "http", "ftp://example.com")
	failsWith(t, env, 2, `NAME "a b": the name must be`, "mcp", "add", "a b", "--", "true")
	failsWith(t, env, 2, "--header Bad Name: is not a valid HTTP header name", "mcp", "add", "x", "-H", "Bad Name: v", "https://x.example/mcp")
}

func TestMCPGet(t *testing.T) {
	_, env := catalogHome(t)
	ok(t, env, "mcp", "add", "web", "--transport", "http", "https://example.com/mcp",
		"-H", "Authorization: Bearer tok-12345", "-H", "X-Api-Key: key-67890", "-H", "X-Team: blue", "--scope", "read write", "--client-id", "cid")
	r := ok(t, env, "mcp", "get", "web", "--json")
	var g map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &g); err != nil {
		t.Fatal(err)
	}
	h := g["headers"].(map[string]any)
	if h["Authorization"] != "<hidden>" || h["X-Api-Key"] != "<hidden>" || h["X-Team"] != "blue" {
		t.Errorf("headers = %v", h)
	}
	o := g["oauth"].(map[string]any)
	if o["clientId"] != "cid" || o["clientSecretSet"] != false || len(o["scopes"].([]any)) != 2 {
		t.Errorf("oauth = %v", o)
	}
	if g["startupTimeoutSeconds"] != 60.0 || g["protocol"] != "auto" || g["transport"] != "http" {
		t.Errorf("get --json = %v", g)
	}
	text := ok(t, env, "mcp", "get", "web").stdout
	for _, secret := range []string{"tok-12345", "key-67890"} {
		if strings.Contains(r.stdout+text, secret) {
			t.Errorf("get shows the header value %s", secret)
		}
	}
	if !strings.Contains(text, "X-Team: blue") || !strings.Contains(text, "Authorization: <hidden>") {
		t.Errorf("get:\n%s", text)
	}
}

// A secret passed with --env K=V is saved, but appears in no output: list,
// list --json, get, get --json, the add's own report, and errors.
func TestMCPSecretEnvNeverPrinted(t *testing.T) {
	home, env := catalogHome(t)
	const secret = "s3cr3t-value-do-not-print"
	var out strings.Builder
	run := func(code int, args ...string) {
		t.Helper()
		r := luagent(t, "", env, args...)
		if r.code != code {
			t.Errorf("luagent %v: exit %d, want %d (stderr %s)", args, r.code, code, r.stderr)
		}
		out.WriteString(r.stdout + r.stderr)
	}
	run(0, "mcp", "add", "gh", "--env", "GITHUB_TOKEN="+secret, "--env-param", "P=param_name", "--env-from", "F=HOME", "--", "npx", "server-github")
	run(0, "mcp", "list")
	run(0, "mcp", "list", "--json")
	run(0, "mcp", "get", "gh")
	run(0, "mcp", "get", "gh", "--json")
	run(1, "mcp", "add", "gh", "--env", "GITHUB_TOKEN="+secret, "--", "npx")
	run(2, "mcp", "add", "gh2", "--env", "1BAD="+secret, "--", "npx") // a command-line mistake
	run(2, "mcp", "add", "gh3", "--env", secret, "--", "npx")
	run(2, "mcp", "add", "gh3", "--env="+secret, "--", "npx")
	if strings.Contains(out.String(), secret) {
		t.Errorf("the secret appears in the output:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "GITHUB_TOKEN") {
		t.Errorf("the env name should be shown:\n%s", out.String())
	}
	data, _ := os.ReadFile(filepath.Join(home, "config.json"))
	if !strings.Contains(string(data), secret) || !strings.Contains(string(data), `"param": "param_name"`) || !strings.Contains(string(data), `"fromEnv": "HOME"`) {
		t.Errorf("config.json:\n%s", data)
	}
	if fi, _ := os.Stat(filepath.Join(home, "config.json")); fi.Mode().Perm() != 0o600 {
		t.Errorf("config.json mode %v", fi.Mode())
	}
}

// A key written into a server's command line or URL is saved as written
// but list and get show it hidden, in text and JSON.
func TestMCPSecretArgsNeverPrinted(t *testing.T) {
	home, env := catalogHome(t)
	const secret = "sk-arg-do-not-print"
	ok(t, env, "mcp", "add", "stdio", "--", "npx", "server", "--api-key="+secret, "--token", secret, "--port=8080")
	ok(t, env, "mcp", "add", "remote", "https://example.com/mcp?access_token="+secret+"&team=blue")
	var out strings.Builder
	for _, args := range [][]string{{"mcp", "list"}, {"mcp", "list", "--json"}, {"mcp", "get", "stdio"}, {"mcp", "get", "stdio", "--json"},
		{"mcp", "get", "remote"}, {"mcp", "get", "remote", "--json"}} {
		r := ok(t, env, args...)
		out.WriteString(r.stdout + r.stderr)
	}
	if strings.Contains(out.String(), secret) {
		t.Errorf("the secret appears in the output:\n%s", out.String())
	}
	for _, want := range []string{"--api-key=<hidden>", "--port=8080", "access_token=<hidden>&team=blue"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the output lacks %s:\n%s", want, out.String())
		}
	}
	if data, _ := os.ReadFile(filepath.Join(home, "config.json")); strings.Count(string(data), secret) != 3 {
		t.Errorf("config.json should keep the three as written:\n%s", data)
	}
}

// A config.json that cannot be read or used is a failure of every verb,
// with one line naming the file; nothing is overwritten.
func TestMCPConfigReadErrors(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, path string)
		want  string
	}{
		{"a folder", func(t *testing.T, p string) { os.MkdirAll(p, 0o700) }, "is a folder, not a file"},
		{"unreadable", func(t *testing.T, p string) {
			if os.Geteuid() == 0 {
				os.Symlink("config.json", p) // root reads anything; a link loop cannot be read by anyone
				return
			}
			os.WriteFile(p, []byte(`{}`), 0o000)
		}, "cannot read"},
		{"invalid JSON", func(t *testing.T, p string) { os.WriteFile(p, []byte(`{"mcpServers": {"a": }`), 0o600) }, "not valid JSON"},
		{"newer version", func(t *testing.T, p string) { os.WriteFile(p, []byte(`{"version": 2, "mcpServers": {}}`), 0o600) }, "newer than this luagent understands (1); upgrade luagent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, env := catalogHome(t)
			os.MkdirAll(home, 0o700)
			p := filepath.Join(home, "config.json")
			tt.setup(t, p)
			before, _ := os.ReadFile(p)
			for _, args := range [][]string{{"mcp", "list"}, {"mcp", "list", "--json"}, {"mcp", "get", "a"},
				{"mcp", "add", "b", "--", "true"}, {"mcp", "remove", "a"}, {"mcp", "enable", "a"}} {
				r := failsWith(t, env, 1, tt.want, args...)
				if !strings.Contains(r.stderr, p) {
					t.Errorf("%v: the error does not name %s: %s", args, p, r.stderr)
				}
				if r.stdout != "" {
					t.Errorf("%v printed %q", args, r.stdout)
				}
			}
			if after, _ := os.ReadFile(p); string(before) != string(after) {
				t.Error("the file was changed")
			}
		})
	}
}

func TestMCPCatalogHelp(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"mcp", "--help"}, []string{"list [--json]", "add NAME -- COMMAND", "remove NAME", "get NAME", "import", "login URL", "logout URL"}},
		{[]string{"mcp", "list", "--help"}, []string{"usage: luagent mcp list [--json]", "envKeys"}},
		{[]string{"mcp", "add", "--help"}, []string{"usage: luagent mcp add NAME", "--transport http URL", "--env K=V", "--force"}},
		{[]string{"mcp", "remove", "--help"}, []string{"usage: luagent mcp remove NAME"}},
		{[]string{"mcp", "enable", "--help"}, []string{"usage: luagent mcp enable NAME"}},
		{[]string{"mcp", "disable", "--help"}, []string{"usage: luagent mcp disable NAME"}},
		{[]string{"mcp", "get", "--help"}, []string{"usage: luagent mcp get NAME [--json]"}},
	} {
		r := ok(t, nil, tt.args...)
		for _, w := range tt.want {
			if !strings.Contains(r.stdout, w) {
				t.Errorf("%v lacks %q:\n%s", tt.args, w, r.stdout)
			}
		}
	}
}

func importFixture(name string) string {
	p, _ := filepath.Abs(filepath.Join("..", "..", "runtime", "catalog", "testdata", "import", name))
	return p
}

func TestMCPImport(t *testing.T) {
	home, env := catalogHome(t)
	desktop := importFixture("claude_desktop_config.json")
	r := ok(t, env, "mcp", "import", "--from", "claude-desktop", desktop, "--dry-run")
	for _, w := range []string{"would add filesystem (stdio: npx -y @modelcontextprotocol/server-filesystem", "would add github", "would add My-Notes-app",
		"note: claude-desktop: My Notes.app: renamed My-Notes-app", "dry run: 3 server(s) would be added", "nothing was written"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("dry run lacks %q:\n%s", w, r.stdout)
		}
	}
	if _, err := os.Stat(filepath.Join(home, "config.json")); !os.IsNotExist(err) {
		t.Errorf("--dry-run wrote config.json: %v", err)
	}
	ok(t, env, "mcp", "add", "github", "--", "my-own-github")
	r = ok(t, env, "mcp", "import", desktop) // the host guessed from the file's name
	for _, w := range []string{"added filesystem", "added My-Notes-app", "github: a server of that name is saved already; skipped", "2 server(s) added"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("import lacks %q:\n%s", w, r.stdout)
		}
	}
	if strings.Contains(r.stdout+r.stderr, "ghp_example_token") {
		t.Errorf("import printed an env value:\n%s", r.stdout)
	}
	var got []listEntry
	json.Unmarshal([]byte(ok(t, env, "mcp", "list", "--json").stdout), &got)
	if len(got) != 3 || got[0].Command != "my-own-github" || got[1].Name != "filesystem" || got[2].Name != "My-Notes-app" {
		t.Errorf("catalog after import: %+v", got)
	}
	// Every format from its fixture.
	for _, f := range []struct{ from, file, want string }{
		{"claude-code", "project/.mcp.json", "added shared-server (http: https://example.com/mcp)"},
		{"claude-code", "claude.json", "added chrome-devtools"},
		{"cursor", "project/.cursor/mcp.json", "added userjot (http: https://api.userjot.com/v1/mcp)"},
		{"vscode", "project/.vscode/mcp.json", "added Perplexity"},
		{"codex", "config.toml", "added context7"},
	} {
		_, env := catalogHome(t)
		if r := ok(t, env, "mcp", "import", "--from", f.from, importFixture(f.file)); !strings.Contains(r.stdout, f.want) {
			t.Errorf("import --from %s %s lacks %q:\n%s", f.from, f.file, f.want, r.stdout)
		}
	}
}

func TestMCPImportDefaultPlaces(t *testing.T) {
	fake := t.TempDir()
	_, env := catalogHome(t)
	env = append(env, "HOME="+fake, "XDG_CONFIG_HOME="+filepath.Join(fake, ".config"), "CODEX_HOME=")
	failsWith(t, env, 1, "no configuration of claude-desktop, claude-code, cursor, vscode, codex, gemini found", "mcp", "import")
	failsWith(t, env, 1, "no cursor configuration found", "mcp", "import", "--from", "cursor")
	data, _ := os.ReadFile(importFixture("project/.cursor/mcp.json"))
	writeFile(t, fake, ".cursor/mcp.json", string(data))
	data, _ = os.ReadFile(importFixture("config.toml"))
	writeFile(t, fake, ".codex/config.toml", string(data))
	r := ok(t, env, "mcp", "import", "--dry-run")
	for _, w := range []string{"found a cursor configuration: " + filepath.Join(fake, ".cursor", "mcp.json"),
		"found a codex configuration: " + filepath.Join(fake, ".codex", "config.toml"), "would add server-name", "would add context7",
		"note: cursor: local-script: args[0]: ${workspaceFolder} has no value outside the editor"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("lacks %q:\n%s", w, r.stdout)
		}
	}
	failsWith(t, env, 2, "--from must be one of", "mcp", "import", "--from", "zed")
	failsWith(t, env, 2, "say which host", "mcp", "import", filepath.Join(fake, "servers.json"))
	failsWith(t, env, 1, "cannot read", "mcp", "import", "--from", "cursor", filepath.Join(fake, "none.json"))
	if r := ok(t, nil, "mcp", "import", "--help"); !strings.Contains(r.stdout, "usage: luagent mcp import [--from HOST] [FILE] [--dry-run]") {
		t.Errorf("help: %s", r.stdout)
	}
}

// `mcp get NAME --json` shows every member the entry has in config.json
// (and the defaults of those it leaves out), masked as get masks them:
// env values and credential headers as <hidden>, the client secret as
// set or not; never the unknown and managed members luagent only keeps
// (connectionCredentials), and no secret.
func TestMCPGetJSONShowsEveryField(t *testing.T) {
	home, env := catalogHome(t)
	stdio := map[string]any{"command": "prog", "args": []string{"--api-key", "key-SECRET-1"}, "cwd": "/tmp",
		"env":        map[string]any{"TOKEN": "tok-SECRET-2", "HOME_DIR": map[string]any{"fromEnv": "HOME"}, "GH": map[string]any{"param": "gh"}},
		"inheritEnv": "minimal", "enabled": false, "startupTimeoutSeconds": 5, "requestTimeoutSeconds": 7.5, "protocol": "modern",
		"roots": true, "sampling": true, "logLevel": "info", "maxConcurrentCalls": 2, "connectionId": "conn-1",
		"connectionCredentials": map[string]any{"token": "cred-SECRET-3"}, "x-other-tool": "kept"}
	remote := map[string]any{"url": "https://example.com/mcp", "headers": map[string]any{"Authorization": "Bearer hdr-SECRET-4", "X-Team": "blue"},
		"oauth": map[string]any{"clientId": "cid", "clientSecret": "cs-SECRET-5", "clientIdMetadataUrl": "https://example.com/client.json", "scopes": []string{"read"}}}
	writeCatalog(t, home, map[string]any{"s": stdio, "r": remote})
	get := func(name string) map[string]any {
		r := ok(t, env, "mcp", "get", name, "--json")
		if strings.Contains(r.stdout, "SECRET") {
			t.Errorf("get %s --json shows a secret:\n%s", name, r.stdout)
		}
		var g map[string]any
		if err := json.Unmarshal([]byte(r.stdout), &g); err != nil {
			t.Fatalf("%v\n%s", err, r.stdout)
		}
		return g
	}
	g := get("s")
	for k := range stdio {
		if _, shown := g[k]; shown != (k != "connectionCredentials" && k != "x-other-tool") {
			t.Errorf("get s --json: member %s shown=%v:\n%v", k, shown, g)
		}
	}
	want := map[string]any{"connectionId": "conn-1", "protocol": "modern", "roots": true, "inheritEnv": "minimal", "enabled": false,
		"requestTimeoutSeconds": 7.5, "maxConcurrentCalls": 2.0, "logLevel": "info",
		"env": map[string]any{"TOKEN": "<hidden>", "HOME_DIR": map[string]any{"fromEnv": "HOME"}, "GH": map[string]any{"param": "gh"}}}
	for k, v := range want {
		if !reflect.DeepEqual(g[k], v) {
			t.Errorf("get s --json: %s = %v, want %v", k, g[k], v)
		}
	}
	g = get("r")
	for k := range remote {
		if _, shown := g[k]; !shown {
			t.Errorf("get r --json lacks %s:\n%v", k, g)
		}
	}
	if o := g["oauth"].(map[string]any); o["clientSecretSet"] != true || o["clientIdMetadataUrl"] != "https://example.com/client.json" {
		t.Errorf("get r --json: oauth = %v", o)
	}
	// The defaults of what the entry leaves out.
	if g["startupTimeoutSeconds"] != 60.0 || g["protocol"] != "auto" || g["roots"] != false || g["enabled"] != true {
		t.Errorf("get r --json: the defaults: %v", g)
	}
}
