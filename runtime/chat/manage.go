package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/hub"
	"github.com/luagent/luagent/runtime/mcp"
	"github.com/luagent/luagent/runtime/render"
)

// The /mcp manager's verbs as plain text: inspect a server, restart it,
// enable or disable its catalog entry (saved, and only that connection
// changes; the conversation stays).

// Servers are a session's MCP servers: its hub and the catalog entries
// behind it, which the /mcp verbs and the manager read and change. The
// REPL's /mcp has one over the default hub, with no conversation.
type Servers struct {
	h       *hub.Hub // nil: the agent has no servers
	mu      sync.Mutex
	entries []*catalog.Server
}

// NewServers returns the servers of h, whose entries are those of the
// catalog (for what the hub does not say: transport, command line).
func NewServers(h *hub.Hub, entries []*catalog.Server) *Servers {
	return &Servers{h: h, entries: entries}
}

// Hub is the hub (nil: none).
func (s *Servers) Hub() *hub.Hub { return s.h }

func (s *Servers) hub() (*hub.Hub, error) {
	if s.h == nil {
		return nil, errs.New(errs.NotFound, "chat", "this agent has no MCP servers (its hub is off)")
	}
	return s.h, nil
}

func (s *Servers) state(name string) (hub.State, error) {
	h, err := s.hub()
	if err != nil {
		return hub.State{}, err
	}
	for _, st := range h.Status() {
		if st.Name == name {
			return st, nil
		}
	}
	return hub.State{}, errs.Errorf(errs.NotFound, "chat", "no server %q in the catalog (/mcp lists them)", name)
}

// Catalog is the catalog's entries as the session last read them.
func (s *Servers) Catalog() []*catalog.Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.entries
}

