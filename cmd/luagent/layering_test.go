package main

import (
	"os/exec"
	"strings"
	"testing"
)

// The dependency rules of DESIGN.md: cmd -> luabind -> runtime; no runtime
// package imports gopher-lua (a Go program can use runtime/ alone); no Lua
// module package imports another.
func TestLayering(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}: {{join .Deps \" \"}}", "github.com/luagent/luagent/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const mod = "github.com/luagent/luagent/"
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, deps, _ := strings.Cut(line, ": ")
		rel := strings.TrimPrefix(pkg, mod)
		for _, d := range strings.Fields(deps) {
			drel := strings.TrimPrefix(d, mod)
			switch {
			case strings.HasPrefix(rel, "runtime/") && (d == "github.com/yuin/gopher-lua" || strings.HasPrefix(drel, "luabind/")):
				t.Errorf("%s imports %s: runtime/ must not depend on Lua", rel, d)
			case strings.HasPrefix(rel, "luabind/") && strings.HasPrefix(drel, "cmd/"):
				t.Errorf("%s imports %s", rel, d)
			case strings.HasPrefix(rel, "luabind/mod/") && strings.HasPrefix(drel, "luabind/mod/") && !strings.HasPrefix(drel, rel):
				t.Errorf("%s imports %s: modules must not import each other", rel, d)
			}
		}
	}
}

// The front half's rules: no cmd file imports gopher-lua (the CLI reaches
// Lua through luabind), and the UI (runtime/chat, tui, render) never
// imports a transport or JSON-RPC itself: it sees servers through the hub.
func TestLayeringFront(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}: {{join .Imports \" \"}}", "github.com/luagent/luagent/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const mod = "github.com/luagent/luagent/"
	ui := []string{"runtime/chat", "runtime/tui", "runtime/render"}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, ": ")
		rel := strings.TrimPrefix(pkg, mod)
		isUI := false
		for _, u := range ui {
			isUI = isUI || rel == u || strings.HasPrefix(rel, u+"/")
		}
		for _, d := range strings.Fields(imports) {
			drel := strings.TrimPrefix(d, mod)
			switch {
			case strings.HasPrefix(rel, "cmd/") && d == "github.com/yuin/gopher-lua":
				t.Errorf("%s imports %s: the CLI reaches Lua through luabind", rel, d)
			case isUI && (strings.HasPrefix(drel, "runtime/transport") || drel == "runtime/jsonrpc"):
				t.Errorf("%s imports %s: the UI sees servers through the hub", rel, d)
			}
		}
	}
}
