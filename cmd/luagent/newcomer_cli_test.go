package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/errs"
)

// The command line as a new user meets it: global options anywhere, the
// suggestions luagent prints, mcp add's paths and errors.

// shellWords splits a suggested command line as a POSIX shell would
// (quotes and backslashes; no expansions: a suggestion that needs one is
// not runnable as printed).
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	var words []string
	var cur strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case quote == '"':
			switch {
			case c == '"':
				quote = 0
			case c == '\\' && i+1 < len(line):
				i++
				cur.WriteByte(line[i])
			case c == '$':
				t.Fatalf("%q expands a variable", line)
			default:
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		case c == '$' || c == '`':
			t.Fatalf("%q expands a variable", line)
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}

// Every command an import note suggests runs as printed.
func TestImportNotesSuggestRunnableCommands(t *testing.T) {
	suggested := regexp.MustCompile(`luagent mcp add [^;()]*`)
	for _, f := range []struct {
		from, file string
		some       bool // at least one command suggested
	}{
		{"cursor", "project/.cursor/mcp.json", true},
		{"codex", "config.toml", true},
		{"claude-code", "project/.mcp.json", false}, // its one is for an entry skipped
	} {
		t.Run(f.from, func(t *testing.T) {
			_, env := catalogHome(t)
			r := ok(t, env, "mcp", "import", "--from", f.from, importFixture(f.file))
			var added []listEntry
			json.Unmarshal([]byte(ok(t, env, "mcp", "list", "--json").stdout), &added)
			n := 0
			for _, line := range strings.Split(r.stdout, "\n") {
				note, isNote := strings.CutPrefix(line, "note: ")
				if !isNote {
					continue
				}
				cmd := suggested.FindString(note)
				if cmd == "" {
					if strings.Contains(note, " -H ") || strings.Contains(note, "--env ") {
						t.Errorf("a note names a flag without the command it goes with: %s", note)
					}
					continue
				}
				words := shellWords(t, strings.TrimRight(strings.TrimSpace(cmd), ".,"))
				if len(words) < 4 {
					t.Errorf("suggested %q", cmd)
					continue
				}
				n++
				if r := luagent(t, "", env, words[1:]...); r.code != 0 {
					t.Errorf("the note's command fails (exit %d): %s\nnote: %s\nstderr: %s", r.code, cmd, note, r.stderr)
				}
			}
			if n == 0 && f.some {
				t.Errorf("no command suggested:\n%s", r.stdout)
			}
		})
	}
}

// mcp add NAME -- luagent serve greet.lua: the server starts from any
// folder (the relative path that exists is saved absolute, with a note).
func TestMCPAddResolvesRelativePaths(t *testing.T) {
	home, env := catalogHome(t)
	dir := t.TempDir()
	writeFile(t, dir, "greet.lua", "return mcp.server{name='greet'}")
	writeFile(t, dir, "bin/tool", "#!/bin/sh\n")
	os.Chmod(filepath.Join(dir, "bin/tool"), 0o755)
	r := luagentIn(t, dir, "", env, "mcp", "add", "greet", "--", "luagent", "serve", "greet.lua", "--http", "8081", "not-a-file.lua")
	if r.code != 0 {
		t.Fatalf("%+v", r)
	}
	abs := filepath.Join(dir, "greet.lua")
	if !strings.Contains(r.stdout, "greet.lua") || !strings.Contains(r.stdout, abs) {
		t.Errorf("no note of the resolved path:\n%s", r.stdout)
	}
	r = luagentIn(t, dir, "", env, "mcp", "add", "tool", "--", "bin/tool", "x")
	if r.code != 0 {
		t.Fatalf("%+v", r)
	}
	var got []listEntry
	json.Unmarshal([]byte(ok(t, env, "mcp", "list", "--json").stdout), &got)
	if len(got) != 2 {
		t.Fatalf("%+v", got)
	}
	if want := []string{"serve", abs, "--http", "8081", "not-a-file.lua"}; strings.Join(got[0].Args, " ") != strings.Join(want, " ") || got[0].Command != "luagent" {
		t.Errorf("saved %s %v, want luagent %v (home %s)", got[0].Command, got[0].Args, want, home)
	}
	if got[1].Command != filepath.Join(dir, "bin/tool") {
		t.Errorf("a relative command that exists: saved %q", got[1].Command)
	}
}

// A name or URL typed on the command line is the command line's mistake:
// the error names the argument or flag to fix, not config.json's entry.
func TestMCPAddErrorsNameTheArgument(t *testing.T) {
	_, env := catalogHome(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"mcp", "add", "a b", "--", "true"}, `NAME "a b": the name must be 1 to 64 letters, digits, _ or -`},
		{[]string{"mcp", "add", "x", "--transport", "http", "ftp://example.com"}, "URL ftp://example.com: must be an http or https URL"},
		{[]string{"mcp", "add", "x", "-H", "Bad Name: v", "https://x.example/mcp"}, "--header Bad Name: is not a valid HTTP header name"},
		{[]string{"mcp", "add", "x", "--env", "1X=v", "--", "true"}, "--env 1X: is not a valid variable name"},
	} {
		r := failsWith(t, env, 2, c.want, c.args...)
		for _, bad := range []string{"config.json", "mcpServers", "rename the entry", "remove it from this"} {
			if strings.Contains(r.stderr, bad) {
				t.Errorf("%v: the error speaks of the file (%q): %s", c.args, bad, r.stderr)
			}
		}
	}
}

