package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/hub"
	"github.com/luagent/luagent/runtime/mcp"
)

// The /mcp manager's verbs as plain text: inspect a server, restart it,
// enable or disable its catalog entry (saved, and only that connection
// changes; the conversation stays).

func (s *Session) hub() (*hub.Hub, error) {
	if s.o.Hub == nil {
		return nil, errs.New(errs.NotFound, "chat", "this agent has no MCP servers (its hub is off)")
	}
	return s.o.Hub, nil
}

func (s *Session) state(name string) (hub.State, error) {
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
func (s *Session) Catalog() []*catalog.Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.o.Catalog
}

// Inspect is /mcp NAME: a server's status, instructions, tools (titles,
// annotations, arguments), prompts and resources.
func (s *Session) Inspect(ctx context.Context, name string) (string, error) {
	st, err := s.state(name)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	transport := "-"
	for _, e := range s.Catalog() {
		if e.Name == name {
			transport = e.Transport()
		}
	}
	fmt.Fprintf(&b, "%s: %s, %s", name, strings.ReplaceAll(string(st.Status), "_", " "), transport)
	if st.Status != hub.Ready {
		if st.Err != nil {
			fmt.Fprintf(&b, "\n  error: %s", OneLine(st.Err.Error(), 300))
		}
		for _, l := range st.Stderr {
			fmt.Fprintf(&b, "\n  stderr: %s", OneLine(l, 200))
		}
		return b.String(), nil
	}
	fmt.Fprintf(&b, ", %s era, server %s %s\n", st.Info.Era, st.Info.ServerInfo.Name, st.Info.ServerInfo.Version)
	if st.Info.Instructions != "" {
		fmt.Fprintf(&b, "instructions: %s\n", OneLine(st.Info.Instructions, 400))
	}
	tools, _ := s.o.Hub.Tools()
	b.WriteString("tools:\n")
	for _, t := range tools {
		if t.Server != name {
			continue
		}
		fmt.Fprintf(&b, "  %s", t.Def.Name)
		if t.Def.Title != "" {
			fmt.Fprintf(&b, " (%s)", t.Def.Title)
		}
		if t.Def.Description != "" {
			fmt.Fprintf(&b, " — %s", OneLine(t.Def.Description, 120))
		}
		if w := hints(t.Def.Annotations); w != "" {
			fmt.Fprintf(&b, " [%s]", w)
		}
		b.WriteString("\n")
		for _, a := range SchemaArgs(t.Def.InputSchema) {
			fmt.Fprintf(&b, "      %s\n", a)
		}
	}
	if st.Info.Capabilities.Prompts != nil {
		items, err := s.o.Hub.Prompts(ctx, name)
		b.WriteString("prompts:\n")
		for _, it := range items {
			var p struct {
				Name        string `json:"name"`
				Description string `json:"description"`
				Arguments   []struct {
					Name     string `json:"name"`
					Required bool   `json:"required"`
				} `json:"arguments"`
			}
			json.Unmarshal(it.Raw, &p)
			var args []string
			for _, a := range p.Arguments {
				if a.Required {
					a.Name += "*"
				}
				args = append(args, a.Name)
			}
			fmt.Fprintf(&b, "  %s(%s)", p.Name, strings.Join(args, ", "))
			if p.Description != "" {
				fmt.Fprintf(&b, " — %s", OneLine(p.Description, 120))
			}
			b.WriteString("\n")
		}
		if err != nil {
			fmt.Fprintf(&b, "  (listing failed: %s)\n", OneLine(err.Error(), 200))
		}
	}
	if st.Info.Capabilities.Resources != nil {
		items, err := s.o.Hub.Resources(ctx, name)
		b.WriteString("resources:\n")
		for _, it := range items {
			var r struct{ URI, Name, MimeType string }
			json.Unmarshal(it.Raw, &r)
			fmt.Fprintf(&b, "  %s %s %s\n", r.URI, r.Name, r.MimeType)
		}
		if err != nil {
			fmt.Fprintf(&b, "  (listing failed: %s)\n", OneLine(err.Error(), 200))
		}
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

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
			line += " — " + OneLine(ps.Description, 100)
		}
		out = append(out, line)
	}
	return out
}

// Restart stops a server and connects it again in the background.
func (s *Session) Restart(name string) error {
	h, err := s.hub()
	if err != nil {
		return err
	}
	return h.Restart(name)
}

// Reauthorize runs an HTTP server's OAuth login (the URL is printed and a
// browser opened) and restarts it with the new credential.
func (s *Session) Reauthorize(ctx context.Context, name string) error {
	h, err := s.hub()
	if err != nil {
		return err
	}
	return h.Reauthorize(ctx, name)
}

// SetEnabled enables or disables a catalog entry in the file at path and
// reloads the hub: only that server starts or stops.
func (s *Session) SetEnabled(ctx context.Context, path, name string, on bool) error {
	h, err := s.hub()
	if err != nil {
		return err
	}
	known := map[string]bool{}
	for _, e := range s.Catalog() {
		known[e.Name] = true
	}
	for _, st := range h.Status() {
		if !known[st.Name] {
			return errs.Errorf(errs.Invalid, "chat", "this agent's hub is not the catalog's (it has %q): change the servers in the agent's file", st.Name)
		}
	}
	err = catalog.Update(ctx, path, func(c *catalog.Config) error {
		e := c.Server(name)
		if e == nil {
			return errs.Errorf(errs.NotFound, "chat", "no server %q in the catalog (/mcp lists them)", name)
		}
		e.Enabled = on
		return nil
	})
	if err != nil {
		return err
	}
	cfg, err := catalog.Load(path)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.o.Catalog = cfg.Servers
	s.mu.Unlock()
	h.Reload(cfg.Servers)
	return nil
}
