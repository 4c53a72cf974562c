package hub

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/testkit"
)

// The hub over the npm reference servers (stdio) and the Go SDK over
// Streamable HTTP: one catalog, qualified names, search, calls, resources
// and prompts across them.
func TestInterop(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "hello.txt"), []byte("hello from the filesystem\n"), 0o644)
	ecmd, eargs := testkit.Everything(t)
	fcmd, fargs := testkit.Filesystem(t, root)
	gosdk := testkit.GoSDKHTTP(t, "modern", true)
	h := New([]*catalog.Server{
		{Name: "everything", Enabled: true, Command: ecmd, Args: eargs, StartupTimeout: time.Minute},
		{Name: "fs", Enabled: true, Command: fcmd, Args: fargs, StartupTimeout: time.Minute},
		{Name: "gosdk", Enabled: true, URL: gosdk, StartupTimeout: time.Minute},
	}, Options{})
	defer h.Close()
	h.Start()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := h.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	for _, s := range h.Status() {
		if s.Status != Ready || s.Tools == 0 {
			t.Fatalf("%s: %s (%d tools) %v %q", s.Name, s.Status, s.Tools, s.Err, s.Stderr)
		}
	}
	tools, _ := h.Tools()
	for _, want := range []string{"everything__echo", "fs__read_text_file"} {
		if !slices.Contains(names(tools), want) {
			t.Errorf("no %s in %v", want, names(tools))
		}
	}
	for _, tl := range tools {
		if !ValidName(tl.Name) {
			t.Errorf("invalid qualified name %q", tl.Name)
		}
	}
	if got, _ := h.Search("read file contents", SearchOptions{Server: "fs", Limit: 3}); len(got) == 0 || !strings.Contains(got[0].Name, "read") {
		t.Errorf("search fs: %v", names(got))
	}
	r, err := h.Call(ctx, "everything__echo", json.RawMessage(`{"message":"hub"}`), CallOptions{})
	if err != nil || !strings.Contains(r.Text(), "hub") {
		t.Fatalf("everything echo: %v %v", r, err)
	}
	r, err = h.Call(ctx, "fs__read_text_file", json.RawMessage(`{"path":`+quote(filepath.Join(root, "hello.txt"))+`}`), CallOptions{})
	if err != nil || !strings.Contains(r.Text(), "hello from the filesystem") {
		t.Fatalf("fs read: %v %v", r, err)
	}
	r, err = h.Call(ctx, "gosdk__echo", json.RawMessage(`{"message":"over http"}`), CallOptions{})
	if err != nil || !strings.Contains(r.Text(), "over http") {
		t.Fatalf("Go SDK echo: %v %v", r, err)
	}
	if raw, err := h.Read(ctx, "gosdk", "test://static"); err != nil || len(raw) == 0 {
		t.Fatalf("Go SDK read: %s %v", raw, err)
	}
	res, err := h.Resources(ctx, "everything")
	if err != nil || len(res) == 0 {
		t.Fatalf("everything resources: %d %v", len(res), err)
	}
	if _, err := h.Prompts(ctx, ""); err != nil {
		t.Fatalf("prompts: %v", err)
	}
}
