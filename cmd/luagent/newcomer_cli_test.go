package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
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
