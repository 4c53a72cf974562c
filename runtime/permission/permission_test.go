package permission

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/approval"
)

func TestPatternMatch(t *testing.T) {
	for _, tt := range []struct {
		pattern, name, args string
		want                bool
	}{
		{"fs__read_file", "fs__read_file", `{}`, true},
		{"fs__read_file", "fs__read_files", `{}`, false},
		{"fs__read_file", "other__read_file", `{}`, false},
		{"fs__*", "fs__write_file", `{}`, true},
		{"fs__*", "fsx__write_file", `{}`, false},
		{"*", "anything__at_all", `{}`, true},
		{"*", "mcp_search_tools", `{}`, true},
		{"*__read_*", "gh__read_issue", `{}`, true},
		{"fs__read_fil?", "fs__read_file", `{}`, true},
		// Claude Code's spelling of MCP tools.
		{"mcp__fs__read_file", "fs__read_file", `{}`, true},
		{"mcp__fs", "fs__write_file", `{}`, true},
		{"mcp__fs", "fsx__write_file", `{}`, false},
		{"mcp__fs__*", "fs__write_file", `{}`, true},
		// Argument matchers.
		{"fs__write_file(path:/tmp/*)", "fs__write_file", `{"path":"/tmp/a/b.txt"}`, true},
		{"fs__write_file(path:/tmp/*)", "fs__write_file", `{"path":"/etc/passwd"}`, false},
		{"fs__write_file(path:/tmp/*)", "fs__write_file", `{"path":"/tmp/../etc/passwd"}`, false},
		{"fs__write_file(path:/etc/*)", "fs__write_file", `{"path":"/tmp/../etc/passwd"}`, true},
		{"fs__write_file(path:/tmp/**)", "fs__write_file", `{"path":"/tmp/x"}`, true},
		{"fs__write_file(path:/tmp/*)", "fs__write_file", `{}`, false},
		{"fs__write_file(path:/tmp/*)", "fs__write_file", `{"path":null}`, false},
		{"fs__write_file(path:/tmp/*)", "fs__write_file", `{"path":["/tmp/x"]}`, false},
		{"fs__write_file(path:/tmp/*)", "fs__write_file", `not json`, false},
		{"fs__write_file(path:/tmp/*)", "fs__read_file", `{"path":"/tmp/x"}`, false},
		{"fs__write_file(*)", "fs__write_file", `{"path":"/x"}`, true},
		{"shell__run(command:git *, cwd:/src/*)", "shell__run", `{"command":"git status","cwd":"/src/a"}`, true},
		{"shell__run(command:git *, cwd:/src/*)", "shell__run", `{"command":"git status","cwd":"/etc"}`, false},
		{"shell__run(command:rm *)", "shell__run", `{"command":"rm -rf /"}`, true},
		{"calc__add(a:1?)", "calc__add", `{"a":12}`, true},
		{"calc__add(a:1?)", "calc__add", `{"a":"12"}`, true},
		{"calc__add(force:true)", "calc__add", `{"force":true}`, true},
		{"calc__add(force:true)", "calc__add", `{"force":false}`, false},
		{`t__x(q:a\,b)`, "t__x", `{"q":"a,b"}`, true},
		{`t__x(q:a\*)`, "t__x", `{"q":"a*"}`, true},
		{`t__x(q:a\*)`, "t__x", `{"q":"ab"}`, false},
		{`t__x(q:\(x\))`, "t__x", `{"q":"(x)"}`, true},
		{`t__x(q:é?)`, "t__x", `{"q":"éñ"}`, true},
		{`t__x(q: spaced )`, "t__x", `{"q":"spaced"}`, true},
		{"local_tool", "local_tool", `{}`, true},
	} {
		p, err := Parse(tt.pattern)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.pattern, err)
			continue
		}
		if got := p.Match(tt.name, json.RawMessage(tt.args)); got != tt.want {
			t.Errorf("%q matches %s %s: %v, want %v", tt.pattern, tt.name, tt.args, got, tt.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tt := range []struct{ pattern, says string }{
		{"", "no tool name"},
		{" fs__x", "spaces around"},
		{"fs x", "letters, digits"},
		{"(path:x)", "no tool name"},
		{"fs__x(path:/tmp", "must end with )"},
		{"fs__x()", "ARG:GLOB"},
		{"Bash(npm run test:*)", "ARG:GLOB"},
		{"Read(./src/**)", "ARG:GLOB"},
		{"fs__x(path:)", "no glob"},
		{"fs__x(path:a,path:b)", "appears twice"},
		{"fs__x(path:a(b)", "unescaped"},
		{`fs__x(path:a\)`, "lone"},
		{strings.Repeat("a", MaxPattern+1), "longer than"},
	} {
		_, err := Parse(tt.pattern)
		if err == nil || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("Parse(%q) = %v, want an error saying %q", tt.pattern, err, tt.says)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("Parse(%q): more than one line: %q", tt.pattern, err)
		}
	}
}

