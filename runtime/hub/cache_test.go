//go:build unix

package hub

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/mcp"
	"github.com/luagent/luagent/runtime/privfile"
	"github.com/luagent/luagent/runtime/servercache"
	"github.com/luagent/luagent/runtime/testkit"
	"github.com/luagent/luagent/runtime/transport"
)

// cachedServer is an entry running testdata/cached.lua behind a gate: the
// server starts once the file $GATE can be read to its end (/dev/null: at
// once; a FIFO: when the test opens it for writing and closes it). VARIANT
// picks its tools; "fail" makes its start fail. GATE and VARIANT are env
// values, so every variant shares one cache key.
func cachedServer(t testing.TB, name, gate, variant string) *catalog.Server {
	bin := testkit.Build(t, "cmd/luagent")
	script, _ := filepath.Abs("testdata/cached.lua")
	return &catalog.Server{Name: name, Enabled: true, Command: "sh",
		Args:           []string{"-c", `cat "$GATE" >/dev/null; if [ "$VARIANT" = x ]; then echo "cached: failing on purpose" >&2; exit 7; fi; exec "$0" serve "$1"`, bin, script},
		Env:            map[string]catalog.EnvValue{"GATE": {Value: gate}, "VARIANT": {Value: variant}},
		StartupTimeout: 30 * time.Second}
}

// gate is a FIFO a gated server waits on; open lets it start.
type gate string

func newGate(t testing.TB) gate {
	p := filepath.Join(t.TempDir(), "gate")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	return gate(p)
}

// open blocks until the server reads the gate, then lets it through.
func (g gate) open(t testing.TB) {
	f, err := os.OpenFile(string(g), os.O_WRONLY, 0)
	if err != nil {
		t.Error(err)
		return
	}
	f.Close()
}

// warm runs a hub over cfg to its end once, leaving its cache in dir.
func warm(t *testing.T, dir string, cfg *catalog.Server) {
	t.Helper()
	h := New([]*catalog.Server{cfg}, Options{CacheDir: dir})
	h.Start()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	h.Wait(ctx)
	if st := h.Status()[0]; st.Status != Ready {
		t.Fatalf("warm run: %s %v %q", st.Status, st.Err, st.Stderr)
	}
	h.Close()
	if _, _, ok := servercache.Load(dir, servercache.Key(cfg)); !ok {
		t.Fatal("no cache after a successful start")
	}
}

