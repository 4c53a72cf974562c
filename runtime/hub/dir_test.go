//go:build unix

package hub

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/testkit"
)

// Options.Dir is the folder of the servers whose entry names none; an
// entry's own cwd wins.
func TestDirIsTheServersFolder(t *testing.T) {
	bin := testkit.Build(t, "cmd/luagent")
	script, _ := filepath.Abs("testdata/alpha.lua")
	out := t.TempDir()
	entry := func(name, cwd string) *catalog.Server {
		return &catalog.Server{Name: name, Enabled: true, Command: "sh", Cwd: cwd,
			Args: []string{"-c", `pwd -P > "$OUT/$0"; exec "$1" serve "$2"`, name, bin, script},
			Env:  map[string]catalog.EnvValue{"OUT": {Value: out}}}
	}
	dir, own := t.TempDir(), t.TempDir()
	h := New([]*catalog.Server{entry("plain", ""), entry("own", own)}, Options{Dir: dir})
	defer h.Close()
	h.Start()
	h.Wait(ctx60(t))
	for name, want := range map[string]string{"plain": dir, "own": own} {
		b, err := os.ReadFile(filepath.Join(out, name))
		want, _ = filepath.EvalSymlinks(want)
		if err != nil || strings.TrimSpace(string(b)) != want {
			t.Errorf("%s ran in %q (%v), want %s", name, strings.TrimSpace(string(b)), err, want)
		}
	}
	for _, st := range h.Status() {
		if st.Status != Ready {
			t.Errorf("%s: %s %v", st.Name, st.Status, st.Err)
		}
	}
}
