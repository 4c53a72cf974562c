//go:build unix

package agent

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/hub"
	"github.com/luagent/luagent/runtime/llm"
	"github.com/luagent/luagent/runtime/testkit"
)

// cachedEntry runs runtime/hub's testdata/cached.lua behind a gate (see
// runtime/hub's cache_test.go): the variant picks its tools.
func cachedEntry(t testing.TB, gate, variant string) *catalog.Server {
	bin := testkit.Build(t, "cmd/luagent")
	script, _ := filepath.Abs("../hub/testdata/cached.lua")
	return &catalog.Server{Name: "c", Enabled: true, Command: "sh",
		Args:           []string{"-c", `cat "$GATE" >/dev/null; exec "$0" serve "$1"`, bin, script},
		Env:            map[string]catalog.EnvValue{"GATE": {Value: gate}, "VARIANT": {Value: variant}},
		StartupTimeout: 30 * time.Second}
}

// issue 32: the agent's first request offers a starting server's cached
// tools; when the server lists them differently once started, the turn's
// tool results carry a note naming what changed and what is gone, and the
// next request lists the tools as they are.
func TestContractChangeNote(t *testing.T) {
	dir := t.TempDir()
	warm := startHub(t, hub.Options{CacheDir: dir}, cachedEntry(t, "/dev/null", "a"))
	warm.Close()

	gate := filepath.Join(t.TempDir(), "gate")
	if err := syscall.Mkfifo(gate, 0o600); err != nil {
		t.Fatal(err)
	}
	h := hub.New([]*catalog.Server{cachedEntry(t, gate, "b")}, hub.Options{CacheDir: dir})
	t.Cleanup(func() { h.Close() })
	h.Start()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	h.WaitListed(ctx)

	same := tc("c__same", `{}`)
	first := func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		go func() { // the server starts once the model has asked
			if f, err := os.OpenFile(gate, os.O_WRONLY, 0); err == nil {
				f.Close()
			}
		}()
		return calls(same)(ctx, req)
	}
	m := script(first, answer("ok"))
	if _, _, err := New(Config{Model: m, Hub: h, Yes: true, Approve: func(context.Context, Call) (Decision, string) { return Allow, "test" }}).Ask(ctx, "use the cached tools"); err != nil {
		t.Fatal(err)
	}
	reqs := m.requests()
	if !slices.Contains(toolNames(reqs[0]), "c__gone") {
		t.Fatalf("first request's tools (the cache's): %v", toolNames(reqs[0]))
	}
	r := partsText(toolMessage(t, reqs[1], same.ID))
	if !strings.Contains(r, "same b") || !strings.Contains(r, "changed: c__echo") || !strings.Contains(r, "no longer available: c__gone") {
		t.Fatalf("the tool result: %q", r)
	}
	if slices.Contains(toolNames(reqs[1]), "c__gone") {
		t.Errorf("the next request still offers the removed tool: %v", toolNames(reqs[1]))
	}
}
