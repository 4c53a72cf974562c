package skills

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/errs"
)

// writeFiles writes name -> content under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func skillMD(name, desc, body string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\n" + body
}

func TestLocalScan(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	writeFiles(t, filepath.Join(home, "skills"), map[string]string{
		"pdf/SKILL.md":        skillMD("pdf", "Work with PDFs", "user body"),
		"shared/SKILL.md":     skillMD("shared", "the user's", ""),
		"nodesc/SKILL.md":     "---\nname: nodesc\n---\n",
		"Bad_Name/SKILL.md":   skillMD("Bad_Name", "x", ""),
		"folder/SKILL.md":     skillMD("other", "x", ""),
		"nofront/SKILL.md":    "# no front matter\n",
		"notaskill/README.md": "just a folder",
		".hidden/SKILL.md":    skillMD("hidden", "x", ""),
	})
	writeFiles(t, filepath.Join(project, ".luagent", "skills"), map[string]string{
		"shared/SKILL.md": skillMD("shared", "the project's", ""),
	})
	l := &Local{Dirs: LocalDirs(home, project)}
	found, problems := l.Scan()
	var names []string
	for _, s := range found {
		names = append(names, s.Name+"="+s.Description)
	}
	if want := []string{"pdf=Work with PDFs", "shared=the project's"}; !slices.Equal(names, want) {
		t.Errorf("skills %v, want %v", names, want)
	}
	if s := found[1]; s.Shadows != filepath.Join(home, "skills", "shared", "SKILL.md") {
		t.Errorf("shadows %q", s.Shadows)
	}
	reasons := map[string]string{}
	for _, p := range problems {
		reasons[filepath.Base(filepath.Dir(p.Where))] = p.Reason
	}
	for dir, want := range map[string]string{
		"nodesc":   "no description",
		"Bad_Name": "naming rules",
		"folder":   "not its folder's",
		"nofront":  "does not begin with a front matter block",
	} {
		if !strings.Contains(reasons[dir], want) {
			t.Errorf("%s: problem %q, want %q", dir, reasons[dir], want)
		}
	}
	if len(problems) != 4 {
		t.Errorf("problems %v", problems)
	}
	if got := l.List(); len(got) != 2 || got[0].Name != "pdf" || got[0].Server != "" || got[0].Origin == "" {
		t.Errorf("list %+v", got)
	}
	// No folders at all is no problem.
	if found, problems := (&Local{Dirs: LocalDirs(t.TempDir(), "")}).Scan(); len(found)+len(problems) != 0 {
		t.Errorf("%v %v", found, problems)
	}
}

// Listing reads the front matter only: a SKILL.md whose body is huge, or
// unreadable after the front matter, lists at once.
func TestLocalListReadsFrontmatterOnly(t *testing.T) {
	home := t.TempDir()
	writeFiles(t, filepath.Join(home, "skills"), map[string]string{
		"big/SKILL.md": skillMD("big", "a big one", strings.Repeat("x", MaxSkillBytes+10)),
	})
	l := &Local{Dirs: LocalDirs(home, "")}
	if got := l.List(); len(got) != 1 {
		t.Fatalf("list %+v", got)
	}
	if _, err := l.Load(context.Background(), "big"); !errs.Is(err, errs.Limit) {
		t.Errorf("load of a too big skill: %v", err)
	}
}

func TestLocalLoadAndReadFile(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "skills", "pdf")
	writeFiles(t, filepath.Join(home, "skills"), map[string]string{
		"pdf/SKILL.md":             skillMD("pdf", "Work with PDFs", "Use forms.\n"),
		"pdf/references/FORMS.md":  "the forms",
		"pdf/scripts/fill.py":      "print(1)",
		"pdf/.git/config":          "hidden",
		"pdf/image.png":            "\x89PNG\x00",
		"secret.txt":               "outside",
		"other/SKILL.md":           skillMD("other", "x", ""),
		"other/references/note.md": "other's",
	})
	if err := os.Symlink(filepath.Join(home, "skills", "secret.txt"), filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	l := &Local{Dirs: LocalDirs(home, "")}
	ctx := context.Background()
	got, err := l.Load(ctx, "pdf")
	if err != nil {
		t.Fatal(err)
	}
	if got.Body != "Use forms.\n" || !slices.Equal(got.Files, []string{"image.png", "references/FORMS.md", "scripts/fill.py"}) {
		t.Errorf("loaded %+v", got)
	}
	f, err := l.ReadFile(ctx, "pdf", "references/FORMS.md")
	if err != nil || f.Text != "the forms" || f.MIMEType != "text/markdown; charset=utf-8" && f.MIMEType != "text/markdown" {
		t.Errorf("read %+v %v", f, err)
	}
	if f, err := l.ReadFile(ctx, "pdf", "./image.png"); err != nil || f.Text != "" || len(f.Blob) != 5 {
		t.Errorf("image %+v %v", f, err)
	}
	for _, tt := range []struct {
		path string
		kind errs.Kind
	}{
		{"../secret.txt", errs.Invalid},
		{"../other/references/note.md", errs.Invalid},
		{"/etc/passwd", errs.Invalid},
		{"link.txt", errs.NotFound}, // a link out of the folder
		{"missing.md", errs.NotFound},
	} {
		if _, err := l.ReadFile(ctx, "pdf", tt.path); !errs.Is(err, tt.kind) {
			t.Errorf("%s: %v, want %s", tt.path, err, tt.kind)
		}
	}
	if _, err := l.Load(ctx, "nope"); !errs.Is(err, errs.NotFound) {
		t.Errorf("unknown skill: %v", err)
	}
}
