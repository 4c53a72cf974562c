package catalog

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/errs"
)

// A file with the tool filters and the tool search settings, in Marshal's
// form: a round trip gives it back byte for byte, and the fields decode.
const toolFilterFile = `{
  "version": 1,
  "mcpServers": {
    "gh": {
      "command": "gh-mcp",
      "enabledTools": ["search_*", "get_issue"],
      "disabledTools": ["search_code"],
      "enabled": true
    },
    "fs": {
      "url": "https://example.com/mcp",
      "enabledTools": [],
      "x-after": 1
    },
    "plain": {
      "command": "x"
    }
  },
  "toolSearch": "always",
  "toolSearchThreshold": 12,
  "x-top": true
}
`

func TestToolFilterRoundTrip(t *testing.T) {
	c := mustParse(t, []byte(toolFilterFile))
	if err := c.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	if out := mustMarshal(t, c); !bytes.Equal(out, []byte(toolFilterFile)) {
		t.Fatalf("round trip changed the file:\n%s", out)
	}
	gh, fs, plain := c.Server("gh"), c.Server("fs"), c.Server("plain")
	if !slices.Equal(gh.EnabledTools, []string{"search_*", "get_issue"}) || !slices.Equal(gh.DisabledTools, []string{"search_code"}) {
		t.Errorf("gh = %v / %v", gh.EnabledTools, gh.DisabledTools)
	}
	if fs.EnabledTools == nil || len(fs.EnabledTools) != 0 || fs.DisabledTools != nil {
		t.Errorf("fs = %#v / %#v, want an empty list (no tool) and nil", fs.EnabledTools, fs.DisabledTools)
	}
	if plain.EnabledTools != nil || plain.DisabledTools != nil {
		t.Errorf("plain = %v / %v, want nil (every tool)", plain.EnabledTools, plain.DisabledTools)
	}
	if c.ToolSearch != ToolSearchAlways || c.ToolSearchThreshold != 12 {
		t.Errorf("toolSearch = %q, threshold %d", c.ToolSearch, c.ToolSearchThreshold)
	}
	if mode, n := c.ToolSearchSettings(); mode != ToolSearchAlways || n != 12 {
		t.Errorf("ToolSearchSettings = %q, %d", mode, n)
	}
	if mode, n := (&Config{}).ToolSearchSettings(); mode != ToolSearchAuto || n != 40 {
		t.Errorf("defaults = %q, %d; want auto, 40", mode, n)
	}
}

