package hub

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/mcp"
)

// Tool is one tool of the merged catalog.
type Tool struct {
	// Name is the qualified name (server__tool, see qualify): what a model
	// sees and what Call takes.
	Name string
	// Server is the catalog entry the tool comes from.
	Server string
	// SchemaHash identifies the tool's contract as handed out: its input
	// and output schemas and its behaviour hints (readOnlyHint,
	// destructiveHint, idempotentHint, openWorldHint); Call refuses the
	// tool once they change (CallOptions.SchemaHash).
	SchemaHash string
	// Def is the tool as the server lists it (Def.Name is its own name).
	Def mcp.Tool
}

// ErrToolRemoved is in the chain of the error Call returns for a tool
// offered from a server's cached list that its fresh list no longer has.
var ErrToolRemoved = errors.New("tool removed")

// ErrSchemaChanged is in the chain of the error Call returns for a tool
// whose contract (schemas or behaviour hints) changed since it was handed
// out.
var ErrSchemaChanged = errors.New("tool schema changed")

type toolRef struct {
	s *server
	i int
}

// cached reports whether the server's tools are its cache's (it has not
// listed its own yet).
func (s *server) cached() bool { return s.cachedLists != nil }

func (s *server) clearTools() {
	s.tools, s.hashes, s.qnames, s.filtered = nil, nil, nil, nil
	s.index = &shard{}
	s.dirty = false
	s.cachedLists, s.removed, s.withdrawn = nil, nil, nil
}

// setTools takes a fresh tool list (Hub.mu held): duplicates of a name
// are dropped, and so are the tools the entry's enabledTools and
// disabledTools filter out (remembered in filtered, for Call's error);
// schemas hashed, the search shard rebuilt.
func (s *server) setTools(tools []mcp.Tool) {
	seen := map[string]bool{}
	s.tools = s.tools[:0:0]
	s.filtered = nil
	for _, t := range tools {
		switch {
		case seen[t.Name]:
		case !s.cfg.ToolAllowed(t.Name):
			if s.filtered == nil {
				s.filtered = map[string]bool{}
			}
			s.filtered[t.Name] = true
		default:
			s.tools = append(s.tools, t)
		}
		seen[t.Name] = true
	}
	s.hashes = make([]string, len(s.tools))
	for i, t := range s.tools {
		s.hashes[i] = schemaHash(t)
	}
	s.index = newShard(s.cfg.Name, s.tools)
	s.state.Tools = len(s.tools)
}

// renameLocked recomputes every qualified name.
func (h *Hub) renameLocked() {
	var ids []toolID
	for _, name := range h.order {
		for _, t := range h.servers[name].tools {
			ids = append(ids, toolID{name, t.Name})
		}
	}
	q := qualify(ids)
	h.names = make(map[string]toolRef, len(ids))
	for _, name := range h.order {
		s := h.servers[name]
		s.qnames = make([]string, len(s.tools))
		for i, t := range s.tools {
			n := q[toolID{name, t.Name}]
			s.qnames[i] = n
			h.names[n] = toolRef{s, i}
		}
	}
}

// schemaHash hashes a tool's input and output schemas in a canonical form
// (members sorted), so a server that reorders them changes nothing, and
// appends its behaviour hints in clear (hintsKey), so that a changed
// contract can say which hint changed.
func schemaHash(t mcp.Tool) string {
	h := sha256.New()
	for _, raw := range []json.RawMessage{t.InputSchema, t.OutputSchema} {
		var v any
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		if len(raw) > 0 && d.Decode(&v) == nil {
			b, _ := json.Marshal(v)
			h.Write(b)
		}
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:16] + "." + hintsKey(t.Annotations)
}

// hintNames are the behaviour hints a contract includes, in hintsKey's order.
var hintNames = []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}

// hintsKey spells the hints one letter each: t (true), f (false), - (unset).
func hintsKey(a *mcp.ToolAnnotations) string {
	var hints [4]*bool
	if a != nil {
		hints = [4]*bool{a.ReadOnlyHint, a.DestructiveHint, a.IdempotentHint, a.OpenWorldHint}
	}
	var b [4]byte
	for i, v := range hints {
		switch {
		case v == nil:
			b[i] = '-'
		case *v:
			b[i] = 't'
		default:
			b[i] = 'f'
		}
	}
	return string(b[:])
}

