package hooks

import (
	"strings"
	"testing"
	"time"
)

func TestParseClaudeCodeSettings(t *testing.T) {
	raw := `{
	  "PreToolUse": [{"matcher": "fs__write|Bash", "hooks": [{"type": "command", "command": "./guard.sh", "timeout": 5}]}],
	  "Stop": [{"hooks": [{"type": "command", "command": "echo done"}]}],
	  "PostToolUseFailure": [{"matcher": "*", "hooks": [{"type": "command", "command": "x"}]}],
	  "UserPromptSubmit": [{"hooks": [{"type": "prompt", "prompt": "is it ok?"}]}]
	}`
	cfg, ps := Parse([]byte(raw), "/h/config.json")
	if len(ps) != 0 {
		t.Fatalf("problems: %v", ps)
	}
	if len(cfg.Groups) != 4 {
		t.Fatalf("groups: %+v", cfg.Groups)
	}
	// In the order of a session; events luagent does not fire last.
	var order []string
	for _, g := range cfg.Groups {
		order = append(order, g.Event)
	}
	if strings.Join(order, ",") != "UserPromptSubmit,PreToolUse,Stop,PostToolUseFailure" {
		t.Errorf("order %v", order)
	}
	pre := cfg.Groups[1]
	if pre.Hooks[0].Timeout != 5*time.Second || pre.Source != "/h/config.json" || pre.Path != "hooks.PreToolUse[0]" {
		t.Errorf("PreToolUse group %+v", pre)
	}
	if cfg.Groups[2].Hooks[0].Timeout != DefaultTimeout {
		t.Errorf("default timeout: %v", cfg.Groups[2].Hooks[0].Timeout)
	}
	if cfg.Groups[0].Hooks[0].Runs() || len(Commands(cfg, Runner{})) != 3 {
		t.Errorf("a prompt hook is listed, not run")
	}
	if Fired("PostToolUseFailure") || !Fired(PreToolUse) {
		t.Error("Fired")
	}
}

func TestParseProblemsHavePaths(t *testing.T) {
	for _, tt := range []struct{ raw, want string }{
		{`[]`, "hooks: must be an object of events"},
		{`{"PreToolUse": {}}`, "hooks.PreToolUse: must be a list"},
		{`{"PreToolUse": [1]}`, "hooks.PreToolUse[0]: must be an object"},
		{`{"PreToolUse": [{"matcher": "a"}]}`, "hooks.PreToolUse[0].hooks: must be a list of one or more"},
		{`{"PreToolUse": [{"matcher": "(", "hooks": [{"type": "command", "command": "x"}]}]}`, "hooks.PreToolUse[0].matcher: is not a regular expression"},
		{`{"PreToolUse": [{"matcher": 3, "hooks": [{"type": "command", "command": "x"}]}]}`, "hooks.PreToolUse[0].matcher: must be a string"},
		{`{"Stop": [{"hooks": [{"type": "command", "command": " "}]}]}`, "hooks.Stop[0].hooks[0].command: must be a shell command"},
		{`{"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": 0}]}]}`, "hooks.Stop[0].hooks[0].timeout: must be a number of seconds"},
		{`{"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": "5"}]}]}`, "hooks.Stop[0].hooks[0].timeout: must be a number"},
		{`{"Stop": [{"hooks": [{"command": "x"}]}]}`, `hooks.Stop[0].hooks[0].type: must be "command"`},
		{`{"pre tool": []}`, "hooks.pre tool: is not an event name"},
	} {
		cfg, ps := Parse([]byte(tt.raw), "f")
		if len(ps) != 1 || !strings.HasPrefix(ps[0].String(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.raw, ps, tt.want)
		}
		if len(cfg.Groups) != 0 {
			t.Errorf("%s: a bad group was kept: %+v", tt.raw, cfg.Groups)
		}
		if strings.Contains(ps[0].String(), "\n") {
			t.Errorf("not one line: %q", ps[0])
		}
	}
	if cfg, ps := Parse([]byte(` null `), "f"); len(ps) != 0 || len(cfg.Groups) != 0 {
		t.Errorf("null: %v %v", cfg, ps)
	}
}

// Claude Code's matcher rules, and its mcp__server__tool names matching
// our server__tool (the agent passes both names).
func TestMatcher(t *testing.T) {
	for _, tt := range []struct {
		matcher string
		names   []string
		want    bool
	}{
		{"", []string{"fs__write"}, true},
		{"*", []string{"fs__write"}, true},
		{"fs__write", []string{"fs__write", "mcp__fs__write"}, true},
		{"fs__write|Bash", []string{"Bash"}, true},
		{"fs__writ", []string{"fs__write", "mcp__fs__write"}, false}, // exact, not a prefix
		{"mcp__fs__write", []string{"fs__write", "mcp__fs__write"}, true},
		{"mcp__fs__.*", []string{"fs__write", "mcp__fs__write"}, true},
		{"mcp__fs__.*", []string{"git__log", "mcp__git__log"}, false},
		{"^fs__", []string{"fs__read", "mcp__fs__read"}, true},
		{"Notebook.*", []string{"NotebookEdit"}, true},
		{"startup", []string{"resume"}, false},
	} {
		m, err := compileMatcher(tt.matcher)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.match(tt.names); got != tt.want {
			t.Errorf("%q on %v: %v", tt.matcher, tt.names, got)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"PreToolUse": [{"matcher": "a|b", "hooks": [{"type": "command", "command": "x", "timeout": 1.5}]}]}`))
	f.Add([]byte(`{"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": 1e309}]}]}`))
	f.Add([]byte(`{"A": [{"matcher": "(?P<x>", "hooks": null}]}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		cfg, ps := Parse(raw, "f")
		for _, p := range ps {
			if strings.Contains(p.String(), "\n") {
				t.Errorf("problem on two lines: %q", p)
			}
		}
		for _, g := range cfg.Groups {
			g.Matches("x", "mcp__x")
		}
	})
}
