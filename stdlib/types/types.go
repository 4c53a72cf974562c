// Package types holds luagent's type stubs for editors: `---@meta` files in
// lua-language-server's annotation format, one per built-in module (json,
// task, log, env, inspect, help, mcp, agent, and luagent.lua for the
// shapes they share), embedded in the binary and written out by
// `luagent --types DIR`. luagent never loads them; they describe what the
// bindings in luabind/mod and stdlib/*.lua define, and a test compares
// their names with the modules' real fields.
package types

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

//go:embed *.lua header.txt
var files embed.FS

// LuarcExample is the file Write adds beside the stubs: a .luarc.json that
// points lua-language-server at them.
const LuarcExample = "luarc.example.json"

// Names returns the stub files' names, sorted ("agent.lua", ...).
func Names() []string {
	entries, _ := fs.Glob(files, "*.lua")
	sort.Strings(entries)
	return entries
}

// File returns a stub as Write writes it: the shared header (what the
// files are, the naming rule) inserted after its `---@meta` line.
func File(name string) ([]byte, error) {
	body, err := files.ReadFile(name)
	if err != nil {
		return nil, err
	}
	header, err := files.ReadFile("header.txt")
	if err != nil {
		return nil, err
	}
	first, rest, _ := bytes.Cut(body, []byte("\n"))
	out := make([]byte, 0, len(body)+len(header)+2)
	out = append(append(out, first...), '\n')
	out = append(out, header...)
	return append(out, rest...), nil
}

// Luarc returns a .luarc.json whose workspace.library is dir.
func Luarc(dir string) []byte {
	cfg := map[string]any{
		"runtime":   map[string]any{"version": "Lua 5.1"},
		"workspace": map[string]any{"library": []string{filepath.ToSlash(dir)}},
	}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	return append(b, '\n')
}

// Write creates dir (and its parents) and writes every stub into it, then
// LuarcExample, replacing files of those names. It returns the paths
// written; an error names the path that failed.
func Write(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var written []string
	put := func(name string, b []byte) error {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
		written = append(written, p)
		return nil
	}
	for _, name := range Names() {
		b, err := File(name)
		if err != nil {
			return written, fmt.Errorf("stub %s: %w", name, err)
		}
		if err := put(name, b); err != nil {
			return written, err
		}
	}
	if err := put(LuarcExample, Luarc(dir)); err != nil {
		return written, err
	}
	return written, nil
}
