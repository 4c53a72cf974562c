package cmdfile

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/errs"
)

func TestParseCommand(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		meta      Meta
		body      string
		bad       string // part of the error; "" none
	}{
		{"no front matter", "Review $ARGUMENTS\n", Meta{}, "Review $ARGUMENTS\n", ""},
		{"claude code example", "---\nallowed-tools: Bash(git add:*), Bash(git status:*), Bash(git commit:*)\nargument-hint: [message]\ndescription: Create a git commit\nmodel: claude-3-5-haiku-20241022\n---\n\nCreate a git commit with message: $ARGUMENTS\n",
			Meta{Description: "Create a git commit", ArgumentHint: "[message]", Model: "claude-3-5-haiku-20241022",
				AllowedTools: []string{"Bash(git add:*)", "Bash(git status:*)", "Bash(git commit:*)"}},
			"\nCreate a git commit with message: $ARGUMENTS\n", ""},
		{"hint two brackets", "---\nargument-hint: [pr-number] [priority] [assignee]\n---\nx", Meta{ArgumentHint: "[pr-number] [priority] [assignee]"}, "x", ""},
		{"hint quoted", "---\nargument-hint: \"add [tagId] | remove\"\n---\nx", Meta{ArgumentHint: "add [tagId] | remove"}, "x", ""},
		{"tools as list, CRLF, BOM", "\ufeff---\r\nallowed-tools:\r\n  - mcp__fs__read_file\r\n  - Read\r\ndescription: d\r\n---\r\nbody\r\n",
			Meta{Description: "d", AllowedTools: []string{"mcp__fs__read_file", "Read"}}, "body\r\n", ""},
		{"unknown fields ignored", "---\nfoo: [1, 2]\ndisable-model-invocation: true\n---\nb", Meta{DisableModelInvocation: true}, "b", ""},
		{"empty front matter", "---\n---\nb", Meta{}, "b", ""},
		{"unclosed front matter is body", "---\ndescription: x\n", Meta{}, "---\ndescription: x\n", ""},
		{"bad yaml", "---\ndescription: [unclosed\n---\nb", Meta{}, "", "not valid YAML"},
		{"not a mapping", "---\n- a\n- b\n---\nb", Meta{}, "", "not a YAML mapping"},
		{"description a mapping", "---\ndescription: {a: 1}\n---\nb", Meta{}, "", "description must be text"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, body, err := ParseCommand("x.md", []byte(tc.doc))
			if tc.bad != "" {
				if err == nil || !strings.Contains(err.Error(), tc.bad) || !strings.Contains(err.Error(), "x.md") || errs.KindOf(err) != errs.Invalid {
					t.Fatalf("err %v, want kind invalid naming x.md and %q", err, tc.bad)
				}
				if strings.Contains(err.Error(), "\n") {
					t.Errorf("not one line: %q", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(m, tc.meta) || body != tc.body {
				t.Errorf("got %#v %q, want %#v %q", m, body, tc.meta, tc.body)
			}
		})
	}
}

func TestExpand(t *testing.T) {
	for _, tc := range []struct{ body, args, want string }{
		{"Review $ARGUMENTS now", "src/x.go  ", "Review src/x.go now"},
		{"Fix issue #$1 with priority $2 ($3)", `123 "high urgency"`, "Fix issue #123 with priority high urgency ()"},
		{"first $ARGUMENTS[0], second $ARGUMENTS[1]", "a b", "first a, second b"},
		{"no placeholder", "a b", "no placeholder\n\nARGUMENTS: a b"},
		{"no placeholder\n", "", "no placeholder\n"},
		{"$1 and $10", "x", "x and x0"},
		{"keep $HOME and $ARGUMENTS", "$ARGUMENTS $1", "keep $HOME and $ARGUMENTS $1"},
	} {
		if got := Expand(tc.body, tc.args); got != tc.want {
			t.Errorf("Expand(%q, %q) = %q, want %q", tc.body, tc.args, got, tc.want)
		}
	}
}

func TestSplitArgs(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"  a  b ", []string{"a", "b"}},
		{`'a b' "c \"d\"" e\ f`, []string{"a b", `c "d"`, "e f"}},
		{`"" x`, []string{"", "x"}},
		{`"unclosed here`, []string{"unclosed here"}},
		{`$HOME $(id)`, []string{"$HOME", "$(id)"}},
	} {
		if got := SplitArgs(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("SplitArgs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestModelSpec(t *testing.T) {
	for in, want := range map[string]string{"": "", "inherit": "", "claude-3-5-haiku-20241022": "anthropic:claude-3-5-haiku-20241022",
		"gpt-4.1-mini": "openai:gpt-4.1-mini", "o3": "openai:o3", "ollama:qwen": "ollama:qwen", "fast": "fast"} {
		if got := ModelSpec(in); got != want {
			t.Errorf("ModelSpec(%q) = %q, want %q", in, got, want)
		}
	}
}

func write(t *testing.T, root, rel, body string) string {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Project files win over the user's, subfolders are namespaces, a bad
// file is one line and the others load, an untrusted project's .lua are
// skipped with one note and its allowed-tools grant nothing.
func TestLoadCommands(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	write(t, home, "commands/review.md", "---\ndescription: the user's\n---\nuser")
	write(t, home, "commands/mine.md", "---\ndescription: only mine\nallowed-tools: mcp__fs\n---\nmine")
	write(t, proj, ".luagent/commands/review.md", "---\ndescription: the project's\nallowed-tools: mcp__fs__read_file\nargument-hint: FILE\n---\nReview $ARGUMENTS")
	write(t, proj, ".luagent/commands/frontend/test.md", "Test $1")
	write(t, proj, ".luagent/commands/backend/test.md", "Backend test $1")
	write(t, proj, ".luagent/commands/broken.md", "---\ndescription: [\n---\nx")
	write(t, proj, ".luagent/commands/calc.lua", "return function() return 'x' end")
	write(t, proj, ".luagent/commands/notes.txt", "ignored")

	for _, trusted := range []bool{false, true} {
		s := LoadCommands(Options{Home: home, ProjectDir: proj, Trusted: trusted})
		if len(s.Problems) != 1 || !strings.Contains(s.Problems[0], "broken.md") || strings.Contains(s.Problems[0], "\n") {
			t.Errorf("problems %q", s.Problems)
		}
		r := s.Find("review")
		if r == nil || r.Source != Project || r.Prompt("src/x.go") != "Review src/x.go" || r.Usage() != "/review FILE" {
			t.Fatalf("review %+v", r)
		}
		if got, _ := r.Grants(); trusted != (len(got) == 1) {
			t.Errorf("trusted %v: grants %q", trusted, got)
		}
		if m := s.Find("mine"); m == nil || len(first(m.Grants())) != 1 || m.Help() != "only mine (user)" {
			t.Errorf("mine %+v", m)
		}
		if c := s.Find("test"); c == nil || c.Namespace != "backend" || c.Help() != "the prompt in test.md (project:backend)" {
			t.Errorf("test %+v", c)
		}
		if c := s.Find("frontend:test"); c == nil || c.Prompt("a") != "Test a" || c.Usage() != "/frontend:test" {
			t.Errorf("frontend:test %+v", c)
		}
		// The folder to trust is the project's, also for a file in a subfolder.
		if c := s.Find("frontend:test"); c != nil && trusted == (c.Project == proj) {
			t.Errorf("trusted %v: the project to trust is %q, want %q when untrusted", trusted, c.Project, proj)
		}
		if !trusted && len(s.Notes) > 0 && !strings.HasSuffix(s.Notes[0], "(luagent trust "+proj+")") {
			t.Errorf("note %q does not name the project folder", s.Notes[0])
		}
		calc := s.Find("calc")
		if trusted != (calc != nil && calc.Lua) {
			t.Errorf("trusted %v: calc %+v", trusted, calc)
		}
		if trusted != (len(s.Notes) == 0) || !trusted && !strings.Contains(s.Notes[0], "not trusted") {
			t.Errorf("trusted %v: notes %q", trusted, s.Notes)
		}
		want := []string{"backend:test", "calc", "frontend:test", "mine", "review"}
		if !trusted {
			want = []string{"backend:test", "frontend:test", "mine", "review"}
		}
		var got []string
		for _, c := range s.Commands {
			got = append(got, c.Qualified())
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("commands %q, want %q", got, want)
		}
	}
	// No folders at all: nothing, no problems.
	if s := LoadCommands(Options{Home: t.TempDir(), ProjectDir: t.TempDir()}); len(s.Commands)+len(s.Problems)+len(s.Notes) != 0 {
		t.Errorf("empty: %+v", s)
	}
}

func TestLoadAgents(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	write(t, home, "agents/reviewer.md", "---\nname: reviewer\ndescription: the user's\n---\nuser")
	write(t, proj, ".luagent/agents/reviewer.md", "---\nname: reviewer\ndescription: Reviews code\ntools: mcp__fs__read_file, mcp__git, Read, Bash(git:*)\nmodel: sonnet\nservers: [fs, git]\n---\nYou review code.\n")
	write(t, proj, ".luagent/agents/bad.md", "---\nname: has space\n---\nx")
	write(t, proj, ".luagent/agents/nofm.md", "just text")
	write(t, proj, ".luagent/agents/coder.lua", "return agent.new{}")
	for _, trusted := range []bool{false, true} {
		s := LoadAgents(Options{Home: home, ProjectDir: proj, Trusted: trusted})
		if len(s.Problems) != 2 {
			t.Errorf("problems %q", s.Problems)
		}
		want := 1
		if trusted {
			want = 2
		}
		if len(s.Agents) != want {
			t.Fatalf("agents %+v", s.Agents)
		}
		r := s.Agents[len(s.Agents)-1]
		if r.Name != "reviewer" || r.Source != Project || r.System != "You review code." || r.Model != "" || !reflect.DeepEqual(r.Servers, []string{"fs", "git"}) {
			t.Errorf("reviewer %+v", r)
		}
		names, other := r.MCPTools()
		if !reflect.DeepEqual(names, []string{"fs__read_file", "git__*"}) || !reflect.DeepEqual(other, []string{"Read", "Bash"}) {
			t.Errorf("MCPTools %q %q", names, other)
		}
		if trusted != (len(s.Notes) == 0) {
			t.Errorf("notes %q", s.Notes)
		}
	}
}

func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{"", "---\n---\n", "---\ndescription: x\nargument-hint: [a] [b]\nallowed-tools: A(b:*), c\n---\n$1 $ARGUMENTS",
		"---\na: &a [*a]\n---\n", "\ufeff---\r\nx: y\r\n---\r\n", "---\nargument-hint:\n---\n"} {
		f.Add([]byte(s), "a 'b c'")
	}
	f.Fuzz(func(t *testing.T, doc []byte, args string) {
		m, body, err := ParseCommand("f.md", doc)
		if err != nil {
			if strings.Contains(err.Error(), "\n") || errs.KindOf(err) != errs.Invalid {
				t.Fatalf("error not one line of kind invalid: %q", err)
			}
			return
		}
		_ = m
		Expand(body, args)
		_, _ = ParseAgent("f.md", doc)
	})
}

func first(a, _ []string) []string { return a }

func TestGrants(t *testing.T) {
	c := &Command{Meta: Meta{AllowedTools: []string{"Bash(git add:*)", "mcp__fs__read_file", "Read", "fs__write_file(path:/tmp/*)"}}}
	got, skipped := c.Grants()
	if !reflect.DeepEqual(got, []string{"mcp__fs__read_file", "Read", "fs__write_file(path:/tmp/*)"}) || !reflect.DeepEqual(skipped, []string{"Bash(git add:*)"}) {
		t.Errorf("grants %q skipped %q", got, skipped)
	}
	c.Untrusted = true
	if got, skipped := c.Grants(); got != nil || skipped != nil {
		t.Errorf("untrusted: %q %q", got, skipped)
	}
}

// BenchmarkLoadCommands: 200 command files, as ask reads them for one
// "/NAME" prompt.
func BenchmarkLoadCommands(b *testing.B) {
	home := b.TempDir()
	for i := 0; i < 200; i++ {
		p := filepath.Join(home, "commands", "ns"+string(rune('a'+i%10)), "cmd"+strconv.Itoa(i)+".md")
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("---\ndescription: command "+strconv.Itoa(i)+"\nargument-hint: [file]\nallowed-tools: mcp__fs__read_file\n---\nDo $1 with $ARGUMENTS\n"), 0o644)
	}
	b.ResetTimer()
	for b.Loop() {
		if s := LoadCommands(Options{Home: home}); len(s.Commands) != 200 {
			b.Fatal(len(s.Commands))
		}
	}
}
