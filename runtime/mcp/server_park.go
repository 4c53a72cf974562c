package mcp

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/jsonrpc"
	"github.com/luagent/luagent/runtime/jsonscan"
)

// Parked work: a modern (2026-07-28) input round answers the request with
// input_required and the client calls again; a handler is normally run
// anew and finds its answers in requestState (AskAll). Work that cannot be
// run again — a served agent halfway through its turns — parks instead:
// the server keeps it under a random id named in the signed requestState,
// and the retry that carries that state takes it back (Parked), with the
// new round's answers. A park lives at most StateTTL, is taken at most
// once, and a server keeps at most MaxParked at a time.

// DefaultMaxParked bounds the parked work of a server when
// ServerOptions.MaxParked is zero.
const DefaultMaxParked = 64

type parkStore struct {
	mu sync.Mutex
	m  map[string]*parked
}

type parked struct {
	v     any
	timer *time.Timer
}

func (s *Server) maxParked() int {
	if s.opts.MaxParked > 0 {
		return s.opts.MaxParked
	}
	return DefaultMaxParked
}

// Park answers a modern request with input_required for inputs (their Key
// set, or input-N) and keeps v until the client's retry, whose Parked
// returns it. It returns how long the park lasts (ParkTTL): the holder
// should give up its work after that (nobody will come back for it). It fails —
// without answering — for a legacy request or one that runs as a task
// (ask the client directly: AskAll), for a client without the
// capabilities the inputs need (kind Protocol: answer for yourself), and
// when MaxParked are parked already (kind Limit).
func (r *Request) Park(v any, inputs []Input) (time.Duration, error) {
	if r.Era != EraModern || r.task.Load() != nil {
		return 0, errs.Errorf(errs.Invalid, "park", "only a 2026-07-28 request outside a task can park; ask the client directly")
	}
	if len(inputs) == 0 {
		return 0, errs.Errorf(errs.Invalid, "park", "nothing to ask: give at least one input")
	}
	reqs := make(map[string]any, len(inputs))
	r.inMu.Lock()
	for _, in := range inputs {
		capName := capabilityFor(in.Method, in.Params)
		if capName == "" {
			r.inMu.Unlock()
			return 0, errs.Errorf(errs.Invalid, "park", "cannot ask the client for %q (elicitation/create, sampling/createMessage or roots/list)", in.Method)
		}
		if !r.clientCaps.has(capName) {
			r.inMu.Unlock()
			return 0, errs.Errorf(errs.Protocol, "park", "the client did not declare the %s capability", capName)
		}
		if in.Key == "" {
			in.Key = r.nextKey()
		}
		reqs[in.Key] = map[string]any{"method": in.Method, "params": in.Params}
	}
	r.inMu.Unlock()
	srv := r.sc.srv
	ttl := r.parkTTL()
	id, err := srv.parks.put(v, srv.maxParked(), ttl)
	if err != nil {
		return 0, err
	}
	state, err := srv.signPayload(statePayload{Method: r.Method, Target: r.target(), Answers: map[string]json.RawMessage{}, Park: id})
	if err != nil {
		srv.parks.take(id)
		return 0, err
	}
	req, _ := json.Marshal(reqs)
	res := []byte(`{"resultType":"input_required","inputRequests":`)
	res = append(res, req...)
	res = append(res, `,"requestState":`...)
	res = jsonscan.AppendString(res, state)
	res = append(res, '}')
	r.finish(res, nil)
	return ttl, nil
}

// parkTTL is how long a park waits for the client: as long as a handler
// may run (a legacy call's question must be answered within that too),
// and never past the requestState's own expiry. It bounds what a client
// that never comes back can hold.
func (r *Request) parkTTL() time.Duration {
	return min(r.sc.srv.opts.StateTTL, r.sc.srv.opts.HandlerTimeout)
}

// ParkTTL is how long a park waits for the client's next round: the
// shorter of the handler timeout and the requestState's lifetime.
func (r *Request) ParkTTL() time.Duration { return r.parkTTL() }

// Parked returns what an earlier round of this call parked (and no longer
// holds it), or nil when the request continues nothing. Answers gives the
// round's inputResponses.
func (r *Request) Parked() any {
	r.inMu.Lock()
	defer r.inMu.Unlock()
	if r.in == nil {
		return nil
	}
	return r.in.parked
}

// Answers returns the answers the client sent with this round
// (inputResponses, and those requestState carried), by key.
func (r *Request) Answers() map[string]json.RawMessage {
	r.inMu.Lock()
	defer r.inMu.Unlock()
	if r.in == nil {
		return map[string]json.RawMessage{}
	}
	out := make(map[string]json.RawMessage, len(r.in.answers))
	for k, v := range r.in.answers {
		out[k] = v
	}
	return out
}

// HoldsState reports whether params carry a requestState naming work this
// server has parked: a retry must reach the worker that parked it.
func (s *Server) HoldsState(params []byte) bool {
	raw := jsonscan.Member(params, "requestState")
	if raw == nil {
		return false
	}
	var tok string
	if json.Unmarshal(raw, &tok) != nil {
		return false
	}
	// Unverified: only routing; the worker verifies the state.
	body, _, _ := strings.Cut(tok, ".")
	b, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return false
	}
	var p struct {
		Park string `json:"p"`
	}
	if json.Unmarshal(b, &p) != nil || p.Park == "" {
		return false
	}
	s.parks.mu.Lock()
	defer s.parks.mu.Unlock()
	_, ok := s.parks.m[p.Park]
	return ok
}

var errParkGone = rpcError(jsonrpc.CodeInvalidParams,
	"the call this requestState continues is over (it was answered already, waited past its time, or the server restarted); call again without requestState", nil)

func (ps *parkStore) put(v any, max int, ttl time.Duration) (string, error) {
	b := make([]byte, 16)
	rand.Read(b)
	id := base64.RawURLEncoding.EncodeToString(b)
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if len(ps.m) >= max {
		return "", errs.Errorf(errs.Limit, "park", "%d calls already wait for their clients' answers (the server's bound); answer without the client", max)
	}
	if ps.m == nil {
		ps.m = map[string]*parked{}
	}
	p := &parked{v: v}
	p.timer = time.AfterFunc(ttl, func() { ps.take(id) })
	ps.m[id] = p
	return id, nil
}

func (ps *parkStore) take(id string) (any, bool) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	p, ok := ps.m[id]
	if !ok {
		return nil, false
	}
	delete(ps.m, id)
	p.timer.Stop()
	return p.v, true
}
