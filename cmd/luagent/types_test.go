package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luagent/luagent/stdlib/types"
)

// luagent --types DIR writes every stub, each a Lua chunk, and a
// .luarc.json example that points lua-language-server at DIR.
func TestTypesFlag(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "project", ".luagent", "types")
	r := luagent(t, "", nil, "--types", dir)
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "workspace") || !strings.Contains(r.stdout, dir) {
		t.Errorf("stdout does not say how to use the stubs: %q", r.stdout)
	}
	names := types.Names()
	if len(names) < 8 {
		t.Fatalf("only %d stubs: %v", len(names), names)
	}
	for _, n := range names {
		// The binary compiles each stub (loadfile parses, runs nothing).
		if r := luagent(t, "", nil, "-e", "assert(loadfile(...))", "--", filepath.Join(dir, n)); r.code != 0 {
			t.Errorf("%s does not parse: %s", n, r.stderr)
		}
	}
	raw, err := os.ReadFile(filepath.Join(dir, types.LuarcExample))
	if err != nil {
		t.Fatal(err)
	}
	var luarc struct {
		Runtime   struct{ Version string }
		Workspace struct{ Library []string }
	}
	if err := json.Unmarshal(raw, &luarc); err != nil {
		t.Fatalf("%s: %v", types.LuarcExample, err)
	}
	if luarc.Runtime.Version != "Lua 5.1" || len(luarc.Workspace.Library) != 1 || luarc.Workspace.Library[0] != filepath.ToSlash(dir) {
		t.Errorf("%s = %s", types.LuarcExample, raw)
	}
	// Again over the same folder: the stubs are replaced.
	if r := luagent(t, "", nil, "--types="+dir); r.code != 0 {
		t.Errorf("a second --types: exit %d, %q", r.code, r.stderr)
	}
}

func TestTypesFlagErrors(t *testing.T) {
	r := luagent(t, "", nil, "--types")
	if r.code != 2 || !strings.Contains(r.stderr, "--types needs a folder") {
		t.Errorf("--types alone: exit %d, %q", r.code, r.stderr)
	}
	file := writeFile(t, t.TempDir(), "plain", "not a folder")
	r = luagent(t, "", nil, "--types", filepath.Join(file, "types"))
	if r.code != 1 || !strings.Contains(r.stderr, "cannot write the stubs") || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
		t.Errorf("an unwritable folder: exit %d, %q", r.code, r.stderr)
	}
	noGoStack(t, r.stderr)
	if r := luagent(t, "", nil, "--help"); !strings.Contains(r.stdout, "--types DIR") {
		t.Errorf("--help does not list --types:\n%s", r.stdout)
	}
}
