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
	return h.gather(ctx, server, "resources", (*mcp.Client).Resources)
}

// Templates lists resource templates like Resources.
func (h *Hub) Templates(ctx context.Context, server string) ([]Item, error) {
	return h.gather(ctx, server, "resources", (*mcp.Client).Templates)
}

// Prompts lists prompts like Resources.
func (h *Hub) Prompts(ctx context.Context, server string) ([]Item, error) {
	return h.gather(ctx, server, "prompts", (*mcp.Client).Prompts)
}

// Read reads a resource of a server.
func (h *Hub) Read(ctx context.Context, server, uri string) (json.RawMessage, error) {
	c, err := h.ready(server)
	if err != nil {
		return nil, err
	}
	return c.ReadResource(ctx, uri)
}

// Prompt gets a prompt of a server with its arguments.
func (h *Hub) Prompt(ctx context.Context, server, name string, args map[string]string) (json.RawMessage, error) {
	c, err := h.ready(server)
	if err != nil {
		return nil, err
	}
	return c.GetPrompt(ctx, name, args)
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

func (h *Hub) gather(ctx context.Context, server, capability string, list func(*mcp.Client, context.Context) ([]json.RawMessage, error)) ([]Item, error) {
	type target struct {
		name string
		c    *mcp.Client
	}
	var targets []target
	if server != "" {
		c, err := h.ready(server)
		if err != nil {
			return nil, err
		}
		targets = append(targets, target{server, c})
	} else {
		h.mu.Lock()
		for _, name := range h.order {
			s := h.servers[name]
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
	var out []Item
	for i, t := range targets {
		for _, raw := range results[i] {
			out = append(out, Item{Server: t.name, Raw: raw})
		}
	}
	return out, errors.Join(errList...)
}