// Inspect is /mcp NAME: a server's status, instructions, tools (titles,
// annotations, arguments), prompts and resources, as text.
func (s *Servers) Inspect(ctx context.Context, name string) (string, error) {
	d, err := s.Details(ctx, name)
	if err != nil {
		return "", err
	}
	st := d.State
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s, %s", name, StatusWord(st.Status), d.Transport)
	if st.Status != hub.Ready {
		if st.Err != nil {
			fmt.Fprintf(&b, "\n  error: %s", render.OneLine(st.Err.Error(), 300))
		}
		for _, l := range st.Stderr {
			fmt.Fprintf(&b, "\n  stderr: %s", render.OneLine(l, 200))
		}
		return b.String(), nil
	}
	fmt.Fprintf(&b, ", %s era, server %s %s\n", st.Info.Era, st.Info.ServerInfo.Name, st.Info.ServerInfo.Version)
	if st.Info.Instructions != "" {
		fmt.Fprintf(&b, "instructions: %s\n", render.OneLine(st.Info.Instructions, 400))
	}
	b.WriteString("tools:\n")
	for _, t := range d.Tools {
		fmt.Fprintf(&b, "  %s", t.Name)
		if t.Title != "" {
			fmt.Fprintf(&b, " (%s)", t.Title)
		}
		if t.Description != "" {
			fmt.Fprintf(&b, " — %s", render.OneLine(t.Description, 120))
		}
		if len(t.Hints) > 0 {
			fmt.Fprintf(&b, " [%s]", strings.Join(t.Hints, ", "))
		}
		b.WriteString("\n")
		for _, a := range SchemaArgs(t.Schema) {
			fmt.Fprintf(&b, "      %s\n", a)
		}
	}
	if d.HasPrompts {
		b.WriteString("prompts:\n")
		for _, p := range d.Prompts {
			fmt.Fprintf(&b, "  %s(%s)", p.Name, strings.Join(p.ArgNames(), ", "))
			if p.Description != "" {
				fmt.Fprintf(&b, " — %s", render.OneLine(p.Description, 120))
			}
			b.WriteString("\n")
		}
		if d.PromptsErr != nil {
			fmt.Fprintf(&b, "  (listing failed: %s)\n", render.OneLine(d.PromptsErr.Error(), 200))
		}
	}
	if d.HasResources {
		b.WriteString("resources:\n")
		for _, r := range d.Resources {
			fmt.Fprintf(&b, "  %s %s %s\n", r.URI, r.Name, r.MimeType)
		}
		if d.ResourcesErr != nil {
			fmt.Fprintf(&b, "  (listing failed: %s)\n", render.OneLine(d.ResourcesErr.Error(), 200))
		}
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// ArgNames are a prompt's arguments, a required one marked with *.
func (p PromptDetail) ArgNames() []string {
	var out []string
	for _, a := range p.Args {
		n := a.Name
		if a.Required {
			n += "*"
		}
		out = append(out, n)
	}
	return out
}

// StatusWord is a status as people read it: "needs auth", not needs_auth.
func StatusWord(st hub.Status) string { return strings.ReplaceAll(string(st), "_", " ") }

func hints(a *mcp.ToolAnnotations) string {
	if a == nil {
		return ""
	}
	var w []string
	for _, h := range []struct {
		on   *bool
		word string
	}{{a.ReadOnlyHint, "read-only"}, {a.DestructiveHint, "destructive"}, {a.IdempotentHint, "idempotent"}, {a.OpenWorldHint, "open world"}} {
		if h.on != nil && *h.on {
			w = append(w, h.word)
		}
	}
	return strings.Join(w, ", ")
}

// SchemaArgs is an input schema's properties, one line each: "name:
// string (required) — description".
func SchemaArgs(schema json.RawMessage) []string {
	var s struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil
	}
	props, _ := orderedMembers(s.Properties)
	var out []string
	for _, p := range props {
		var ps struct {
			Type        any    `json:"type"`
			Description string `json:"description"`
			Enum        []any  `json:"enum"`
		}
		json.Unmarshal(p.raw, &ps)
		typ := fmt.Sprint(ps.Type)
		if ps.Type == nil {
			typ = "any"
		}
		if len(ps.Enum) > 0 {
			b, _ := json.Marshal(ps.Enum)
			typ += " " + string(b)
		}
		line := p.name + ": " + typ
		if slices.Contains(s.Required, p.name) {
			line += " (required)"
		}
		if ps.Description != "" {
			line += " — " + render.OneLine(ps.Description, 100)
		}
		out = append(out, line)
	}
	return out
}

// Restart stops a server and connects it again in the background.
func (s *Servers) Restart(name string) error {
	h, err := s.hub()
	if err != nil {
		return err
	}
	return h.Restart(name)
}

// Reauthorize runs an HTTP server's OAuth login (the URL is printed and a
// browser opened) and restarts it with the new credential.
func (s *Servers) Reauthorize(ctx context.Context, name string) error {
	h, err := s.hub()
	if err != nil {
		return err
	}
	return h.Reauthorize(ctx, name)
}

// SetEnabled enables or disables a catalog entry in the file at path and
// reloads the hub: only that server starts or stops.
func (s *Servers) SetEnabled(ctx context.Context, path, name string, on bool) error {
	return s.edit(ctx, path, func(c *catalog.Config) error {
		e := c.Server(name)
		if e == nil {
			return errs.Errorf(errs.NotFound, "chat", "no server %q in the catalog (/mcp lists them)", name)
		}
		e.Enabled = on
		return nil
	})
}

// Remove takes a server out of the catalog at path; the hub stops it and
// keeps the others' connections.
func (s *Servers) Remove(ctx context.Context, path, name string) error {
	return s.edit(ctx, path, func(c *catalog.Config) error {
		if !c.Remove(name) {
			return errs.Errorf(errs.NotFound, "chat", "no server %q in the catalog (/mcp lists them)", name)
		}
		return nil
	})
}

// Add saves a new entry in the catalog at path (a name already there is
// an error of kind invalid) and the hub starts it.
func (s *Servers) Add(ctx context.Context, path string, e *catalog.Server) error {
	return s.edit(ctx, path, func(c *catalog.Config) error { return c.Add(e, false) })
}

// edit changes the catalog at path under its lock (the catalog's
// validation applies: a change that breaks a rule writes nothing), then
// reloads the hub, which restarts only the entries that changed.
func (s *Servers) edit(ctx context.Context, path string, fn func(*catalog.Config) error) error {
	h, err := s.catalogHub("change the servers in the agent's file")
	if err != nil {
		return err
	}
	if err := catalog.Update(ctx, path, fn); err != nil {
		return err
	}
	return s.reload(h, path)
}

// catalogHub is the session's hub when it is the catalog's: one with a
// server the catalog lacks belongs to the agent's file, which the catalog
// does not change (hint says what to do instead).
func (s *Servers) catalogHub(hint string) (*hub.Hub, error) {
	h, err := s.hub()
	if err != nil {
		return nil, err
	}
	known := map[string]bool{}
	for _, e := range s.Catalog() {
		known[e.Name] = true
	}
	for _, st := range h.Status() {
		if !known[st.Name] {
			return nil, errs.Errorf(errs.Invalid, "chat", "this agent's hub is not the catalog's (it has %q): %s", st.Name, hint)
		}
	}
	return h, nil
}

// reload reads the catalog at path again and has h match it: only the
// entries that changed start, stop or restart.
func (s *Servers) reload(h *hub.Hub, path string) error {
	cfg, err := catalog.Load(path)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.entries = cfg.Servers
	s.mu.Unlock()
	h.Reload(cfg.Servers)
	return nil
}

// Reloaded is what a Reload changed: the entries added to the file,
// removed from it, and changed in it (those restart), by name.
type Reloaded struct{ Added, Removed, Changed []string }

// Touched says whether name was added, removed or changed: the reload
// started, stopped or restarted it already.
func (r Reloaded) Touched(name string) bool {
	return slices.Contains(r.Added, name) || slices.Contains(r.Removed, name) || slices.Contains(r.Changed, name)
}

// String is the reload as a person reads it: "config.json re-read: added
// b; removed c; changed a (restarting)", or "... no change".
func (r Reloaded) String() string {
	var parts []string
	for _, p := range []struct {
		word  string
		names []string
		after string
	}{{"added", r.Added, ""}, {"removed", r.Removed, " (stopped)"}, {"changed", r.Changed, " (restarting)"}} {
		if len(p.names) > 0 {
			parts = append(parts, p.word+" "+strings.Join(p.names, ", ")+p.after)
		}
	}
	if len(parts) == 0 {
		return "config.json re-read: no change"
	}
	return "config.json re-read: " + strings.Join(parts, "; ")
}

// Reload reads the catalog at path again, as it is on disk now (an edit
// made outside the session too), and has the hub match it: new entries
// start, removed ones stop, changed ones restart, the others keep their
// connections. A file that does not load (bad JSON, a broken rule) is its
// one-line error, of the catalog's kind, and changes nothing: the running
// servers go on. A hub that is not the catalog's (an agent's own servers)
// is an error of kind invalid.
func (s *Servers) Reload(path string) (Reloaded, error) {
	h, err := s.catalogHub("its servers come from the agent's file, not config.json")
	if err != nil {
		return Reloaded{}, err
	}
	cfg, err := catalog.Load(path)
	if err != nil {
		return Reloaded{}, err
	}
	s.mu.Lock()
	old := s.entries
	s.entries = cfg.Servers
	s.mu.Unlock()
	var r Reloaded
	was := map[string]*catalog.Server{}
	for _, e := range old {
		was[e.Name] = e
	}
	now := map[string]bool{}
	for _, e := range cfg.Servers {
		now[e.Name] = true
		switch o := was[e.Name]; {
		case o == nil:
			r.Added = append(r.Added, e.Name)
		case !hub.SameEntry(o, e):
			r.Changed = append(r.Changed, e.Name)
		}
	}
	for _, e := range old {
		if !now[e.Name] {
			r.Removed = append(r.Removed, e.Name)
		}
	}
	h.Reload(cfg.Servers)
	return r, nil
}

// NewEntry makes the entry the manager's add form describes: target is
// an http(s) URL (a remote server; args must be empty) or a command, run
// with args (split as a shell would, quotes kept together, no expansion).
// The catalog's own rules check it; a broken one is an error of kind
// invalid that says what to change.
func NewEntry(name, target, args string) (*catalog.Server, error) {
	name, target = strings.TrimSpace(name), strings.TrimSpace(target)
	if name == "" {
		return nil, errs.New(errs.Invalid, "chat", "the server needs a name: letters, digits, _ and - (like files or my-api)")
	}
	if target == "" {
		return nil, errs.New(errs.Invalid, "chat", "give a URL (https://example.com/mcp) or a command (npx, uvx, a program's path)")
	}
	e := &catalog.Server{Name: name, Enabled: true}
	words, err := SplitArgs(args)
	if err != nil {
		return nil, err
	}
	if strings.HasPrefix(target, "http://") || strings.HasPrefix(target, "https://") {
		if len(words) > 0 {
			return nil, errs.New(errs.Invalid, "chat", "a remote server takes no arguments: leave them empty, or give a command instead of the URL")
		}
		e.URL = target
	} else {
		e.Command, e.Args = target, words
	}
	if err := e.Validate(); err != nil {
		return nil, err
	}
	return e, nil
}

// SplitArgs splits a line into arguments as a shell would, without its
// expansions: white space separates, '...' and "..." keep spaces (\
// escapes inside "..." and outside quotes). An open quote is an error of
// kind invalid.
func SplitArgs(line string) ([]string, error) {
	var out []string
	var cur strings.Builder
	in, quote, esc := false, rune(0), false
	for _, r := range line {
		switch {
		case esc:
			cur.WriteRune(r)
			esc = false
		case r == '\\' && quote != '\'':
			esc, in = true, true
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 || esc {
		return nil, errs.New(errs.Invalid, "chat", "the arguments end inside a quote or after a \\: close the quote")
	}
	if in {
		out = append(out, cur.String())
	}
	return out, nil
}

// Preview is exactly what saving e writes into mcpServers, in the
// catalog's own encoding ("name": {...}), except its secrets — env,
// header and client-secret values — which show as <hidden>, as in every
// catalog a person is shown (catalog.Server.Masked).
func Preview(e *catalog.Server) (string, error) {
	data, err := (&catalog.Config{Version: catalog.Version, Servers: []*catalog.Server{e.Masked()}}).Marshal()
	if err != nil {
		return "", err
	}
	// The file is {"version": 1, "mcpServers": {ENTRY}}: the entry is the
	// lines inside mcpServers, two levels in.
	lines := strings.Split(string(data), "\n")
	var out []string
	inside := false
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, `  "mcpServers": {`):
			inside = true
		case inside && strings.HasPrefix(l, "  }"):
			inside = false
		case inside:
			out = append(out, strings.TrimPrefix(l, "    "))
		}
	}
	if len(out) == 0 {
		return "", errs.Errorf(errs.Internal, "chat", "the catalog encoded %s as nothing", e.Name)
	}
	return strings.Join(out, "\n"), nil
}