func ctx60(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// With a cache, a server still starting offers its cached tools and
// instructions at once: WaitListed returns while it is held at its gate;
// a call to one of its tools waits for it alone and answers.
func TestCacheOffersToolsWhileStarting(t *testing.T) {
	dir := t.TempDir()
	warm(t, dir, cachedServer(t, "c", "/dev/null", "a"))

	g := newGate(t)
	slow := New([]*catalog.Server{cachedServer(t, "c", string(g), "a"), luaServer(t, "alpha")}, Options{CacheDir: dir})
	defer slow.Close()
	slow.Start()
	ctx := ctx60(t)
	if err := slow.WaitListed(ctx); err != nil {
		t.Fatal(err)
	}
	st := byName(slow.Status())
	if st["c"].Status != Connecting || st["alpha"].Status != Ready {
		t.Fatalf("after WaitListed: c %s, alpha %s (alpha has no cache: it is waited for)", st["c"].Status, st["alpha"].Status)
	}
	tools, partial := slow.Tools()
	if partial || !slices.Contains(names(tools), "c__echo") || !slices.Contains(names(tools), "c__gone") {
		t.Fatalf("cached tools: partial %v, %v", partial, names(tools))
	}
	if ins := slow.Instructions()["c"]; ins != "Cached echoes (a)." {
		t.Errorf("cached instructions %q", ins)
	}
	if !slow.OffersResources("c") {
		t.Error("c's cached resources are not offered")
	}
	items, err := slow.Resources(ctx, "")
	if err != nil || !slices.ContainsFunc(items, func(it Item) bool { return it.Server == "c" && strings.Contains(string(it.Raw), "cached://note") }) {
		t.Errorf("cached resources: %d items, %v", len(items), err)
	}
	if items, err := slow.Prompts(ctx, "c"); err != nil || len(items) != 1 || !strings.Contains(string(items[0].Raw), `"hello"`) {
		t.Errorf("cached prompts: %v %v", items, err)
	}
	done := make(chan error, 1)
	go func() {
		r, err := slow.Call(ctx, "c__echo", json.RawMessage(`{"message":"x"}`), CallOptions{})
		if err == nil && r.Text() != "x" {
			err = errors.New("answer " + r.Text())
		}
		done <- err
	}()
	// The call is held by c alone: alpha answers meanwhile.
	if r, err := slow.Call(ctx, "alpha__echo", json.RawMessage(`{"message":"y"}`), CallOptions{}); err != nil || r.Text() != "y" {
		t.Fatalf("alpha while c starts: %v %v", r, err)
	}
	read := make(chan error, 1)
	go func() { // a read of a cached server's resource waits for it too
		r, err := slow.Read(ctx, "c", "cached://note")
		if err == nil && !strings.Contains(string(r), "note a") {
			err = errors.New("read " + string(r))
		}
		read <- err
	}()
	g.open(t)
	if err := <-done; err != nil {
		t.Fatalf("the call that waited for c: %v", err)
	}
	if err := <-read; err != nil {
		t.Fatalf("the read that waited for c: %v", err)
	}
	if got := byName(slow.Status())["c"].Status; got != Ready {
		t.Errorf("c is %s after answering", got)
	}
}

// A server whose fresh list differs from its cache is a changed contract:
// a call against the cached definition of a changed tool is refused
// (ErrSchemaChanged) until the tools are listed again; a removed tool is
// refused as not found (ErrToolRemoved); unchanged tools answer; the cache
// then holds the new list.
func TestCacheChangedContract(t *testing.T) {
	dir := t.TempDir()
	warm(t, dir, cachedServer(t, "c", "/dev/null", "a"))

	g := newGate(t)
	cfg := cachedServer(t, "c", string(g), "b")
	h := New([]*catalog.Server{cfg}, Options{CacheDir: dir})
	defer h.Close()
	h.Start()
	ctx := ctx60(t)
	h.WaitListed(ctx)
	tools, _ := h.Tools() // handed out from the cache: b is held at its gate
	if !slices.Contains(names(tools), "c__gone") {
		t.Fatalf("cached tools: %v", names(tools))
	}
	go g.open(t) // the call below waits for b's fresh list
	_, err := h.Call(ctx, "c__echo", json.RawMessage(`{"message":"x"}`), CallOptions{})
	if !errors.Is(err, ErrSchemaChanged) || errs.KindOf(err) != errs.Invalid || !strings.Contains(err.Error(), "cache") {
		t.Fatalf("changed tool: %v", err)
	}
	_, err = h.Call(ctx, "c__gone", nil, CallOptions{})
	if !errors.Is(err, ErrToolRemoved) || errs.KindOf(err) != errs.NotFound || !strings.Contains(err.Error(), "no longer lists gone") {
		t.Fatalf("removed tool: %v", err)
	}
	if r, err := h.Call(ctx, "c__same", nil, CallOptions{}); err != nil || r.Text() != "same b" {
		t.Fatalf("unchanged tool: %v %v", r, err)
	}
	tools, _ = h.Tools() // rediscovery
	if slices.Contains(names(tools), "c__gone") {
		t.Errorf("the removed tool is still listed: %v", names(tools))
	}
	if r, err := h.Call(ctx, "c__echo", json.RawMessage(`{"message":"x","loud":true}`), CallOptions{}); err != nil || r.Text() != "x" {
		t.Fatalf("after rediscovery: %v %v", r, err)
	}
	h.Close() // the cache is saved after Ready; Close waits for it
	e, _, ok := servercache.Load(dir, servercache.Key(cfg))
	if !ok || e.Server.Version != "2.0.0" || len(e.Tools) != 2 || len(e.Prompts) != 1 || len(e.Resources) != 1 {
		t.Fatalf("cache after the change: %+v %v", e.Server, ok)
	}
}

// A server whose start fails after a cached run: its cached tools are
// offered, a call to one fails with the start's error (its kind, its
// stderr in the state), and the tools are no longer listed.
func TestCacheStartFails(t *testing.T) {
	dir := t.TempDir()
	warm(t, dir, cachedServer(t, "c", "/dev/null", "a"))

	h := New([]*catalog.Server{cachedServer(t, "c", "/dev/null", "x"), luaServer(t, "alpha")}, Options{CacheDir: dir})
	defer h.Close()
	h.Start()
	ctx := ctx60(t)
	h.WaitListed(ctx)
	_, err := h.Call(ctx, "c__echo", json.RawMessage(`{"message":"x"}`), CallOptions{})
	st := byName(h.Status())["c"]
	if err == nil || st.Status != Failed {
		t.Fatalf("call: %v; status %s", err, st.Status)
	}
	if errs.KindOf(err) != errs.KindOf(st.Err) || !strings.Contains(err.Error(), "could not start") || !errors.Is(err, st.Err) {
		t.Fatalf("call error %v (kind %v), start error %v (kind %v)", err, errs.KindOf(err), st.Err, errs.KindOf(st.Err))
	}
	if !slices.Contains(st.Stderr, "cached: failing on purpose") {
		t.Errorf("stderr %q", st.Stderr)
	}
	if tools, _ := h.Tools(); slices.Contains(names(tools), "c__echo") {
		t.Errorf("a failed server's cached tools are still offered: %v", names(tools))
	}
	// The run goes on: the other server answers.
	if r, err := h.Call(ctx, "alpha__echo", json.RawMessage(`{"message":"y"}`), CallOptions{}); err != nil || r.Text() != "y" {
		t.Fatalf("alpha after c failed: %v %v", r, err)
	}
}

// Two runs at once share the cache file: both start, both write, and the
// file left is whole.
func TestCacheTwoRuns(t *testing.T) {
	dir := t.TempDir()
	cfg := cachedServer(t, "c", "/dev/null", "a")
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			h := New([]*catalog.Server{cachedServer(t, "c", "/dev/null", "a")}, Options{CacheDir: dir})
			defer h.Close()
			h.Start()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			h.Wait(ctx)
			if st := h.Status()[0]; st.Status != Ready {
				t.Errorf("run: %s %v", st.Status, st.Err)
			}
		})
	}
	wg.Wait()
	e, _, ok := servercache.Load(dir, servercache.Key(cfg))
	if !ok || len(e.Tools) != 3 {
		t.Fatalf("cache after two runs: %v, %d tools", ok, len(e.Tools))
	}
}