// Deny wins over allow, allow over ask, whatever the order or the source;
// a sampling request matches nothing.
func TestRulesPrecedence(t *testing.T) {
	call := func(name, args string) approval.Call {
		return approval.Call{Name: name, Qualified: name, Kind: approval.KindMCP, Arguments: json.RawMessage(args)}
	}
	var user, project, flags Rules
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(user.Lists([]string{"fs__*"}, []string{"*"}, nil, "user"))
	must(project.Lists(nil, []string{"fs__read_file"}, []string{"fs__write_file(path:/etc/*)"}, "project"))
	must(flags.Add(approval.Deny, "gh__delete_*", "--deny"))
	all := Join(Join(&user, &project), &flags)
	for _, tt := range []struct {
		c       approval.Call
		verdict approval.Decision
		pattern string
	}{
		{call("fs__read_file", `{}`), approval.Allow, "fs__*"}, // allow over ask
		{call("fs__write_file", `{"path":"/tmp/x"}`), approval.Allow, "fs__*"},
		{call("fs__write_file", `{"path":"/etc/x"}`), approval.Deny, "fs__write_file(path:/etc/*)"}, // deny over allow
		{call("gh__delete_repo", `{}`), approval.Deny, "gh__delete_*"},                              // deny over ask
		{call("gh__get_issue", `{}`), approval.Ask, "*"},
		{approval.Call{Name: "note", Kind: approval.KindLocal}, approval.Ask, "*"},
	} {
		r, ok := all.Match(tt.c)
		if !ok || r.Verdict != tt.verdict || r.Pattern != tt.pattern {
			t.Errorf("%s %s: %+v %v, want %s by %s", tt.c.Name, tt.c.Arguments, r, ok, tt.verdict, tt.pattern)
		}
	}
	if r, ok := all.Match(approval.Call{Name: "sampling/createMessage", Server: "fs", Kind: approval.KindSampling}); ok {
		t.Errorf("a sampling request matched %+v", r)
	}
	var none *Rules
	if _, ok := none.Match(call("x", `{}`)); ok || none.Len() != 0 {
		t.Error("nil rules matched")
	}
	err := (&Rules{}).Lists([]string{"ok", "bad name"}, nil, nil, "f")
	if err == nil || !strings.HasPrefix(err.Error(), "permissions.allow[1]: ") {
		t.Errorf("Lists error %v, want it to name permissions.allow[1]", err)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"fs__read_file", "mcp__fs", "*", "fs__w(path:/tmp/*)", `x(a:\,\)\\,b:*)`, "Bash(npm:*)", "a(", "a(*)", "a(b:c", "é(x:y)"} {
		f.Add(s, "fs__read_file", `{"path":"/tmp/a","b":1}`)
	}
	f.Fuzz(func(t *testing.T, pattern, name, args string) {
		p, err := Parse(pattern)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("a two-line error: %q", err)
			}
			return
		}
		if p.String() != pattern {
			t.Fatalf("String %q, want %q", p.String(), pattern)
		}
		p.Match(name, json.RawMessage(args))
		// The pattern of a tool matches the tool.
		if q, err := Parse(name); err == nil && !strings.ContainsAny(name, "*?(") && !strings.HasPrefix(name, "mcp__") && !q.Match(name, nil) {
			t.Fatalf("%q does not match itself", name)
		}
	})
}

func FuzzMatch(f *testing.F) {
	f.Add("a*b?c", "axxbyc")
	f.Add(`\*`, "*")
	f.Fuzz(func(t *testing.T, g, s string) {
		got := match(g, s, true)
		if !strings.ContainsAny(g, `*?\`) && got != (g == s) {
			t.Fatalf("match(%q, %q) = %v for a glob without wildcards", g, s, got)
		}
		if g == "*" && !got {
			t.Fatalf("* does not match %q", s)
		}
	})
}
