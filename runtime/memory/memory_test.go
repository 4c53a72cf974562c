package memory

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/luagent/luagent/runtime/errs"
)

// tree writes files (path -> content; "->target" makes a symbolic link,
// "/" at the end a folder) under a fresh folder and returns it.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, c := range files {
		full := filepath.Join(root, p)
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if target, ok := strings.CutPrefix(c, "->"); ok {
			if err := os.Symlink(target, full); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// rel lists the files' paths relative to root, with their state.
func rel(root string, m *Memory) []string {
	var out []string
	for _, f := range m.Files {
		p, _ := filepath.Rel(root, f.Path)
		s := p
		switch {
		case f.Err != nil:
			s += " " + errs.KindOf(f.Err).String()
		case f.Cut:
			s += " cut"
		}
		out = append(out, s)
	}
	return out
}

func TestLoad(t *testing.T) {
	big := strings.Repeat("a line of instructions\n", 2000) // 46000 bytes
	tests := []struct {
		name  string
		files map[string]string
		dir   string // the working folder, under the tree
		home  string // "" for none
		names []string
		max   [2]int
		want  []string // the files found, in the prompt's order
		in    []string // in the prompt
		out   []string // not in it
	}{
		{name: "nested folders up to the repository's root, the user's first",
			files: map[string]string{"above/AGENTS.md": "ABOVE", "above/repo/.git/": "", "above/repo/AGENTS.md": "ROOT",
				"above/repo/a/AGENTS.md": "A", "above/repo/a/b/AGENTS.md": "B", "home/AGENTS.md": "USER"},
			dir: "above/repo/a/b", home: "home",
			want: []string{"home/AGENTS.md", "above/repo/AGENTS.md", "above/repo/a/AGENTS.md", "above/repo/a/b/AGENTS.md"},
			in:   []string{"USER", "ROOT", "\nA\n", "\nB"}, out: []string{"ABOVE"}},
		{name: ".git as a file (a worktree) marks the root",
			files: map[string]string{"AGENTS.md": "OUTSIDE", "wt/.git": "gitdir: /elsewhere", "wt/AGENTS.md": "WT", "wt/sub/x": ""},
			dir:   "wt/sub", want: []string{"wt/AGENTS.md"}, in: []string{"WT"}, out: []string{"OUTSIDE"}},
		{name: "no repository: the working folder alone",
			files: map[string]string{"AGENTS.md": "PARENT", "w/AGENTS.md": "HERE"},
			dir:   "w", want: []string{"w/AGENTS.md"}, in: []string{"HERE"}, out: []string{"PARENT"}},
		{name: "memoryFiles: AGENTS.md stays, then the names in order",
			files: map[string]string{"AGENTS.md": "AG", "CLAUDE.md": "CL", "GEMINI.md": "GE", "home/CLAUDE.md": "UCL"},
			dir:   ".", home: "home", names: []string{"CLAUDE.md", "GEMINI.md", "CLAUDE.md"},
			want: []string{"home/CLAUDE.md", "AGENTS.md", "CLAUDE.md", "GEMINI.md"}, in: []string{"UCL", "AG", "CL", "GE"}},
		{name: "symbolic links: followed, one file counted once, a dangling one absent",
			files: map[string]string{"real/notes.md": "LINKED", "w/AGENTS.md": "->../real/notes.md", "w/CLAUDE.md": "->AGENTS.md",
				"w/GEMINI.md": "->nowhere.md"},
			dir: "w", names: []string{"CLAUDE.md", "GEMINI.md"}, want: []string{"w/AGENTS.md"}, in: []string{"LINKED"}},
		{name: "a folder named AGENTS.md is left out",
			files: map[string]string{"AGENTS.md/": ""}, dir: ".", want: []string{"AGENTS.md invalid"}},
		{name: "a binary file is left out",
			files: map[string]string{"AGENTS.md": "a\x00b"}, dir: ".", want: []string{"AGENTS.md invalid"}, out: []string{"a\x00b"}},
		{name: "a huge file is cut at a line's end, with a note in the prompt",
			files: map[string]string{"AGENTS.md": big}, dir: ".", want: []string{"AGENTS.md cut"},
			in: []string{"# Project memory", "a line of instructions\n\n[luagent: this file is cut here: only its first 32752 of 46000 bytes are shown (memory files give at most 32768 bytes each, 65536 in all)]"}},
		{name: "the total bound serves the nearest first",
			files: map[string]string{".git/": "", "AGENTS.md": "FAR far far far far\n", "w/AGENTS.md": "NEAR near near near\n", "home/AGENTS.md": "USER user\n"},
			dir:   "w", home: "home", max: [2]int{100, 30},
			want: []string{"home/AGENTS.md limit", "AGENTS.md cut", "w/AGENTS.md"},
			in:   []string{"NEAR near near near", "\nFAR far fa\n\n[luagent: this file is cut here: only its first 10 of 20 bytes", "home/AGENTS.md is left out"}, out: []string{"USER"}},
		{name: "control characters and bad UTF-8 are kept as text, made valid",
			files: map[string]string{"AGENTS.md": "be \x1b[31mred\x1b[0m \xff ok\r\nnext"}, dir: ".", want: []string{"AGENTS.md"},
			in: []string{"be \x1b[31mred\x1b[0m \uFFFD ok\nnext"}},
		{name: "nothing found", files: map[string]string{"x": ""}, dir: ".", home: "nohome"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := tree(t, tc.files)
			o := Options{Dir: filepath.Join(root, tc.dir), Names: tc.names, MaxFile: tc.max[0], MaxTotal: tc.max[1]}
			if tc.home != "" {
				o.Home = filepath.Join(root, tc.home)
			}
			m := Load(o)
			got := rel(root, m)
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("files = %q, want %q", got, tc.want)
			}
			p := m.Prompt()
			for _, s := range tc.in {
				if !strings.Contains(p, s) {
					t.Errorf("the prompt lacks %q:\n%s", s, p)
				}
			}
			for _, s := range tc.out {
				if strings.Contains(p, s) {
					t.Errorf("the prompt holds %q:\n%s", s, p)
				}
			}
			if len(tc.want) == 0 && p != "" {
				t.Errorf("prompt = %q, want none", p)
			}
			// The same files give the same bytes.
			if again := Load(o).Prompt(); again != p {
				t.Errorf("a second load differs:\n%s\n---\n%s", p, again)
			}
			for _, f := range m.Loaded() {
				if !strings.Contains(p, "\n## "+f.Path+"\n\n") {
					t.Errorf("no header naming %s:\n%s", f.Path, p)
				}
			}
		})
	}
}