func structuredEntry(t *testing.T) string {
	script, _ := filepath.Abs("testdata/structured.lua")
	return `"structured":{"command":` + quoteJSON(bin) + `,"args":["serve",` + quoteJSON(script) + `]}`
}

// Global options are read before or after the command, mcp verbs too.
func TestGlobalOptionsAnywhere(t *testing.T) {
	env := savedHome(t, typedEntry(t, ""))
	dir := t.TempDir()
	for _, args := range [][]string{
		{"-v", "mcp", "call", "typed", "env", "name=HOME"},
		{"mcp", "call", "typed", "env", "name=HOME", "-v"},
		{"mcp", "-v", "call", "typed", "env", "name=HOME"},
	} {
		r := ok(t, env, args...)
		if !strings.Contains(r.stderr, "trace request_sent") {
			t.Errorf("%v printed no trace:\n%s", args, r.stderr)
		}
	}
	for i, args := range [][]string{
		{"--trace", "T", "mcp", "call", "typed", "env", "name=HOME"},
		{"mcp", "tools", "typed", "--trace", "T"},
		{"--trace=T", "mcp", "tools", "typed"},
	} {
		file := filepath.Join(dir, "trace"+string(rune('a'+i))+".jsonl")
		for j := range args {
			args[j] = strings.Replace(args[j], "T", file, 1)
		}
		ok(t, env, args...)
		if b, err := os.ReadFile(file); err != nil || !strings.Contains(string(b), `"kind":"request_sent"`) {
			t.Errorf("%v wrote no trace: %v %s", args, err, b)
		}
	}
	// ask --log-http URL, the agents-exe seed's own form.
	got := make(chan string, 16)
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- string(b)
	}))
	defer collector.Close()
	r := ok(t, env, "ask", "--log-http", collector.URL, "--model", "mock", "hello")
	if r.stdout == "" {
		t.Errorf("ask --log-http: no answer: %+v", r)
	}
	select {
	case b := <-got:
		if !strings.Contains(b, `"kind"`) {
			t.Errorf("the collector got %q", b)
		}
	default:
		t.Error("ask --log-http posted nothing")
	}
}

// agents-exe's `run --agent-file F` says in one line what to use.
func TestRunAgentFileSaysWhatToUse(t *testing.T) {
	file := writeFile(t, t.TempDir(), "agent.json", `{}`)
	failsWith(t, nil, 2, "luagent chat --agent FILE", "run", "--agent-file", file)
}

// luagent completion bash|zsh|fish prints a script for that shell.
func TestCompletion(t *testing.T) {
	for shell, want := range map[string]string{"bash": "complete -o default -F __start_luagent luagent", "zsh": "#compdef luagent", "fish": "complete -c luagent"} {
		if r := ok(t, nil, "completion", shell); !strings.Contains(r.stdout, want) {
			t.Errorf("completion %s lacks %q", shell, want)
		}
	}
	// The saved servers' names complete mcp call's first argument.
	env := savedHome(t, typedEntry(t, ""))
	if r := ok(t, env, "__complete", "mcp", "call", ""); !strings.Contains(r.stdout, "typed\n") {
		t.Errorf("no server names completed:\n%s", r.stdout)
	}
}

// mcp call --json prints the whole result: content, structuredContent,
// isError.
func TestMCPCallJSON(t *testing.T) {
	env := savedHome(t, structuredEntry(t)+","+typedEntry(t, ""))
	r := ok(t, env, "mcp", "call", "structured", "weather", "city=Oslo", "--json")
	var res struct {
		Content           []map[string]any `json:"content"`
		StructuredContent map[string]any   `json:"structuredContent"`
		IsError           *bool            `json:"isError"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	if res.StructuredContent["temp"] != 21.0 || res.StructuredContent["city"] != "Oslo" || len(res.Content) == 0 || res.IsError == nil || *res.IsError {
		t.Errorf("the whole result: %s", r.stdout)
	}
	r = luagent(t, "", env, "mcp", "call", "typed", "broken", "--json")
	if r.code != 1 || !strings.Contains(r.stdout, `"isError": true`) || !strings.Contains(r.stdout, "it broke") {
		t.Errorf("a tool error as JSON: %+v", r)
	}
}

// A command-line mistake is an error of kind invalid, one line, exit 2.
func TestUsageErrorsAreInvalid(t *testing.T) {
	for _, argv := range [][]string{
		{"--bogus"}, {"serve"}, {"serve", "s.lua", "--workers", "0", "--http"}, {"mcp", "frob"},
		{"mcp", "add", "x", "npx", "-y"}, {"ask", "--model"}, {"chat", "extra"}, {"run", "--agent-file", "a.json"},
	} {
		code := 0
		root, o := newRoot(&code, strings.NewReader(""), io.Discard, io.Discard)
		declareAll(o)
		args, err := prepare(root, argv)
		if err == nil {
			root.SetArgs(args)
			err = root.Execute()
		}
		if !errs.Is(err, errs.Invalid) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: %v (kind %v)", argv, err, errs.KindOf(err))
		}
		var stderr strings.Builder
		if code := run(argv, strings.NewReader(""), io.Discard, &stderr); code != 2 {
			t.Errorf("%v: exit %d", argv, code)
		}
	}
}
