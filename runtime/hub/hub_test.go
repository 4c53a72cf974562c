package hub

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/mcp"
	"github.com/luagent/luagent/runtime/oauth/store"
	"github.com/luagent/luagent/runtime/testkit"
)

// luaServer is an entry running testdata/alpha.lua with luagent serve.
func luaServer(t testing.TB, name string) *catalog.Server {
	bin := testkit.Build(t, "cmd/luagent")
	script, _ := filepath.Abs("testdata/alpha.lua")
	return &catalog.Server{Name: name, Enabled: true, Command: bin, Args: []string{"serve", script}, StartupTimeout: 30 * time.Second}
}

func shServer(name, script string, timeout time.Duration) *catalog.Server {
	return &catalog.Server{Name: name, Enabled: true, Command: "sh", Args: []string{"-c", script}, StartupTimeout: timeout}
}

// unauthorized is an HTTP MCP endpoint that wants a token it never gets.
func unauthorized(t testing.TB) string {
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/.well-known/oauth-protected-resource/mcp" {
			json.NewEncoder(w).Encode(map[string]any{"resource": srv.URL + "/mcp", "authorization_servers": []string{srv.URL}})
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+srv.URL+`/.well-known/oauth-protected-resource/mcp"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// events collects a hub's events on a channel.
func events(h *Hub) (<-chan Event, func()) {
	ch := make(chan Event, 256)
	cancel := h.Subscribe(func(e Event) { ch <- e })
	return ch, cancel
}

// until reads events until ok says so.
func until(t *testing.T, ch <-chan Event, what string, ok func(Event) bool) Event {
	t.Helper()
	timeout := time.After(60 * time.Second)
	for {
		select {
		case e := <-ch:
			if ok(e) {
				return e
			}
		case <-timeout:
			t.Fatalf("no event: %s", what)
		}
	}
}

func byName(states []State) map[string]State {
	m := map[string]State{}
	for _, s := range states {
		m[s.Name] = s
	}
	return m
}

func names(tools []Tool) []string {
	var out []string
	for _, t := range tools {
		out = append(out, t.Name)
	}
	return out
}

// The hub: five servers of which one never answers, one crashes
// at start, one needs OAuth and two work. Wait returns in bounded time with
// the right statuses; no browser opens for the OAuth one.
func TestFiveServers(t *testing.T) {
	servers := []*catalog.Server{
		luaServer(t, "alpha"),
		shServer("silent", "exec cat >/dev/null", 2*time.Second),
		shServer("crash", "echo 'boom: no config file' >&2; exit 3", 10*time.Second),
		{Name: "remote", Enabled: true, URL: unauthorized(t), StartupTimeout: 10 * time.Second},
		luaServer(t, "beta"),
		{Name: "off", Command: "does-not-exist"},
	}
	browsed := false
	h := New(servers, Options{Store: store.New(filepath.Join(t.TempDir(), "creds")), Browse: func(context.Context, string) (string, error) {
		browsed = true
		return "", errors.New("no browser in tests")
	}})
	defer h.Close()
	if got := byName(h.Status())["off"].Status; got != Disabled {
		t.Errorf("off: %s before start, want disabled", got)
	}
	start := time.Now()
	h.Start()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := h.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("Wait took %v", d)
	}
	st := byName(h.Status())
	for name, want := range map[string]Status{"alpha": Ready, "beta": Ready, "silent": Failed, "crash": Failed, "remote": NeedsAuth, "off": Disabled} {
		if st[name].Status != want {
			t.Errorf("%s: %s (%v), want %s", name, st[name].Status, st[name].Err, want)
		}
	}
	if k := errs.KindOf(st["silent"].Err); k != errs.Timeout {
		t.Errorf("silent: kind %s: %v", k, st["silent"].Err)
	}
	if k := errs.KindOf(st["crash"].Err); k != errs.Process {
		t.Errorf("crash: kind %s: %v", k, st["crash"].Err)
	}
	if !slices.Contains(st["crash"].Stderr, "boom: no config file") || !strings.Contains(st["crash"].Err.Error(), "boom") {
		t.Errorf("crash: stderr %q, error %v", st["crash"].Stderr, st["crash"].Err)
	}
	if err := st["remote"].Err; errs.KindOf(err) != errs.Auth || !strings.Contains(err.Error(), "luagent mcp login") || strings.Contains(err.Error(), "\n") {
		t.Errorf("remote: %v", err)
	}
	if browsed {
		t.Error("a background start ran the browser step")
	}
	if st["alpha"].Info.Instructions != "Alpha echoes." || h.Instructions()["beta"] != "Alpha echoes." {
		t.Errorf("instructions: %+v", h.Instructions())
	}
	tools, partial := h.Tools()
	if partial {
		t.Error("partial after Wait")
	}
	for _, want := range []string{"alpha__echo", "beta__echo", "alpha__grow"} {
		if !slices.Contains(names(tools), want) {
			t.Errorf("no %s in %v", want, names(tools))
		}
	}
	r, err := h.Call(ctx, "beta__echo", json.RawMessage(`{"message":"hi"}`), CallOptions{})
	if err != nil || r.Text() != "hi" {
		t.Fatalf("call: %v %v", r, err)
	}
	_, err = h.Call(ctx, "crash__anything", nil, CallOptions{})
	if errs.KindOf(err) != errs.NotFound || !strings.Contains(err.Error(), "failed") {
		t.Errorf("call on a failed server: %v", err)
	}
}

// The catalog is partial while a server is still connecting, and complete
// once it is not; a tools/list_changed refreshes it.
func TestPartialAndListChanged(t *testing.T) {
	h := New([]*catalog.Server{luaServer(t, "alpha"), shServer("silent", "exec cat >/dev/null", time.Hour)}, Options{})
	defer h.Close()
	ch, cancel := events(h)
	defer cancel()
	h.Start()
	until(t, ch, "alpha ready", func(e Event) bool { return e.State.Name == "alpha" && e.State.Status == Ready })
	tools, partial := h.Tools()
	if !partial || !slices.Contains(names(tools), "alpha__echo") {
		t.Fatalf("while silent connects: partial %v, %v", partial, names(tools))
	}
	if _, partial := h.Search("echo", SearchOptions{}); !partial {
		t.Error("search not partial while a server connects")
	}
	ctx := context.Background()
	if _, err := h.Call(ctx, "alpha__grow", nil, CallOptions{}); err != nil {
		t.Fatal(err)
	}
	until(t, ch, "alpha's tools refreshed", func(e Event) bool {
		return e.Kind == EventTools && e.State.Name == "alpha" && e.State.Tools == 8
	})
	if tools, _ := h.Tools(); !slices.Contains(names(tools), "alpha__extra") {
		t.Fatalf("after list_changed: %v", names(tools))
	}
	if r, err := h.Call(ctx, "alpha__extra", nil, CallOptions{}); err != nil || r.Text() != "extra" {
		t.Fatalf("extra: %v %v", r, err)
	}
	// Stopping the silent one completes the catalog.
	if err := h.Restart("silent"); err != nil {
		t.Fatal(err)
	}
	h.Reload([]*catalog.Server{h.servers["alpha"].cfg})
	if _, partial := h.Tools(); partial {
		t.Error("partial after the connecting server was removed")
	}
	if got := len(h.Status()); got != 1 {
		t.Errorf("%d servers after reload", got)
	}
}

// A tool whose schema changed after it was handed out is refused until it
// is listed again; a caller's explicit hash counts the same way.
func TestSchemaChanged(t *testing.T) {
	h := New([]*catalog.Server{luaServer(t, "alpha")}, Options{})
	defer h.Close()
	ch, cancel := events(h)
	defer cancel()
	h.Start()
	ctx := context.Background()
	h.Wait(ctx)
	old, ok := h.Tool("alpha__echo")
	if !ok {
		t.Fatal("no alpha__echo")
	}
	if _, err := h.Call(ctx, "alpha__reshape", nil, CallOptions{}); err != nil {
		t.Fatal(err)
	}
	until(t, ch, "refresh", func(e Event) bool { return e.Kind == EventTools })
	_, err := h.Call(ctx, "alpha__echo", json.RawMessage(`{"message":"x"}`), CallOptions{})
	if !errors.Is(err, ErrSchemaChanged) || errs.KindOf(err) != errs.Invalid || !strings.Contains(err.Error(), "list or search the tools again") {
		t.Fatalf("stale call: %v", err)
	}
	now, _ := h.Tool("alpha__echo") // rediscovered
	if now.SchemaHash == old.SchemaHash || !strings.Contains(string(now.Def.InputSchema), "loud") {
		t.Fatalf("hash %s -> %s, schema %s", old.SchemaHash, now.SchemaHash, now.Def.InputSchema)
	}
	if r, err := h.Call(ctx, "alpha__echo", json.RawMessage(`{"message":"x","loud":true}`), CallOptions{}); err != nil || r.Text() != "x" {
		t.Fatalf("after rediscovery: %v %v", r, err)
	}
	_, err = h.Call(ctx, "alpha__echo", json.RawMessage(`{"message":"x"}`), CallOptions{SchemaHash: old.SchemaHash})
	if !errors.Is(err, ErrSchemaChanged) {
		t.Errorf("explicit stale hash: %v", err)
	}
}

// maxConcurrentCalls: a call beyond it waits, and the wait counts in its
// timeout.
func TestMaxConcurrentCalls(t *testing.T) {
	cfg := luaServer(t, "alpha")
	cfg.MaxConcurrentCalls = 1
	h := New([]*catalog.Server{cfg}, Options{})
	defer h.Close()
	h.Start()
	ctx := context.Background()
	h.Wait(ctx)
	holding := make(chan struct{}, 1)
	done := make(chan string, 1)
	go func() {
		r, err := h.Call(ctx, "alpha__hold", nil, CallOptions{CallOptions: mcp.CallOptions{Progress: func(mcp.Progress) {
			select {
			case holding <- struct{}{}:
			default:
			}
		}}})
		if err != nil {
			done <- err.Error()
			return
		}
		done <- r.Text()
	}()
	<-holding
	_, err := h.Call(ctx, "alpha__echo", json.RawMessage(`{"message":"x"}`), CallOptions{CallOptions: mcp.CallOptions{Timeout: 200 * time.Millisecond}})
	if errs.KindOf(err) != errs.Timeout || !strings.Contains(err.Error(), "maxConcurrentCalls") {
		t.Fatalf("second call: %v", err)
	}
	c, _ := h.Client("alpha")
	if _, err := c.CallTool(ctx, "release", nil, mcp.CallOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := <-done; got != "released" {
		t.Fatalf("held call: %s", got)
	}
	if r, err := h.Call(ctx, "alpha__echo", json.RawMessage(`{"message":"y"}`), CallOptions{}); err != nil || r.Text() != "y" {
		t.Fatalf("after the slot freed: %v %v", r, err)
	}
}

// Reload restarts changed entries only; Restart reconnects one; resources
// and prompts span the servers.
func TestReloadRestartAndLists(t *testing.T) {
	a, b := luaServer(t, "alpha"), luaServer(t, "beta")
	h := New([]*catalog.Server{a, b}, Options{})
	defer h.Close()
	h.Start()
	ctx := context.Background()
	h.Wait(ctx)
	ca, _ := h.Client("alpha")
	cb, _ := h.Client("beta")

	res, err := h.Resources(ctx, "")
	if err != nil || len(res) != 2 || res[0].Server != "alpha" || res[1].Server != "beta" {
		t.Fatalf("resources: %v %v", res, err)
	}
	if raw, err := h.Read(ctx, "beta", "alpha://greeting"); err != nil || !strings.Contains(string(raw), "hello") {
		t.Fatalf("read: %s %v", raw, err)
	}
	if ps, err := h.Prompts(ctx, "alpha"); err != nil || len(ps) != 1 {
		t.Fatalf("prompts: %v %v", ps, err)
	}
	if raw, err := h.Prompt(ctx, "alpha", "greet", map[string]string{"who": "Ada"}); err != nil || !strings.Contains(string(raw), "Hello, Ada!") {
		t.Fatalf("prompt: %s %v", raw, err)
	}
	if _, err := h.Read(ctx, "nope", "x://y"); errs.KindOf(err) != errs.NotFound {
		t.Errorf("read on an unknown server: %v", err)
	}

	b2 := *b
	b2.RequestTimeout = 7 * time.Second // changed
	a2 := *a                            // equal by value
	c := luaServer(t, "gamma")          // new
	h.Reload([]*catalog.Server{&a2, &b2, c})
	h.Wait(ctx)
	if got, _ := h.Client("alpha"); got != ca {
		t.Error("an unchanged entry was restarted")
	}
	if got, _ := h.Client("beta"); got == cb || got == nil {
		t.Error("a changed entry was not restarted")
	}
	if _, ok := h.Client("gamma"); !ok {
		t.Error("a new entry did not start")
	}
	if err := h.Restart("alpha"); err != nil {
		t.Fatal(err)
	}
	h.Wait(ctx)
	if got, _ := h.Client("alpha"); got == ca || got == nil {
		t.Error("Restart kept the old client")
	}
	if err := h.Restart("nope"); errs.KindOf(err) != errs.NotFound {
		t.Errorf("restart nope: %v", err)
	}
}

// A ready server whose process exits is Failed at once, with its exit
// and last stderr line, as an event; the next call starts it again and it
// is Ready.
func TestServerThatDiesAfterReady(t *testing.T) {
	h := New([]*catalog.Server{luaServer(t, "alpha")}, Options{})
	t.Cleanup(func() { h.Close() })
	ch, cancel := events(h)
	defer cancel()
	h.Start()
	ctx, stop := context.WithTimeout(context.Background(), 60*time.Second)
	defer stop()
	if err := h.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Call(ctx, "alpha__die", nil, CallOptions{}); err == nil {
		t.Fatal("the die call answered")
	}
	e := until(t, ch, "alpha failed", func(e Event) bool { return e.Kind == EventStatus && e.State.Status == Failed })
	msg := e.State.Err.Error()
	if !strings.Contains(msg, "exited with status 3") || !strings.Contains(msg, "the next call starts it again") || !slices.Contains(e.State.Stderr, "alpha: dying on purpose") {
		t.Errorf("failed state: %v; stderr %q", msg, e.State.Stderr)
	}
	if got := byName(h.Status())["alpha"].Status; got != Failed {
		t.Errorf("status %s after the exit", got)
	}
	r, err := h.Call(ctx, "alpha__echo", json.RawMessage(`{"message":"back"}`), CallOptions{})
	if err != nil || r.Text() != "back" {
		t.Fatalf("the call after the exit: %v %v", r, err)
	}
	until(t, ch, "alpha ready again", func(e Event) bool { return e.Kind == EventStatus && e.State.Status == Ready })
}

// A call made while its server restarts fails with not_found (the server
// is connecting); it used to index the old tool list and panic.
func TestCallDuringRestart(t *testing.T) {
	h := New([]*catalog.Server{luaServer(t, "alpha")}, Options{})
	t.Cleanup(func() { h.Close() })
	h.Start()
	ctx, stop := context.WithTimeout(context.Background(), 60*time.Second)
	defer stop()
	if err := h.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if err := h.Restart("alpha"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Call(ctx, "alpha__echo", json.RawMessage(`{"message":"x"}`), CallOptions{}); errs.KindOf(err) != errs.NotFound {
		t.Fatalf("a call during the restart: %v", err)
	}
	if err := h.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if r, err := h.Call(ctx, "alpha__echo", json.RawMessage(`{"message":"back"}`), CallOptions{}); err != nil || r.Text() != "back" {
		t.Fatalf("after the restart: %v %v", r, err)
	}
}

// A tool whose annotations changed since it was listed (read-only to
// destructive, same schema) is a changed contract: refused, with what
// changed, until it is listed again.
func TestAnnotationsChanged(t *testing.T) {
	bin := testkit.Build(t, "cmd/luagent")
	script, _ := filepath.Abs("testdata/contract.lua")
	h := New([]*catalog.Server{{Name: "c", Enabled: true, Command: bin, Args: []string{"serve", script}, StartupTimeout: 30 * time.Second}}, Options{})
	defer h.Close()
	ch, cancel := events(h)
	defer cancel()
	h.Start()
	ctx := context.Background()
	h.Wait(ctx)
	old, ok := h.Tool("c__peek")
	if !ok {
		t.Fatal("no c__peek")
	}
	if _, err := h.Call(ctx, "c__arm", nil, CallOptions{}); err != nil {
		t.Fatal(err)
	}
	until(t, ch, "refresh", func(e Event) bool { return e.Kind == EventTools })
	_, err := h.Call(ctx, "c__peek", json.RawMessage(`{"what":"x"}`), CallOptions{})
	if !errors.Is(err, ErrSchemaChanged) || errs.KindOf(err) != errs.Invalid {
		t.Fatalf("call after the annotations changed: %v", err)
	}
	msg := err.Error()
	for _, want := range []string{"c__peek", "annotations", "readOnlyHint true -> false", "destructiveHint unset -> true", "list or search the tools again"} {
		if !strings.Contains(msg, want) || strings.Contains(msg, "\n") {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	now, _ := h.Tool("c__peek") // rediscovered
	if now.SchemaHash == old.SchemaHash {
		t.Fatalf("hash unchanged: %s", now.SchemaHash)
	}
	if r, err := h.Call(ctx, "c__peek", json.RawMessage(`{"what":"x"}`), CallOptions{}); err != nil || r.Text() != "destroyed x" {
		t.Fatalf("after rediscovery: %v %v", r, err)
	}
	_, err = h.Call(ctx, "c__peek", json.RawMessage(`{"what":"x"}`), CallOptions{SchemaHash: old.SchemaHash})
	if !errors.Is(err, ErrSchemaChanged) {
		t.Fatalf("a caller's old hash: %v", err)
	}
}

// Add starts entries beside the hub's own, even on a hub that started
// only some (a name already there is replaced), leaving the others be.
func TestAdd(t *testing.T) {
	a, b := luaServer(t, "alpha"), luaServer(t, "beta")
	h := New([]*catalog.Server{a, b}, Options{})
	defer h.Close()
	h.Start("alpha")
	ctx := context.Background()
	h.Wait(ctx)
	ca, _ := h.Client("alpha")
	h.Add(luaServer(t, "gamma"))
	h.Wait(ctx)
	got := map[string]Status{}
	for _, st := range h.Status() {
		got[st.Name] = st.Status
	}
	if got["alpha"] != Ready || got["gamma"] != Ready || got["beta"] == Ready {
		t.Errorf("statuses: %v", got)
	}
	if c, _ := h.Client("alpha"); c != ca {
		t.Error("alpha was restarted")
	}
}
