// Package skilltest is the skills fixture of luagent's tests: the skills
// server (internal/testserver/skills) over its testdata folder, which
// publishes pdf-processing (with references/FORMS.md) and evil (its
// SKILL.md tampered with), and a luagent home with one local skill.
package skilltest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/luagent/luagent/internal/testbin"
)

// Dir is the folder of skills the server publishes.
func Dir() string {
	return filepath.Join(testbin.Root(), "internal", "testserver", "skills", "testdata")
}

// Server is the server's command line; it appends what it receives to
// log.
func Server(t testing.TB) (command string, args []string, log string) {
	log = filepath.Join(t.TempDir(), "wire.log")
	return testbin.Build(t, "internal/testserver/skills"), []string{"-dir", Dir(), "-tamper", "evil", "-log", log}, log
}

// Home is a luagent home with one skill, notes ("Take meeting notes"),
// and its file templates/meeting.md ("# Meeting\n").
func Home(t testing.TB) string {
	t.Helper()
	home := t.TempDir()
	dir := filepath.Join(home, "skills", "notes")
	for name, content := range map[string]string{
		"SKILL.md":             "---\nname: notes\ndescription: Take meeting notes\n---\nUse templates/meeting.md.\n",
		"templates/meeting.md": "# Meeting\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return home
}
