package servercache

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/mcp"
	"github.com/luagent/luagent/runtime/privfile"
)

func entry(n int) Entry {
	var tools []json.RawMessage
	for i := range n {
		tools = append(tools, json.RawMessage(fmt.Sprintf(`{"name":"t%d","inputSchema":{"type":"object"}}`, i)))
	}
	return Entry{Server: mcp.Implementation{Name: "srv", Version: "1.0"}, Instructions: "be nice", Tools: tools}
}

func TestSaveLoad(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache", "servers")
	if _, _, ok := Load(dir, "k"); ok {
		t.Fatal("a missing file is a cache")
	}
	if err := Save(context.Background(), dir, "k", entry(3)); err != nil {
		t.Fatal(err)
	}
	e, _, ok := Load(dir, "k")
	if !ok || len(e.Tools) != 3 || e.Server.Version != "1.0" || e.Instructions != "be nice" || e.Format != Format {
		t.Fatalf("load = %+v, %v", e, ok)
	}
	tools, ok := e.Decode()
	if !ok || tools[2].Name != "t2" || string(tools[2].Raw) != string(e.Tools[2]) {
		t.Fatalf("decode = %+v, %v", tools, ok)
	}
	for _, p := range []string{dir, filepath.Join(dir, "k.json")} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		want := os.FileMode(0o600)
		if fi.IsDir() {
			want = 0o700
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", p, fi.Mode().Perm(), want)
		}
	}
}

func TestCorrupt(t *testing.T) {
	for _, tc := range []struct{ name, data string }{
		{"torn", `{"format":1,"server":{"name":"s"},"tools":[{"name":"a"`},
		{"not json", "\x00\x01garbage"},
		{"other format", `{"format":99,"tools":[]}`},
		{"no tools", `{"format":1}`},
		{"nameless tool", `{"format":1,"tools":[{"description":"x"}]}`},
		{"tool not an object", `{"format":1,"tools":[42]}`},
		{"empty", ``},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "k.json"), []byte(tc.data), 0o600); err != nil {
				t.Fatal(err)
			}
			if e, _, ok := Load(dir, "k"); ok {
				t.Fatalf("a corrupt file is a cache: %+v", e)
			}
			// and a save replaces it
			if err := Save(context.Background(), dir, "k", entry(1)); err != nil {
				t.Fatal(err)
			}
			if _, _, ok := Load(dir, "k"); !ok {
				t.Fatal("no cache after a save over a corrupt file")
			}
		})
	}
}

// TestConcurrent: writers and readers of one file at once (two runs
// sharing the cache): every read is a whole entry of one writer.
func TestConcurrent(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for range 10 {
				if err := Save(context.Background(), dir, "k", entry(w+1)); err != nil {
					t.Error(err)
					return
				}
			}
		})
		wg.Go(func() {
			for range 20 {
				e, _, ok := Load(dir, "k")
				if !ok {
					continue // before the first save
				}
				if n := len(e.Tools); n < 1 || n > 4 {
					t.Errorf("read %d tools: a mix of writes", n)
				}
			}
		})
	}
	wg.Wait()
	if _, _, ok := Load(dir, "k"); !ok {
		t.Fatal("no cache after the writes")
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".k.json.tmp-*"))
	if len(left) > 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}

func TestKey(t *testing.T) {
	base := func() *catalog.Server {
		return &catalog.Server{Name: "a", Command: "npx", Args: []string{"-y", "pkg"},
			Env: map[string]catalog.EnvValue{"TOKEN": {Value: "secret1"}}}
	}
	k := Key(base())
	same := base()
	same.Name, same.Env = "b", map[string]catalog.EnvValue{"TOKEN": {Value: "another secret"}}
	if Key(same) != k {
		t.Error("the key depends on the entry's name or an env value")
	}
	for name, change := range map[string]func(*catalog.Server){
		"args":     func(s *catalog.Server) { s.Args = []string{"-y", "pkg@2"} },
		"command":  func(s *catalog.Server) { s.Command = "uvx" },
		"env name": func(s *catalog.Server) { s.Env["OTHER"] = catalog.EnvValue{Value: "x"} },
		"url":      func(s *catalog.Server) { s.URL = "https://example.com/mcp" },
		"cwd":      func(s *catalog.Server) { s.Cwd = "/tmp" },
	} {
		s := base()
		change(s)
		if Key(s) == k {
			t.Errorf("changing %s keeps the key", name)
		}
	}
}

func FuzzLoad(f *testing.F) {
	f.Add([]byte(`{"format":1,"server":{"name":"s","version":"1"},"tools":[{"name":"a"}]}`))
	f.Add([]byte(`{"format":1,"tools":[{"name":""}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "k.json"), data, 0o600); err != nil {
			t.Fatal(err)
		}
		if e, _, ok := Load(dir, "k"); ok {
			if _, ok := e.Decode(); !ok {
				t.Fatal("Load accepted an entry Decode refuses")
			}
		}
	})
}

// Same ignores when an entry was saved and its format, nothing else.
func TestSame(t *testing.T) {
	a, b := entry(2), entry(2)
	b.Saved, b.Format = b.Saved.Add(1), Format
	if !a.Same(&b) {
		t.Fatal("entries that differ only in Saved and Format differ")
	}
	for name, change := range map[string]func(e *Entry){
		"a tool":        func(e *Entry) { e.Tools[1] = json.RawMessage(`{"name":"t1"}`) },
		"one tool more": func(e *Entry) { e.Tools = append(e.Tools, e.Tools[0]) },
		"version":       func(e *Entry) { e.Server.Version = "1.1" },
		"instructions":  func(e *Entry) { e.Instructions = "" },
		"prompts":       func(e *Entry) { e.HasPrompts, e.Prompts = true, []json.RawMessage{json.RawMessage(`{"name":"p"}`)} },
		"a resource":    func(e *Entry) { e.Resources = []json.RawMessage{json.RawMessage(`{}`)} },
		"a template":    func(e *Entry) { e.Templates = []json.RawMessage{json.RawMessage(`{}`)} },
		"resources":     func(e *Entry) { e.HasResources = true },
	} {
		c := entry(2)
		change(&c)
		if a.Same(&c) || c.Same(&a) {
			t.Errorf("%s changed, and the entries are the same", name)
		}
	}
}

// Save's wait for the lock ends with its context.
func TestSaveLockEndsWithContext(t *testing.T) {
	dir := t.TempDir()
	unlock, err := privfile.Lock(context.Background(), filepath.Join(dir, "k.json.lock"))
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Save(ctx, dir, "k", entry(1)); err == nil {
		t.Fatal("saved while another holds the lock")
	}
	if _, _, ok := Load(dir, "k"); ok {
		t.Fatal("a file was written without the lock")
	}
}

// A server's own bytes (spaces, <>&) and the same values read back from
// the file are the same entry.
func TestSameAfterTheFile(t *testing.T) {
	dir := t.TempDir()
	e := entry(1)
	e.Tools = append(e.Tools, json.RawMessage(`{ "name": "t9", "description": "reads <path> & more" }`))
	e.Prompts = []json.RawMessage{json.RawMessage(`{"name" : "p"}`)}
	if err := Save(context.Background(), dir, "k", e); err != nil {
		t.Fatal(err)
	}
	back, _, ok := Load(dir, "k")
	if !ok || !e.Same(&back) {
		t.Errorf("an entry and itself read back differ: %s vs %s", e.Tools[1], back.Tools[1])
	}
}