// A corrupt cache file is no cache: the run waits as on a first run, and
// the start replaces the file.
func TestCacheCorrupt(t *testing.T) {
	dir := t.TempDir()
	cfg := cachedServer(t, "c", "/dev/null", "a")
	os.MkdirAll(dir, 0o700)
	path := filepath.Join(dir, servercache.Key(cfg)+".json")
	if err := os.WriteFile(path, []byte(`{"format":1,"tools":[{"name":"ec`), 0o600); err != nil {
		t.Fatal(err)
	}
	h := New([]*catalog.Server{cfg}, Options{CacheDir: dir})
	defer h.Close()
	h.Start()
	if tools, partial := h.Tools(); len(tools) != 0 || !partial {
		t.Fatalf("tools from a corrupt cache: %v (partial %v)", names(tools), partial)
	}
	h.WaitListed(ctx60(t))
	if st := h.Status()[0]; st.Status != Ready {
		t.Fatalf("WaitListed returned with c %s: a corrupt cache must be waited for", st.Status)
	}
	h.Close() // the cache is saved after Ready; Close waits for it
	if _, _, ok := servercache.Load(dir, servercache.Key(cfg)); !ok {
		t.Fatal("the corrupt file was not replaced")
	}
}

// "startup": "lazy": with no cache it starts to learn its tools; with one
// it is not started, its cached tools are offered, and its first call
// starts it.
func TestLazyStartup(t *testing.T) {
	dir := t.TempDir()
	cfg := cachedServer(t, "c", "/dev/null", "a")
	cfg.Startup = catalog.StartupLazy
	warm(t, dir, cfg) // no cache yet: started like an eager one

	g := newGate(t)
	lazy := cachedServer(t, "c", string(g), "a")
	lazy.Startup = catalog.StartupLazy
	var starts int
	var mu sync.Mutex
	h := New([]*catalog.Server{lazy}, Options{CacheDir: dir, Configure: func(*catalog.Server, *mcp.Options) {
		mu.Lock()
		starts++
		mu.Unlock()
	}})
	defer h.Close()
	h.Start()
	ctx := ctx60(t)
	h.Wait(ctx) // nothing is connecting
	if st := h.Status()[0]; st.Status != Stopped {
		t.Fatalf("a lazy server with a cache is %s before any call", st.Status)
	}
	mu.Lock()
	n := starts
	mu.Unlock()
	if n != 0 {
		t.Fatalf("a lazy server was started %d times before any call", n)
	}
	if tools, partial := h.Tools(); partial || len(tools) != 3 {
		t.Fatalf("lazy server's cached tools: %v (partial %v)", names(tools), partial)
	}
	done := make(chan error, 1)
	go func() {
		_, err := h.Call(ctx, "c__same", nil, CallOptions{})
		done <- err
	}()
	g.open(t) // the call started it: it reads its gate
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if st := h.Status()[0]; st.Status != Ready {
		t.Fatalf("after its first call: %s", st.Status)
	}
}

