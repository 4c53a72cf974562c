// The skills fixture of luagent's tests: the skills
// server (runtime/testkit/servers/skills) over its testdata folder, which
// publishes pdf-processing (with references/FORMS.md) and evil (its
// SKILL.md tampered with), and a luagent home with one local skill.

package testkit

import (
	"os"
	"path/filepath"
	"testing"
)

// SkillDir is the folder of skills the server publishes.
func SkillDir() string {
	return filepath.Join(Root(), "runtime", "testkit", "servers", "skills", "testdata")
}

// SkillServer is the server's command line; it appends what it receives to
// log.
func SkillServer(t testing.TB) (command string, args []string, log string) {
	log = filepath.Join(t.TempDir(), "wire.log")
	return Build(t, "runtime/testkit/servers/skills"), []string{"-dir", SkillDir(), "-tamper", "evil", "-log", log}, log
}

// SkillHome is a luagent home with one skill, notes ("Take meeting notes"),
// and its file templates/meeting.md ("# Meeting\n").
func SkillHome(t testing.TB) string {
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