// Editing a filter writes it; the untouched entries and fields keep their
// bytes; removing one leaves the member out.
func TestToolFilterEdit(t *testing.T) {
	c := mustParse(t, []byte(toolFilterFile))
	c.Server("plain").DisabledTools = []string{"rm", "drop_*"}
	c.Server("gh").EnabledTools = nil
	c.ToolSearch = ""
	c.ToolSearchThreshold = 0
	out := mustMarshal(t, c)
	if m := entryMembers(t, out, "plain"); m["disabledTools"] != `["rm", "drop_*"]` {
		t.Errorf("plain: %v\n%s", m, out)
	}
	if m := entryMembers(t, out, "gh"); m["enabledTools"] != "" || m["disabledTools"] != `["search_code"]` {
		t.Errorf("gh: %v", m)
	}
	if m := entryMembers(t, out, "fs"); m["enabledTools"] != "[]" || m["x-after"] != "1" {
		t.Errorf("fs: %v", m)
	}
	if bytes.Contains(out, []byte("toolSearch")) || !bytes.Contains(out, []byte(`"x-top": true`)) {
		t.Errorf("top level:\n%s", out)
	}
	if again := mustMarshal(t, mustParse(t, out)); !bytes.Equal(again, out) {
		t.Errorf("not stable:\n%s\n%s", out, again)
	}
	// Made in Go: the members are written after maxConcurrentCalls.
	n := &Config{ToolSearch: ToolSearchNever, ToolSearchThreshold: 5}
	n.Add(&Server{Name: "a", Enabled: true, Command: "x", MaxConcurrentCalls: 2, EnabledTools: []string{"a*"}, DisabledTools: []string{"ab"}}, false)
	want := `{
  "version": 1,
  "mcpServers": {
    "a": {
      "command": "x",
      "maxConcurrentCalls": 2,
      "enabledTools": ["a*"],
      "disabledTools": ["ab"],
      "enabled": true
    }
  },
  "toolSearch": "never",
  "toolSearchThreshold": 5
}
`
	if got := string(mustMarshal(t, n)); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestToolAllowed(t *testing.T) {
	tests := []struct {
		name          string
		enabled, off  []string
		allowed, deny []string
	}{
		{"left out: every tool", nil, nil, []string{"a", "rm_rf", "x/y"}, nil},
		{"empty enabled list: none", []string{}, nil, nil, []string{"a", "b"}},
		{"names", []string{"read", "list"}, nil, []string{"read", "list"}, []string{"write", "readx"}},
		{"globs", []string{"read_*", "get?"}, nil, []string{"read_file", "read_", "gets"}, []string{"read", "get", "getxx", "write"}},
		{"disabled only", nil, []string{"delete_*", "push"}, []string{"read", "pushx"}, []string{"delete_repo", "push"}},
		{"disabled wins", []string{"*"}, []string{"write*"}, []string{"read"}, []string{"write", "write_file"}},
		{"classes", []string{"[a-c]*"}, nil, []string{"alpha", "charlie"}, []string{"delta"}},
		{"escaped metacharacter", []string{`what\*`}, nil, []string{"what*"}, []string{"whatever"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Server{Name: "s", Command: "x", EnabledTools: tt.enabled, DisabledTools: tt.off}
			for _, n := range tt.allowed {
				if !s.ToolAllowed(n) {
					t.Errorf("%s is filtered out, want allowed", n)
				}
			}
			for _, n := range tt.deny {
				if s.ToolAllowed(n) {
					t.Errorf("%s is allowed, want filtered out", n)
				}
			}
		})
	}
}

func TestToolFilterValidate(t *testing.T) {
	ok := func() *Server { return &Server{Name: "s", Enabled: true, Command: "npx"} }
	tests := []struct {
		name string
		c    *Config
		want string // "" for valid
	}{
		{"filters ok", &Config{Servers: []*Server{with(ok(), func(s *Server) {
			s.EnabledTools, s.DisabledTools = []string{"a", "b*", "[xy]z"}, []string{"b1"}
		})}}, ""},
		{"bad glob enabled", &Config{Servers: []*Server{with(ok(), func(s *Server) { s.EnabledTools = []string{"ok", "read_[a"} })}},
			`mcpServers.s.enabledTools[1]: "read_[a" is not a valid glob`},
		{"bad glob disabled", &Config{Servers: []*Server{with(ok(), func(s *Server) { s.DisabledTools = []string{`x\`} })}},
			`mcpServers.s.disabledTools[0]:`},
		{"blank name", &Config{Servers: []*Server{with(ok(), func(s *Server) { s.DisabledTools = []string{""} })}},
			`mcpServers.s.disabledTools[0]: must be a tool name or a glob`},
		{"tool search ok", &Config{ToolSearch: "never", ToolSearchThreshold: 1}, ""},
		{"tool search mode", &Config{ToolSearch: "sometimes"}, `toolSearch: must be "auto", "always" or "never", not "sometimes"`},
		{"threshold negative", &Config{ToolSearchThreshold: -3}, "toolSearchThreshold: must be a whole number, 1 or more"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.c.Validate()
			if tt.want == "" {
				if err != nil {
					t.Fatalf("unexpected: %v", err)
				}
				return
			}
			var ps Problems
			if !errs.Is(err, errs.Invalid) || !errors.As(err, &ps) {
				t.Fatalf("err = %v, want kind invalid with Problems", err)
			}
			if len(ps) != 1 || !strings.Contains(ps[0].String(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("problems %v, want one line containing %q", ps, tt.want)
			}
		})
	}
	for _, tt := range []struct{ in, want string }{
		{`{"mcpServers": {"a": {"command": "x", "enabledTools": "read"}}}`, "mcpServers.a.enabledTools: must be an array of strings"},
		{`{"mcpServers": {"a": {"command": "x", "disabledTools": [1]}}}`, "mcpServers.a.disabledTools: must be an array of strings"},
		{`{"toolSearch": true}`, "toolSearch: must be a string"},
		{`{"toolSearchThreshold": 2.5}`, "toolSearchThreshold: must be a whole number, 1 or more"},
		{`{"toolSearchThreshold": 0}`, "toolSearchThreshold: must be a whole number, 1 or more"},
	} {
		_, err := Parse([]byte(tt.in))
		if !errs.Is(err, errs.Invalid) || !strings.Contains(fmtErr(err), tt.want) {
			t.Errorf("Parse(%s) = %v, want %q", tt.in, err, tt.want)
		}
	}
}

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// Codex's enabled_tools and disabled_tools become the entry's filters
// (its names are exact: a glob character in one is escaped), not a note.
func TestImportCodexToolFilters(t *testing.T) {
	servers, notes, err := Import(FromCodex, []byte(`
[mcp_servers.gh]
command = "gh-mcp"
enabled_tools = ["search_issues", "get_issue", "odd*name"]
disabled_tools = ["get_issue"]

[mcp_servers.web]
url = "https://example.com/mcp"
disabled_tools = []
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(servers) != 2 {
		t.Fatalf("servers = %v", servers)
	}
	gh, web := servers[0], servers[1]
	if !slices.Equal(gh.EnabledTools, []string{"search_issues", "get_issue", `odd\*name`}) || !slices.Equal(gh.DisabledTools, []string{"get_issue"}) {
		t.Errorf("gh = %q / %q", gh.EnabledTools, gh.DisabledTools)
	}
	if !gh.ToolAllowed("search_issues") || gh.ToolAllowed("get_issue") || !gh.ToolAllowed("odd*name") || gh.ToolAllowed("oddXname") {
		t.Errorf("gh's filter does not say what Codex's does")
	}
	if web.EnabledTools != nil || web.DisabledTools == nil || len(web.DisabledTools) != 0 {
		t.Errorf("web = %#v / %#v", web.EnabledTools, web.DisabledTools)
	}
	for _, n := range notes {
		if strings.Contains(n, "_tools") {
			t.Errorf("a note about the filters: %s", n)
		}
	}
	c := &Config{}
	c.Add(gh, false)
	if m := entryMembers(t, mustMarshal(t, c), "gh"); m["enabledTools"] != `["search_issues", "get_issue", "odd\\*name"]` || m["disabledTools"] != `["get_issue"]` {
		t.Errorf("written as %v", m)
	}
}

// The command an import note prints keeps the entry's filters: running it
// must not turn a disabled tool back on.
func TestAddCommandKeepsToolFilters(t *testing.T) {
	s := &Server{Name: "gh", Enabled: true, URL: "https://example.com/mcp", EnabledTools: []string{"search_*"}, DisabledTools: []string{"search_code", `odd\*`}}
	got := s.AddCommand("-H", "Authorization: Bearer ...")
	want := `luagent mcp add --force gh --enable-tool 'search_*' --disable-tool search_code --disable-tool 'odd\*' --transport http https://example.com/mcp -H 'Authorization: Bearer ...'`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// Gemini CLI's settings.json: includeTools/excludeTools are the filters
// (exclude wins there too), httpUrl the Streamable HTTP url, url its SSE
// one, timeout milliseconds of a request; $VAR and ${VAR} env values come
// from the environment.
func TestImportGemini(t *testing.T) {
	servers, notes, err := Import(FromGemini, []byte(`{
  "theme": "Dracula",
  "mcpServers": {
    "git": {"command": "uvx", "args": ["mcp-server-git"], "env": {"TOKEN": "$GIT_TOKEN", "B": "${OTHER}", "C": "plain"},
            "cwd": "./srv", "includeTools": ["git_status", "git_log"], "excludeTools": ["git_log"], "trust": true},
    "ctx": {"httpUrl": "https://mcp.context7.com/mcp", "headers": {"X-Team": "a"}, "timeout": 30000},
    "old": {"url": "https://example.com/sse", "description": "legacy"}
  }
}`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range servers {
		got = append(got, summary(s))
	}
	want := []string{
		"git cmd=uvx mcp-server-git cwd=./srv env.B=fromEnv:OTHER env.C=plain env.TOKEN=fromEnv:GIT_TOKEN enabledTools=git_status,git_log disabledTools=git_log",
		"ctx url=https://mcp.context7.com/mcp h.X-Team=a request=30s",
		"old url=https://example.com/sse",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("servers:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	all := strings.Join(notes, "\n")
	for _, n := range []string{"git: trust is not a luagent setting", "old: url is Gemini's SSE endpoint", "old: description is not a luagent setting"} {
		if !strings.Contains(all, n) {
			t.Errorf("no note says %q; notes:\n%s", n, all)
		}
	}
	if strings.Contains(all, "Tools") || strings.Contains(all, "timeout") || strings.Contains(all, "httpUrl") {
		t.Errorf("a note about a mapped field:\n%s", all)
	}
	if p, _ := DefaultImportPaths(FromGemini); len(p) != 2 || p[0] != ".gemini/settings.json" || !strings.HasSuffix(p[1], "/.gemini/settings.json") {
		t.Errorf("paths = %v", p)
	}
}
