package hub

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/oauth/store"
)

// Credentials bind to an entry's connectionId: two entries with the same URL
// and different connectionIds hold different credentials; an entry without
// one does not use a connection's; the binding survives a new URL spelling
// for the same resource.
func TestConnectionIDBinding(t *testing.T) {
	a := newAuthorizing(t)
	st := store.New(filepath.Join(t.TempDir(), "creds"))
	u := a.srv.URL + "/mcp"
	one := &catalog.Server{Name: "one", Enabled: true, URL: u}
	one.SetConnectionID("conn-1")
	two := &catalog.Server{Name: "two", Enabled: true, URL: u}
	two.SetConnectionID("conn-2")
	plain := &catalog.Server{Name: "plain", Enabled: true, URL: u}
	ctx := context.Background()

	h := New([]*catalog.Server{one, two, plain}, Options{Store: st, Browse: follow})
	defer h.Close()
	h.Start()
	h.Wait(ctx)
	if err := h.Reauthorize(ctx, "one"); err != nil {
		t.Fatal(err)
	}
	h.Wait(ctx)
	status := func(h *Hub) map[string]Status {
		m := map[string]Status{}
		for _, s := range h.Status() {
			m[s.Name] = s.Status
		}
		return m
	}
	if got := status(h); got["one"] != Ready || got["two"] != NeedsAuth || got["plain"] != NeedsAuth {
		t.Fatalf("after logging in one: %v", got)
	}
	if c, _ := st.Load(u); c != nil {
		t.Errorf("a connection-bound login saved the URL's own credential")
	}

	// A later hub: the same binding; a new URL under the same resource keeps it.
	moved := &catalog.Server{Name: "one", Enabled: true, URL: u + "?v=2"}
	moved.SetConnectionID("conn-1")
	h2 := New([]*catalog.Server{moved, two}, Options{Store: st})
	defer h2.Close()
	h2.Start()
	h2.Wait(ctx)
	if got := status(h2); got["one"] != Ready || got["two"] != NeedsAuth {
		t.Fatalf("a later hub: %v", got)
	}

	// Reload with another connectionId restarts the entry: no credential.
	other := &catalog.Server{Name: "one", Enabled: true, URL: u}
	other.SetConnectionID("conn-3")
	h2.Reload([]*catalog.Server{other, two})
	h2.Wait(ctx)
	if got := status(h2); got["one"] != NeedsAuth {
		t.Fatalf("after a new connectionId: %v", got)
	}
}
