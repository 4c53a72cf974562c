package catalog

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/errs"
)

// summary is one imported entry on a line, for comparing.
func summary(s *Server) string {
	var b strings.Builder
	b.WriteString(s.Name)
	if !s.Enabled {
		b.WriteString(" (disabled)")
	}
	if s.URL != "" {
		b.WriteString(" url=" + s.URL)
	} else {
		b.WriteString(" cmd=" + strings.Join(append([]string{s.Command}, s.Args...), " "))
	}
	if s.Cwd != "" {
		b.WriteString(" cwd=" + s.Cwd)
	}
	if !s.InheritEnv.IsDefault() {
		b.WriteString(" inherit=" + s.InheritEnv.String())
	}
	for _, k := range sortedKeys(s.Env) {
		v := s.Env[k]
		switch {
		case v.Param != "":
			b.WriteString(" env." + k + "=param:" + v.Param)
		case v.FromEnv != "":
			b.WriteString(" env." + k + "=fromEnv:" + v.FromEnv)
		default:
			b.WriteString(" env." + k + "=" + v.Value)
		}
	}
	for _, k := range sortedKeys(s.Headers) {
		b.WriteString(" h." + k + "=" + s.Headers[k])
	}
	if s.OAuth != nil {
		b.WriteString(" oauth.client=" + s.OAuth.ClientID + " oauth.scopes=" + strings.Join(s.OAuth.Scopes, ","))
	}
	if s.StartupTimeout != 0 {
		b.WriteString(" startup=" + s.StartupTimeout.String())
	}
	if s.RequestTimeout != 0 {
		b.WriteString(" request=" + s.RequestTimeout.String())
	}
	if s.EnabledTools != nil {
		b.WriteString(" enabledTools=" + strings.Join(s.EnabledTools, ","))
	}
	if s.DisabledTools != nil {
		b.WriteString(" disabledTools=" + strings.Join(s.DisabledTools, ","))
	}
	return b.String()
}

// codexList is Codex's default list and vars, as summary shows them.
func codexList(vars ...string) string {
	return strings.Join(append(codexDefaultEnv(), vars...), ", ")
}

