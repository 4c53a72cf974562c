package hub

import (
	"context"
	"encoding/json"

	"github.com/luagent/luagent/runtime/errs"
)

// Sampler answers a server's sampling/createMessage request (params as
// sent) with a CreateMessageResult.
type Sampler func(ctx context.Context, server string, params json.RawMessage) (json.RawMessage, error)

// SetSampler makes fn answer the sampling requests of servers whose entry
// has "sampling": true, unless the hub was made with Options.Sample (a
// script's on_sample keeps them). A later SetSampler replaces an earlier
// one: the agent made last answers, so an agent rebuilt with other options
// (a:with, chat's /model) samples with its own model and policy. It
// reports whether fn was installed.
func (h *Hub) SetSampler(fn Sampler) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.opts.Sample != nil || fn == nil {
		return false
	}
	h.sampler = fn
	return true
}

func (h *Hub) sample(ctx context.Context, server string, params json.RawMessage) (json.RawMessage, error) {
	h.mu.Lock()
	fn := h.opts.Sample
	if fn == nil {
		fn = h.sampler
	}
	h.mu.Unlock()
	if fn == nil {
		return nil, errs.Errorf(errs.NotFound, "sampling/createMessage",
			"server %q asked for sampling, but no agent or on_sample handler answers it here: use it from an agent, or give mcp.hub an on_sample", server)
	}
	return fn(ctx, server, params)
}