// At exit, a server that never finished starting is killed at once,
// without the graceful shutdown's grace.
func TestCloseKillsNeverStarted(t *testing.T) {
	g := newGate(t) // never opened: the server never starts
	h := New([]*catalog.Server{cachedServer(t, "c", string(g), "a")}, Options{})
	ch, cancel := events(h)
	defer cancel()
	h.Start()
	until(t, ch, "c connecting", func(e Event) bool { return e.State.Status == Connecting })
	start := time.Now()
	h.Close()
	if d := time.Since(start); d >= transport.DefaultShutdownGrace {
		t.Fatalf("Close took %v: the never-started server got the grace (%v)", d, transport.DefaultShutdownGrace)
	}
}

// A server is Ready without waiting for its cache to be written: while
// another run holds the cache file's lock, the start ends, and the save
// waits for the lock after it; Close waits for the save.
func TestCacheSavedAfterReady(t *testing.T) {
	old := saveWait
	saveWait = time.Minute
	t.Cleanup(func() { saveWait = old })
	dir := t.TempDir()
	cfg := cachedServer(t, "c", "/dev/null", "a")
	unlock, err := privfile.Lock(context.Background(), filepath.Join(dir, servercache.Key(cfg)+".json.lock"))
	if err != nil {
		t.Fatal(err)
	}
	h := New([]*catalog.Server{cfg}, Options{CacheDir: dir})
	h.Start()
	h.Wait(ctx60(t))
	if st := h.Status()[0]; st.Status != Ready {
		t.Fatalf("with the cache locked: %s %v", st.Status, st.Err)
	}
	if _, _, ok := servercache.Load(dir, servercache.Key(cfg)); ok {
		t.Fatal("a cache was written while another run held its lock")
	}
	unlock()
	h.Close()
	if _, tools, ok := servercache.Load(dir, servercache.Key(cfg)); !ok || len(tools) != 3 {
		t.Fatalf("after the lock was let go and Close: cache %v, %d tools", ok, len(tools))
	}
}

// A server that lists what its cache holds leaves the file as it is (no
// write, no fsync at every start); one that changed replaces it.
func TestCacheUnchangedNotRewritten(t *testing.T) {
	dir := t.TempDir()
	cfg := cachedServer(t, "c", "/dev/null", "a")
	warm(t, dir, cfg)
	path := filepath.Join(dir, servercache.Key(cfg)+".json")
	inode := func() uint64 {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Sys().(*syscall.Stat_t).Ino
	}
	first := inode()
	warm(t, dir, cfg)
	if inode() != first {
		t.Error("an unchanged server's cache was written again")
	}
	warm(t, dir, cachedServer(t, "c", "/dev/null", "b"))
	if inode() == first {
		t.Error("a changed server's cache was not replaced")
	}
	if e, tools, _ := servercache.Load(dir, servercache.Key(cfg)); e.Server.Version != "2.0.0" || len(tools) != 2 {
		t.Errorf("after the change: version %q, %d tools", e.Server.Version, len(tools))
	}
}

// BenchmarkStartReadyCached: from Start to Ready for one Lua server with
// tools, prompts and a resource, its cache warm (Close not timed): what a
// call to its tool waits for.
func BenchmarkStartReadyCached(b *testing.B) {
	dir := b.TempDir()
	cfg := cachedServer(b, "c", "/dev/null", "a")
	h := New([]*catalog.Server{cfg}, Options{CacheDir: dir})
	h.Start()
	h.Wait(context.Background())
	h.Close()
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		h := New([]*catalog.Server{cfg}, Options{CacheDir: dir})
		h.Start()
		if err := h.Wait(ctx); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if st := h.Status()[0]; st.Status != Ready {
			b.Fatalf("%s %v", st.Status, st.Err)
		}
		h.Close()
		b.StartTimer()
	}
}
