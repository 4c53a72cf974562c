package hub

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/mcp"
)

// Item is one resource, resource template or prompt object, as its
// server lists it.
type Item struct {
	Server string
	Raw    json.RawMessage
}

// Resources lists the resources of one server, or of every ready server
// that offers resources when server is "". Servers that fail are left
// out, their errors joined in err beside what the others listed.
func (h *Hub) Resources(ctx context.Context, server string) ([]Item, error) {
	return h.gather(ctx, server, "resources", "resources", (*mcp.Client).Resources)
}

// Templates lists resource templates like Resources.
func (h *Hub) Templates(ctx context.Context, server string) ([]Item, error) {
	return h.gather(ctx, server, "resources", "templates", (*mcp.Client).Templates)
}

// Prompts lists prompts like Resources.
func (h *Hub) Prompts(ctx context.Context, server string) ([]Item, error) {
	return h.gather(ctx, server, "prompts", "prompts", (*mcp.Client).Prompts)
}

// Read reads a resource of a server (one offered from its cache is waited
// for, or started when lazy).
func (h *Hub) Read(ctx context.Context, server, uri string) (json.RawMessage, error) {
	c, err := h.readyWait(ctx, server)
	if err != nil {
		return nil, err
	}
	return c.ReadResource(ctx, uri)
}

// Prompt gets a prompt of a server with its arguments.
func (h *Hub) Prompt(ctx context.Context, server, name string, args map[string]string) (json.RawMessage, error) {
	c, err := h.readyWait(ctx, server)
	if err != nil {
		return nil, err
	}
	return c.GetPrompt(ctx, name, args)
}

// readyWait is ready for a server offered from its cache: it waits for
// the server's start (starting a lazy one) first.
func (h *Hub) readyWait(ctx context.Context, name string) (*mcp.Client, error) {
	for {
		h.mu.Lock()
		s := h.servers[name]
		if s == nil || !s.cached() || h.closed {
			h.mu.Unlock()
			return h.ready(name)
		}
		if err := h.awaitStartLocked(ctx, s); err != nil {
			return nil, errs.Wrap(errs.Cancelled, "hub", err)
		}
	}
}

// awaitStartLocked is the wait of a call to a server offered from its
// cache: it starts the server when it is an idle lazy one, lets h.mu go,
// and waits for the hub's next change (ctx's error when ctx ends first).
func (h *Hub) awaitStartLocked(ctx context.Context, s *server) error {
	if s.idle {
		h.startLocked(s)
	}
	ch := h.changed
	h.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// OffersResources reports whether a server has resources to list: it is
// ready and declares them, or its cache says it did.
func (h *Hub) OffersResources(name string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.servers[name]
	switch {
	case s == nil:
		return false
	case s.cached():
		return s.cachedLists.HasResources
	}
	return s.state.Status == Ready && s.state.Info.Capabilities.Resources != nil
}

// cachedItems are a cached server's items of one list ("prompts",
// "resources", "templates"); ok is false when the cache has none.
func (s *server) cachedItems(list string) (items []Item, ok bool) {
	e := s.cachedLists
	if e == nil {
		return nil, false
	}
	var raws []json.RawMessage
	switch list {
	case "prompts":
		ok, raws = e.HasPrompts, e.Prompts
	case "resources":
		ok, raws = e.HasResources, e.Resources
	case "templates":
		ok, raws = e.HasResources, e.Templates
	}
	for _, r := range raws {
		items = append(items, Item{Server: s.cfg.Name, Raw: r})
	}
	return items, ok
}

// ready returns a ready server's client, or an error saying its status.
func (h *Hub) ready(name string) (*mcp.Client, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s, err := h.lookupLocked(name)
	if err != nil {
		return nil, err
	}
	if s.client == nil || s.state.Status != Ready {
		if s.state.Err != nil {
			return nil, &errs.Error{Kind: errs.KindOf(s.state.Err), Op: "hub", Msg: "server " + quote(name) + " is " + string(s.state.Status) + ": " + s.state.Err.Error(), Err: s.state.Err}
		}
		return nil, errs.Errorf(errs.Closed, "hub", "server %q is %s, not ready", name, s.state.Status)
	}
	return s.client, nil
}

// gather lists one kind of item (which: "prompts", "resources",
// "templates"; capability: the one that declares it) of a server or of
// all; a server offered from its cache answers with its cached list.
func (h *Hub) gather(ctx context.Context, server, capability, which string, list func(*mcp.Client, context.Context) ([]json.RawMessage, error)) ([]Item, error) {
	type target struct {
		name string
		c    *mcp.Client
	}
	var targets []target
	var out []Item
	if server != "" {
		h.mu.Lock()
		if s := h.servers[server]; s != nil && !h.closed {
			if s.cached() {
				items, _ := s.cachedItems(which)
				h.mu.Unlock()
				return items, nil // a server still starting: its last start's list
			}
		}
		h.mu.Unlock()
		c, err := h.ready(server)
		if err != nil {
			return nil, err
		}
		targets = append(targets, target{server, c})
	} else {
		h.mu.Lock()
		for _, name := range h.order {
			s := h.servers[name]
			if items, ok := s.cachedItems(which); ok {
				out = append(out, items...)
				continue
			}
			if s.client == nil || s.state.Status != Ready {
				continue
			}
			caps := s.state.Info.Capabilities
			if capability == "resources" && caps.Resources == nil || capability == "prompts" && caps.Prompts == nil {
				continue
			}
			targets = append(targets, target{name, s.client})
		}
		h.mu.Unlock()
	}
	results := make([][]json.RawMessage, len(targets))
	errList := make([]error, len(targets))
	var wg sync.WaitGroup
	for i, t := range targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errList[i] = list(t.c, ctx)
		}()
	}
	wg.Wait()
	for i, t := range targets {
		for _, raw := range results[i] {
			out = append(out, Item{Server: t.name, Raw: raw})
		}
	}
	return out, errors.Join(errList...)
}
