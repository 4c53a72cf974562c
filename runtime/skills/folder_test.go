package skills

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestReadFolder(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"SKILL.md":           skillMD("pdf", "Work with PDFs", "body"),
		"references/FORM.md": "form",
		"empty.txt":          "",
	})
	files, err := ReadFolder(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for p, b := range files {
		got = append(got, p+"="+string(b))
	}
	slices.Sort(got)
	want := []string{"SKILL.md=" + skillMD("pdf", "Work with PDFs", "body"), "empty.txt=", "references/FORM.md=form"}
	if !slices.Equal(got, want) {
		t.Errorf("files %q, want %q", got, want)
	}

	for name, c := range map[string]struct {
		files map[string]string
		want  string
	}{
		"no SKILL.md": {map[string]string{"README.md": "x"}, "has no SKILL.md"},
		"too many":    {manyFiles(MaxFiles + 1), "has more than 512 files"},
	} {
		d := t.TempDir()
		writeFiles(t, d, c.files)
		if _, err := ReadFolder(d); err == nil || !strings.HasPrefix(err.Error(), "skill folder: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want skill folder: ...%s", name, err, c.want)
		}
	}
	if _, err := ReadFolder(filepath.Join(dir, "missing")); err == nil || !strings.HasPrefix(err.Error(), "skill folder: ") {
		t.Errorf("a missing folder: %v", err)
	}
}

func manyFiles(n int) map[string]string {
	m := map[string]string{"SKILL.md": skillMD("many", "x", "")}
	for i := len(m); i < n; i++ {
		m["f"+strconv.Itoa(i)] = ""
	}
	return m
}

func TestFolders(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"b/SKILL.md":     skillMD("b", "x", ""),
		"a/SKILL.md":     skillMD("a", "x", ""),
		"notes/README":   "not a skill",
		"loose-file.txt": "",
	})
	os.MkdirAll(filepath.Join(root, "dir/SKILL.md"), 0o755) // a folder named SKILL.md is no skill
	got, err := Folders(root)
	if want := []string{filepath.Join(root, "a"), filepath.Join(root, "b")}; err != nil || !slices.Equal(got, want) {
		t.Errorf("Folders: %q, %v; want %q", got, err, want)
	}
	if _, err := Folders(filepath.Join(root, "missing")); err == nil || !strings.HasPrefix(err.Error(), "skills folder: ") {
		t.Errorf("a missing folder: %v", err)
	}
}

func TestReadSkillFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "SKILL.md")
	writeFiles(t, dir, map[string]string{"SKILL.md": "doc"})
	if b, err := ReadSkillFile(p); err != nil || string(b) != "doc" {
		t.Errorf("ReadSkillFile: %q, %v", b, err)
	}
	big := filepath.Join(dir, "big.md")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, MaxSkillBytes+1); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadSkillFile(big); err == nil || !strings.Contains(err.Error(), "skill file: ") || !strings.Contains(err.Error(), "is larger than") {
		t.Errorf("a file over the limit: %v", err)
	}
	if _, err := ReadSkillFile(filepath.Join(dir, "missing.md")); err == nil || !strings.HasPrefix(err.Error(), "skill file: ") {
		t.Errorf("a missing file: %v", err)
	}
}