// The notes say what was cut or left out, one line each, with the
// paths' control characters made visible.
func TestNotes(t *testing.T) {
	root := tree(t, map[string]string{"w\x1b]0;x\x07/AGENTS.md": strings.Repeat("x", 200), "w\x1b]0;x\x07/CLAUDE.md/": ""})
	m := Load(Options{Dir: filepath.Join(root, "w\x1b]0;x\x07"), Names: []string{"CLAUDE.md"}, MaxFile: 50})
	notes := m.Notes()
	if len(notes) != 2 {
		t.Fatalf("notes = %q, want two", notes)
	}
	if !strings.Contains(notes[0], `w\x1b]0;x\x07/AGENTS.md is 200 bytes; only its first 50 are in the system prompt (at most 50 a file, 65536 in all)`) {
		t.Errorf("the cut note: %q", notes[0])
	}
	if !strings.Contains(notes[1], "CLAUDE.md is not a regular file: left out") {
		t.Errorf("the left out note: %q", notes[1])
	}
	for _, n := range notes {
		if strings.ContainsAny(n, "\x1b\x07\n") {
			t.Errorf("a note holds a control character: %q", n)
		}
	}
	r := m.Report()
	if !strings.Contains(r, "memory: 1 of 2 files in the system prompt, 50 bytes") || !strings.Contains(r, "200 bytes  project, cut: the first 50 bytes") ||
		strings.ContainsAny(r, "\x1b\x07") {
		t.Errorf("report:\n%s", r)
	}
}

// A file nobody may read is listed with why, and the others still load.
func TestUnreadable(t *testing.T) {
	root := tree(t, map[string]string{"AGENTS.md": "secret", "CLAUDE.md": "fine"})
	fifo := filepath.Join(root, "GEMINI.md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 { // root reads anything
		if err := os.Chmod(filepath.Join(root, "AGENTS.md"), 0); err != nil {
			t.Fatal(err)
		}
	}
	m := Load(Options{Dir: root, Names: []string{"CLAUDE.md", "GEMINI.md"}})
	got := rel(root, m)
	want := "AGENTS.md invalid|CLAUDE.md|GEMINI.md invalid"
	if os.Geteuid() == 0 {
		want = "AGENTS.md|CLAUDE.md|GEMINI.md invalid"
	}
	if strings.Join(got, "|") != want {
		t.Errorf("files = %q, want %s", got, want)
	}
	if p := m.Prompt(); !strings.Contains(p, "fine") {
		t.Errorf("prompt: %s", p)
	}
}

func TestFolders(t *testing.T) {
	root := tree(t, map[string]string{"r/.git/": "", "r/a/b/": ""})
	got := Folders(filepath.Join(root, "r", "a", "b"))
	want := []string{filepath.Join(root, "r"), filepath.Join(root, "r", "a"), filepath.Join(root, "r", "a", "b")}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("Folders = %q, want %q", got, want)
	}
}

func TestCutText(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"ab\ncd\nef", 7, "ab\ncd\n"},
		{"abcdef", 3, "abc"},
		{"aé", 2, "a"}, // é is two bytes: not split
		{"日本語", 7, "日本"},
	} {
		if got := cutText(tc.in, tc.n); got != tc.want {
			t.Errorf("cutText(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

// Any file content and bound give a valid prompt, within the bound plus
// the headers, without a panic.
func FuzzPrompt(f *testing.F) {
	f.Add([]byte("hello\nworld"), 10)
	f.Add([]byte("\xff\xfe\r\n\x1b"), 3)
	f.Fuzz(func(t *testing.T, content []byte, max int) {
		if max < 1 || max > 1<<16 {
			return
		}
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, FileName), content, 0o644); err != nil {
			t.Fatal(err)
		}
		m := Load(Options{Dir: dir, MaxFile: max})
		p := m.Prompt()
		if p != "" && !strings.HasPrefix(p, "# Project memory") {
			t.Fatalf("prompt %q", p)
		}
		for _, f := range m.Files {
			if f.Used > max {
				t.Fatalf("used %d > %d", f.Used, max)
			}
		}
		if !isValid(p) {
			t.Fatalf("not UTF-8: %q", p)
		}
	})
}

func isValid(s string) bool { return strings.ToValidUTF8(s, "") == s }
