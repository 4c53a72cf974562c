package main

import (
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/luagent/luagent/"

// pkgInfo is one package as `go list` sees it.
type pkgInfo struct {
	rel, name, doc     string
	deps, imports, tst []string // tst: the test files' imports
}

func listPackages(t *testing.T) []pkgInfo {
	t.Helper()
	out, err := exec.Command("go", "list", "-f",
		"{{.ImportPath}}\t{{.Name}}\t{{join .Deps \" \"}}\t{{join .Imports \" \"}}\t{{join .TestImports \" \"}} {{join .XTestImports \" \"}}\t{{.Doc}}",
		module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkgInfo
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 6 {
			t.Fatalf("go list line %q", line)
		}
		pkgs = append(pkgs, pkgInfo{rel: strings.TrimPrefix(f[0], module), name: f[1], deps: strings.Fields(f[2]),
			imports: strings.Fields(f[3]), tst: strings.Fields(f[4]), doc: f[5]})
	}
	return pkgs
}

// The dependency rules: cmd -> luabind -> runtime; no runtime package
// imports gopher-lua (a Go program can use runtime/ alone); no Lua module
// package imports another; the command line holds no Lua (it asks luabind
// for what Lua does); the user interface (chat, tui, render) reaches
// servers through the hub and the agent, never through a transport.
func TestLayering(t *testing.T) {
	const lua = "github.com/yuin/gopher-lua"
	ui := []string{"runtime/chat", "runtime/tui", "runtime/render"}
	wire := []string{"runtime/transport", "runtime/jsonrpc"}
	for _, p := range listPackages(t) {
		for _, d := range p.deps {
			drel := strings.TrimPrefix(d, module)
			switch {
			case strings.HasPrefix(p.rel, "runtime/") && (d == lua || strings.HasPrefix(drel, "luabind/")):
				t.Errorf("%s imports %s: runtime/ must not depend on Lua", p.rel, d)
			case strings.HasPrefix(p.rel, "luabind/") && strings.HasPrefix(drel, "cmd/"):
				t.Errorf("%s imports %s", p.rel, d)
			case strings.HasPrefix(p.rel, "luabind/mod/") && strings.HasPrefix(drel, "luabind/mod/") && !strings.HasPrefix(drel, p.rel):
				t.Errorf("%s imports %s: modules must not import each other", p.rel, d)
			}
		}
		if strings.HasPrefix(p.rel, "runtime/") {
			for _, d := range p.tst {
				if d == lua || strings.HasPrefix(d, lua+"/") || strings.HasPrefix(d, module+"luabind/") {
					t.Errorf("%s's tests import %s: runtime/ has no Lua, not even in its tests", p.rel, d)
				}
			}
		}
		if strings.HasPrefix(p.rel, "cmd/") {
			for _, d := range append(append([]string{}, p.imports...), p.tst...) {
				if d == lua || strings.HasPrefix(d, lua+"/") {
					t.Errorf("%s imports gopher-lua: the command line asks luabind, it holds no Lua", p.rel)
				}
			}
		}
		for _, u := range ui {
			if p.rel != u && !strings.HasPrefix(p.rel, u+"/") {
				continue
			}
			for _, d := range p.imports {
				for _, w := range wire {
					if drel := strings.TrimPrefix(d, module); drel == w || strings.HasPrefix(drel, w+"/") {
						t.Errorf("%s imports %s: the interface reaches servers through the hub and the agent", p.rel, d)
					}
				}
			}
		}
	}
}

// Every library package says in its doc comment what it holds: the
// answer to "where is X" is one `go doc` away.
func TestEveryPackageSaysWhatItHolds(t *testing.T) {
	for _, p := range listPackages(t) {
		if p.name == "main" || strings.HasPrefix(p.rel, "scripts/") {
			continue
		}
		if strings.TrimSpace(p.doc) == "" {
			t.Errorf("%s has no package doc comment", p.rel)
		}
	}
}

// The repository's top level is the user's: the code's four roots, the
// scripts, the examples and the build files; everything else lives under
// one of them.
func TestTopLevel(t *testing.T) {
	out, err := exec.Command("git", "-C", filepath.Join("..", ".."), "ls-files").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	allowed := map[string]bool{"cmd": true, "runtime": true, "luabind": true, "stdlib": true, "scripts": true,
		"examples": true, "go.mod": true, "go.sum": true, "Makefile": true, "README.md": true}
	seen := map[string]bool{}
	for _, f := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		top, _, _ := strings.Cut(f, "/")
		if !allowed[top] && !strings.HasPrefix(top, ".") {
			seen[top] = true
		}
	}
	var extra []string
	for k := range seen {
		extra = append(extra, k)
	}
	sort.Strings(extra)
	if len(extra) > 0 {
		t.Errorf("top level has %v: move them under cmd, runtime, luabind, stdlib, scripts or examples", extra)
	}
}