// The fixtures under testdata/import are written from each host's
// documented format (see stdlib/doc/catalog.md, "Import").
func TestImport(t *testing.T) {
	home, _ := os.UserHomeDir()
	project, _ := filepath.Abs(filepath.Join("testdata", "import", "project"))
	tests := []struct {
		format, file string
		want         []string
		notes        []string // each is in some note
	}{
		{FromClaudeDesktop, "claude_desktop_config.json", []string{
			"filesystem cmd=npx -y @modelcontextprotocol/server-filesystem /Users/me/Desktop /Users/me/Downloads inherit=minimal",
			"github cmd=npx -y @modelcontextprotocol/server-github inherit=minimal env.GITHUB_PERSONAL_ACCESS_TOKEN=ghp_example_token",
			"My-Notes-app cmd=/usr/local/bin/notes-mcp inherit=minimal",
		}, []string{"My Notes.app: renamed My-Notes-app"}},
		{FromClaudeCode, "project/.mcp.json", []string{
			"shared-server url=https://example.com/mcp",
			"my-tool cmd=node ./my-mcp-server.js cwd=" + project + " env.API_KEY=fromEnv:API_KEY env.DEBUG=fromEnv:DEBUG env.PLAIN=x",
			"asana url=https://mcp.asana.com/sse",
		}, []string{
			"api-server: url holds ${API_BASE_URL:-https://api.example.com}",
			"api-server: skipped: mcpServers.api-server.url: must be an http or https URL",
			"my-tool: env DEBUG: the default of ${DEBUG:-false} (false) is not kept",
			"asana: transport sse: luagent connects to the url with Streamable HTTP and falls back to the legacy HTTP+SSE transport",
		}},
		{FromClaudeCode, "claude.json", []string{
			"stripe url=https://mcp.stripe.com",
			"airtable cmd=npx -y airtable-mcp-server env.AIRTABLE_API_KEY=key_example",
			"chrome-devtools cmd=npx chrome-devtools-mcp@latest cwd=/home/me/work/app",
		}, []string{"stripe: another server of this configuration is named stripe already; skipped (project /home/me/work/app)"}},
		{FromCursor, "project/.cursor/mcp.json", []string{
			"server-name cmd=npx -y mcp-server env.API_KEY=value",
			"local-script cmd=python " + project + "/tools/server.py env.CONFIG=" + home + "/.config/tool.json env.TOKEN=fromEnv:MY_TOKEN",
			"userjot url=https://api.userjot.com/v1/mcp env.MCP_ACCESS_TOKEN=fromEnv:USERJOT_API_TOKEN h.X-Client=cursor",
		}, []string{
			"local-script: envFile ${workspaceFolder}/.env is not read by luagent",
		}},
		{FromVSCode, "project/.vscode/mcp.json", []string{
			"Perplexity cmd=npx -y server-perplexity-ask env.HOME_DIR=fromEnv:HOME env.PERPLEXITY_API_KEY=param:perplexity-key",
			"fetch cmd=uvx mcp-server-fetch --root " + project,
			"github url=https://api.githubcopilot.com/mcp/ h.X-MCP-Toolsets=repos,issues",
			"legacy url=http://localhost:3001/sse",
		}, []string{
			"Perplexity: env PERPLEXITY_API_KEY comes from the parameter perplexity-key (Perplexity API Key): pass --set perplexity-key=VALUE",
			"legacy: transport sse",
			"legacy: dev is not a luagent setting; left out",
		}},
		{FromVSCode, "settings.json", []string{"memory cmd=npx -y @modelcontextprotocol/server-memory"}, nil},
		{FromCodex, "config.toml", []string{
			"context7 cmd=npx -y @upstash/context7-mcp inherit=[" + codexList() + "] env.CONTEXT7_LOG=warn startup=20s request=1m30.5s",
			"test_stdio (disabled) cmd=cargo run --bin test_stdio_server cwd=/Users/me/code/codex/codex-rs inherit=[" + codexList("MCP_TEST_VALUE", "LOCAL_ONLY") + "]",
			"figma url=https://mcp.figma.com/mcp env.MCP_ACCESS_TOKEN=fromEnv:FIGMA_OAUTH_TOKEN h.X-Figma-Region=us-east-1 oauth.client= oauth.scopes=files:read enabledTools=get_file",
			"docs-search url=https://docs.example.com/mcp startup=5s",
		}, []string{
			"test_stdio: env_vars FROM_THE_RUNNER comes from a remote machine",
			"figma: header X-Org comes from $FIGMA_ORG",
			"docs.search: renamed docs-search",
			"docs-search: required is not a luagent setting",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.format+"/"+tt.file, func(t *testing.T) {
			servers, notes, err := ImportFile(tt.format, filepath.Join("testdata", "import", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range servers {
				got = append(got, summary(s))
				if err := s.Validate(); err != nil {
					t.Errorf("imported an invalid entry: %v", err)
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("servers:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			all := strings.Join(notes, "\n")
			for _, n := range tt.notes {
				if !strings.Contains(all, n) {
					t.Errorf("no note says %q; notes:\n%s", n, all)
				}
			}
			// The entries are ready for a catalog, and survive a round trip.
			c := &Config{Version: 1, InitStrategy: InitAuto}
			for _, s := range servers {
				if err := c.Add(s, false); err != nil {
					t.Fatal(err)
				}
			}
			if err := c.Validate(); err != nil {
				t.Fatal(err)
			}
			if _, err := Parse(mustMarshal(t, c)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestImportWithoutFile(t *testing.T) {
	data, _ := os.ReadFile(filepath.Join("testdata", "import", "project", ".vscode", "mcp.json"))
	servers, notes, err := Import(FromVSCode, data)
	if err != nil {
		t.Fatal(err)
	}
	var fetch *Server
	for _, s := range servers {
		if s.Name == "fetch" {
			fetch = s
		}
	}
	if fetch == nil || fetch.Args[2] != "${workspaceFolder}" {
		t.Errorf("fetch = %+v", fetch)
	}
	if !strings.Contains(strings.Join(notes, "\n"), "fetch: args[2]: ${workspaceFolder} has no value outside the editor") {
		t.Errorf("notes: %v", notes)
	}
}

func TestImportErrors(t *testing.T) {
	tests := []struct {
		format, data string
		kind         errs.Kind
		want         string
	}{
		{"zed", `{}`, errs.Invalid, `unknown import format "zed"; use one of claude-desktop, claude-code, cursor, vscode, codex`},
		{FromCursor, `{"mcpServers": `, errs.Invalid, "the cursor configuration is not valid JSON"},
		{FromClaudeDesktop, `[1]`, errs.Invalid, "not a JSON object"},
		{FromCodex, "[mcp_servers.a\ncommand = 1", errs.Invalid, "the codex configuration is not valid TOML"},
	}
	for _, tt := range tests {
		_, _, err := Import(tt.format, []byte(tt.data))
		if !errs.Is(err, tt.kind) || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Import(%s, %q) = %v, want kind %v containing %q on one line", tt.format, tt.data, err, tt.kind, tt.want)
		}
	}
	if _, notes, err := Import(FromCursor, []byte(`{}`)); err != nil || len(notes) != 1 || !strings.Contains(notes[0], "no servers") {
		t.Errorf("empty: %v %v", notes, err)
	}
	if _, _, err := ImportFile(FromCursor, filepath.Join(t.TempDir(), "none.json")); !errs.Is(err, errs.Invalid) || !strings.Contains(err.Error(), "cannot read") {
		t.Errorf("missing file: %v", err)
	}
}

func TestDefaultImportPaths(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("CODEX_HOME", "")
	for _, f := range ImportFormats {
		paths, err := DefaultImportPaths(f)
		if err != nil || len(paths) == 0 {
			t.Fatalf("%s: %v %v", f, paths, err)
		}
		if _, err := DefaultImportPath(f); !errs.Is(err, errs.NotFound) || !strings.Contains(err.Error(), "luagent mcp import --from "+f+" FILE") {
			t.Errorf("%s with none: %v", f, err)
		}
	}
	want := map[string]string{
		FromCursor: filepath.Join(home, ".cursor", "mcp.json"),
		FromCodex:  filepath.Join(home, ".codex", "config.toml"),
	}
	if os.Getenv("GOOS") == "" && filepath.Separator == '/' {
		if p, _ := DefaultImportPaths(FromClaudeDesktop); !strings.HasSuffix(p[0], filepath.Join("Claude", "claude_desktop_config.json")) {
			t.Errorf("claude-desktop: %v", p)
		}
	}
	for f, p := range want {
		os.MkdirAll(filepath.Dir(p), 0o700)
		os.WriteFile(p, []byte("{}"), 0o600)
		if got, err := DefaultImportPath(f); err != nil || got != p {
			t.Errorf("%s: %q, %v; want %s", f, got, err, p)
		}
	}
	t.Setenv("CODEX_HOME", filepath.Join(home, "codex"))
	if p, _ := DefaultImportPaths(FromCodex); p[0] != filepath.Join(home, "codex", "config.toml") {
		t.Errorf("CODEX_HOME: %v", p)
	}
	if _, err := DefaultImportPaths("zed"); err == nil {
		t.Error("unknown format")
	}
}

// FuzzImport: any input in any format gives an error or valid entries,
// never a panic.
func FuzzImport(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "import", "*"))
	more, _ := filepath.Glob(filepath.Join("testdata", "import", "project", ".*", "mcp.json"))
	files = append(append(files, more...), filepath.Join("testdata", "import", "project", ".mcp.json"))
	sort.Strings(files)
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		for i := range ImportFormats {
			f.Add(uint8(i), data)
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		format := ImportFormats[int(which)%len(ImportFormats)]
		servers, _, err := Import(format, data)
		if err != nil {
			return
		}
		c := &Config{}
		for _, s := range servers {
			if err := s.Validate(); err != nil {
				t.Fatalf("invalid entry %+v: %v", s, err)
			}
			if err := c.Add(s, false); err != nil {
				t.Fatalf("duplicate name %s", s.Name)
			}
		}
		out, err := c.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Parse(out); err != nil {
			t.Fatalf("Parse of the imported catalog: %v", err)
		}
	})
}