// contractChange says what changed between two schema hashes: the schema,
// hints (as "readOnlyHint true -> false"), or both.
func contractChange(saw, now string) string {
	sawSchema, sawHints, _ := strings.Cut(saw, ".")
	nowSchema, nowHints, _ := strings.Cut(now, ".")
	var parts []string
	if sawSchema != nowSchema {
		parts = append(parts, "its schema")
	}
	if len(sawHints) == len(hintNames) && len(nowHints) == len(hintNames) {
		word := map[byte]string{'t': "true", 'f': "false", '-': "unset"}
		var hints []string
		for i, name := range hintNames {
			if sawHints[i] != nowHints[i] {
				hints = append(hints, name+" "+word[sawHints[i]]+" -> "+word[nowHints[i]])
			}
		}
		if len(hints) > 0 {
			parts = append(parts, "its annotations ("+strings.Join(hints, ", ")+")")
		}
	}
	if len(parts) == 0 {
		return "its schema"
	}
	return strings.Join(parts, " and ")
}

// partialLocked reports whether an enabled server is still connecting.
func (h *Hub) partialLocked() bool {
	for _, s := range h.servers {
		if s.state.Status == Connecting && !s.cached() {
			return true
		}
	}
	return false
}

func (s *server) tool(i int) Tool {
	return Tool{Name: s.qnames[i], Server: s.cfg.Name, SchemaHash: s.hashes[i], Def: s.tools[i]}
}

// Tools returns the merged catalog, sorted by qualified name; partial is
// true while a server is still connecting (more tools may come).
func (h *Hub) Tools() (tools []Tool, partial bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, name := range h.order {
		s := h.servers[name]
		for i := range s.tools {
			tools = append(tools, s.tool(i))
			s.handed[s.tools[i].Name] = s.hashes[i]
		}
	}
	slices.SortFunc(tools, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
	return tools, h.partialLocked()
}

// Tool returns one tool of the catalog by qualified name.
func (h *Hub) Tool(qualified string) (Tool, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r, ok := h.names[qualified]
	if !ok {
		return Tool{}, false
	}
	r.s.handed[r.s.tools[r.i].Name] = r.s.hashes[r.i]
	return r.s.tool(r.i), true
}

// Peek is Tool without handing the tool out: the caller's later calls
// are still checked against the definition it saw before.
func (h *Hub) Peek(qualified string) (Tool, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r, ok := h.names[qualified]
	if !ok {
		return Tool{}, false
	}
	return r.s.tool(r.i), true
}

// toolsChanged marks a server's list stale and refreshes it in the
// background (called on the client's reader goroutine: never blocks).
func (h *Hub) toolsChanged(name string) {
	h.mu.Lock()
	s := h.servers[name]
	if s == nil || s.client == nil {
		h.mu.Unlock()
		return
	}
	s.dirty = true
	h.mu.Unlock()
	go h.refresh(context.Background(), s)
}

// refresh lists a server's tools again if they are stale; concurrent
// callers share one listing.
func (h *Hub) refresh(ctx context.Context, s *server) error {
	for {
		h.mu.Lock()
		if !s.dirty || s.client == nil {
			h.mu.Unlock()
			return nil
		}
		if s.refreshing {
			ch := h.changed
			h.mu.Unlock()
			select { // another caller lists: wait for it
			case <-ch:
				continue
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		s.refreshing, s.dirty = true, false
		c, gen := s.client, s.gen
		h.mu.Unlock()

		rctx, cancel := context.WithTimeout(ctx, requestTimeout(s.cfg))
		tools, err := listTools(rctx, c)
		cancel()

		h.mu.Lock()
		s.refreshing = false
		if s.gen == gen && err == nil {
			s.setTools(tools)
			h.renameLocked()
		} else if s.gen == gen {
			s.dirty = true
		}
		h.emitLocked(Event{Kind: EventTools, State: s.snapshot()})
		h.bumpLocked()
		h.mu.Unlock()
		if err != nil {
			return err
		}
	}
}

// bumpLocked wakes everyone waiting for a change (Wait, refresh).
func (h *Hub) bumpLocked() {
	close(h.changed)
	h.changed = make(chan struct{})
}

func requestTimeout(cfg *catalog.Server) time.Duration {
	if cfg.RequestTimeout > 0 {
		return cfg.RequestTimeout
	}
	return catalog.DefaultRequestTimeout
}

// CallOptions tune one Call.
type CallOptions struct {
	mcp.CallOptions
	// SchemaHash is the Tool.SchemaHash the caller saw; "" means the one
	// Tools, Search or Tool last handed out (if any). A tool whose current
	// schema differs is refused.
	SchemaHash string
}

// Call calls a tool by qualified name. When the server has
// maxConcurrentCalls calls in flight, the call waits for a free slot, the
// wait counted in its timeout (CallOptions.Timeout, else the entry's
// requestTimeoutSeconds).
func (h *Hub) Call(ctx context.Context, qualified string, args json.RawMessage, o CallOptions) (*mcp.CallToolResult, error) {
	s, def, c, err := h.resolve(ctx, qualified, o.SchemaHash)
	if err != nil {
		return nil, err
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = requestTimeout(s.cfg)
	}
	if s.sem != nil {
		start := time.Now()
		t := time.NewTimer(timeout)
		select {
		case s.sem <- struct{}{}:
			t.Stop()
			defer func() { <-s.sem }()
		case <-t.C:
			return nil, errs.Errorf(errs.Timeout, "tools/call", "tool %s waited %v for one of %q's %d call slots (maxConcurrentCalls) and timed out; raise the timeout or maxConcurrentCalls", qualified, timeout, s.cfg.Name, cap(s.sem))
		case <-ctx.Done():
			t.Stop()
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return nil, errs.Errorf(errs.Timeout, "tools/call", "tool %s: the deadline passed while waiting for a call slot of %q", qualified, s.cfg.Name)
			}
			return nil, errs.Errorf(errs.Cancelled, "tools/call", "tool %s cancelled while waiting for a call slot of %q", qualified, s.cfg.Name)
		}
		if timeout -= time.Since(start); timeout <= 0 {
			return nil, errs.Errorf(errs.Timeout, "tools/call", "tool %s spent its whole timeout waiting for a call slot of %q", qualified, s.cfg.Name)
		}
	}
	o.CallOptions.Timeout = timeout
	return c.CallTool(ctx, def.Name, args, o.CallOptions)
}

// resolve finds a tool to call, refreshing a stale list first, and checks
// its schema against the one the caller saw.
func (h *Hub) resolve(ctx context.Context, qualified, saw string) (*server, mcp.Tool, *mcp.Client, error) {
	var waited *server // the cached server this call waited for
	for attempt := 0; ; attempt++ {
		h.mu.Lock()
		if h.closed {
			h.mu.Unlock()
			return nil, mcp.Tool{}, nil, errs.New(errs.Closed, "tools/call", "the hub is closed")
		}
		if waited != nil && waited.state.Err != nil && (waited.state.Status == Failed || waited.state.Status == NeedsAuth) {
			err := startFailed(qualified, waited)
			h.mu.Unlock()
			return nil, mcp.Tool{}, nil, err
		}
		r, ok := h.names[qualified]
		if !ok {
			var err error
			server, tool, split := splitQualified(qualified)
			s := h.servers[server]
			switch {
			case split && s != nil && s.withdrawn[tool] && s.state.Err != nil:
				err = startFailed(qualified, s)
			case split && s != nil && s.removed[tool]:
				err = &errs.Error{Kind: errs.NotFound, Op: "tools/call", Err: ErrToolRemoved,
					Msg: fmt.Sprintf("tool %s is gone: server %q no longer lists %s (its tools changed since its last start); list or search the tools again", qualified, server, tool)}
			default:
				err = h.notFoundLocked(qualified)
			}
			h.mu.Unlock()
			return nil, mcp.Tool{}, nil, err
		}
		s := r.s
		if s.cached() {
			// Offered from the cache: this call waits for its server alone
			// (starting a lazy one), then checks the tool against the
			// server's fresh list.
			waited = s
			err := h.awaitStartLocked(ctx, s)
			switch {
			case err == nil:
				continue
			case errors.Is(err, context.DeadlineExceeded):
				return nil, mcp.Tool{}, nil, errs.Errorf(errs.Timeout, "tools/call", "tool %s: the deadline passed while server %q was starting", qualified, s.cfg.Name)
			}
			return nil, mcp.Tool{}, nil, errs.Errorf(errs.Cancelled, "tools/call", "tool %s cancelled while server %q was starting", qualified, s.cfg.Name)
		}
		if s.dirty && attempt == 0 {
			h.mu.Unlock()
			if err := h.refresh(ctx, s); err != nil {
				return nil, mcp.Tool{}, nil, err
			}
			continue
		}
		def, now := s.tools[r.i], s.hashes[r.i]
		if saw == "" {
			saw = s.handed[def.Name]
		}
		c := s.client
		h.mu.Unlock()
		if saw != "" && saw != now {
			return nil, mcp.Tool{}, nil, &errs.Error{Kind: errs.Invalid, Op: "tools/call",
				Msg: "tool " + qualified + " changed " + contractChange(saw, now) + " since it was listed" + sinceCache(waited) + ": list or search the tools again and call it as it is now",
				Err: ErrSchemaChanged}
		}
		return s, def, c, nil
	}
}

// startFailed is the error of a call to a cached tool of a server whose
// start failed: the start's error, its kind kept.
func startFailed(qualified string, s *server) error {
	err := s.state.Err
	return &errs.Error{Kind: errs.KindOf(err), Op: "tools/call", Err: err,
		Msg: fmt.Sprintf("tool %s: server %q could not start: %v", qualified, s.cfg.Name, err)}
}

// sinceCache says a contract changed against a server's cached list.
func sinceCache(waited *server) string {
	if waited == nil {
		return ""
	}
	return " (from the cache of its server's last start; the server lists it differently now)"
}

// FilteredOut is how many of server's listed tools its entry's
// enabledTools and disabledTools leave out.
func (h *Hub) FilteredOut(server string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s := h.servers[server]; s != nil {
		return len(s.filtered)
	}
	return 0
}

// ToolFiltered returns the error of a call to the tool server lists as
// tool when the entry's enabledTools or disabledTools filter it out (kind
// not_found), else nil: the tool is not listed, or not filtered.
func (h *Hub) ToolFiltered(server, tool string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s := h.servers[server]; s != nil && s.filtered[tool] {
		return filteredError(server, tool)
	}
	return nil
}

func filteredError(server, tool string) error {
	return errs.Errorf(errs.NotFound, "tools/call", "tool %s of server %q is filtered out by the entry's enabledTools/disabledTools in config.json; change them there to use it", tool, server)
}

func (h *Hub) notFoundLocked(qualified string) error {
	if server, tool, ok := splitQualified(qualified); ok {
		if s := h.servers[server]; s != nil && s.filtered[tool] {
			return filteredError(server, tool)
		}
	}
	var connecting []string
	for _, name := range h.order {
		if h.servers[name].state.Status == Connecting {
			connecting = append(connecting, name)
		}
	}
	if server, _, ok := splitQualified(qualified); ok {
		if s := h.servers[server]; s != nil && s.state.Status != Ready {
			if s.state.Err != nil {
				// Why it failed is what the caller needs to fix.
				return &errs.Error{Kind: errs.NotFound, Op: "tools/call", Err: s.state.Err,
					Msg: fmt.Sprintf("no tool %s: server %q is %s: %v", qualified, server, s.state.Status, s.state.Err)}
			}
			return errs.Errorf(errs.NotFound, "tools/call", "no tool %s: server %q is %s", qualified, server, s.state.Status)
		}
	}
	if len(connecting) > 0 {
		return errs.Errorf(errs.NotFound, "tools/call", "no tool %s yet (still connecting: %s); wait for the servers or search again", qualified, strings.Join(connecting, ", "))
	}
	return errs.Errorf(errs.NotFound, "tools/call", "no tool %s in the hub's catalog; search the tools for its qualified name", qualified)
}
