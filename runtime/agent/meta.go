package agent

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"github.com/luagent/luagent/runtime/compact"
	"strings"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/hub"
)

// runMeta runs a meta-tool. Found tools are returned to be added to the
// offered list (by the caller, under the agent's lock).
func (a *Agent) runMeta(ctx context.Context, name string, args json.RawMessage) (Result, []string, error) {
	if isSkillTool(name) {
		r, err := a.runSkill(ctx, name, args)
		return r, nil, err
	}
	if name == compact.ReadToolResult && a.results != nil { // context.go
		r, err := a.readToolResultTool().Call(ctx, args)
		return r, nil, err
	}
	h := a.cfg.Hub
	if h == nil {
		return Result{}, nil, errs.New(errs.NotFound, name, "the agent has no hub")
	}
	var p struct {
		Query  string `json:"query"`
		Server string `json:"server"`
		URI    string `json:"uri"`
		Limit  int    `json:"limit"`
	}
	if len(args) > 0 {
		if err := json.Unmarshal(args, &p); err != nil {
			return Result{}, nil, errs.Errorf(errs.Invalid, name, "arguments are not a JSON object: %v", err)
		}
	}
	if p.Server != "" && !a.inSubset(p.Server) {
		return Result{}, nil, errs.Errorf(errs.NotFound, name, "server %q is not one of this agent's servers", p.Server)
	}
	switch name {
	case ToolSearch:
		return a.search(p.Query, p.Server, p.Limit)
	case ToolListResources:
		r, err := a.listResources(ctx, h, p.Server)
		return r, nil, err
	case ToolReadResource:
		if p.Server == "" || p.URI == "" {
			return Result{}, nil, errs.New(errs.Invalid, name, "server and uri are required")
		}
		raw, err := h.Read(ctx, p.Server, p.URI)
		if err != nil {
			return Result{}, nil, err
		}
		return resourceResult(raw), nil, nil
	}
	return Result{}, nil, errs.Errorf(errs.NotFound, name, "no meta-tool %q", name)
}

type foundTool struct {
	Name        string          `json:"name"`
	Server      string          `json:"server"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema"`
	ReadOnly    bool            `json:"readOnly,omitempty"`
}

func (a *Agent) search(query, server string, limit int) (Result, []string, error) {
	if limit <= 0 {
		limit = 10
	}
	limit = min(limit, 50)
	o := hub.SearchOptions{Server: server, Limit: limit}
	if server == "" && a.cfg.Servers != nil {
		o.Limit = 1 << 20 // rank everything, keep the agent's servers' best
	}
	hits, partial := a.cfg.Hub.Search(query, o)
	out := struct {
		Tools   []foundTool `json:"tools"`
		Partial bool        `json:"partial"`
		Note    string      `json:"note"`
	}{Tools: []foundTool{}, Partial: partial}
	var names []string
	for _, t := range hits {
		if !a.inSubset(t.Server) || len(out.Tools) == limit {
			continue
		}
		lt := llmTool(t)
		out.Tools = append(out.Tools, foundTool{Name: t.Name, Server: t.Server, Description: lt.Description, InputSchema: lt.Schema, ReadOnly: annotationsOf(t).ReadOnly()})
		names = append(names, t.Name)
	}
	switch {
	case len(names) == 0 && partial:
		out.Note = "no tool matched yet; some servers are still starting: search again later"
	case len(names) == 0:
		out.Note = "no tool matched: try other words"
	default:
		out.Note = "these tools are now callable by name"
	}
	b, err := json.Marshal(out)
	if err != nil {
		return Result{}, nil, errs.Wrap(errs.Internal, ToolSearch, err)
	}
	return Result{Content: []json.RawMessage{textBlock(string(b))}, StructuredContent: b}, names, nil
}

func (a *Agent) listResources(ctx context.Context, h *hub.Hub, server string) (Result, error) {
	items, err := h.Resources(ctx, server)
	if err != nil && len(items) == 0 {
		return Result{}, err
	}
	var lines []string
	list := []map[string]any{}
	for _, it := range items {
		if !a.inSubset(it.Server) {
			continue
		}
		var m map[string]any
		if json.Unmarshal(it.Raw, &m) != nil {
			continue
		}
		m["server"] = it.Server
		list = append(list, m)
	}
	b, _ := json.Marshal(map[string]any{"resources": list})
	lines = append(lines, string(b))
	if err != nil {
		lines = append(lines, "some servers could not list theirs: "+err.Error())
	}
	return Result{Content: []json.RawMessage{textBlock(strings.Join(lines, "\n"))}}, nil
}

// resourceResult maps a resources/read result to content blocks: text
// stays text, an image blob becomes an image, other blobs are described.
func resourceResult(raw json.RawMessage) Result {
	var rr struct {
		Contents []resourceContent `json:"contents"`
	}
	if json.Unmarshal(raw, &rr) != nil {
		return Result{Content: []json.RawMessage{textBlock(string(raw))}}
	}
	var r Result
	for _, c := range rr.Contents {
		switch {
		case c.Text != nil:
			r.Content = append(r.Content, textBlock(*c.Text))
		case strings.HasPrefix(c.MIMEType, "image/"):
			b, _ := json.Marshal(map[string]string{"type": "image", "data": c.Blob, "mimeType": c.MIMEType})
			r.Content = append(r.Content, b)
		default:
			n := base64.StdEncoding.DecodedLen(len(c.Blob))
			r.Content = append(r.Content, textBlock(fmt.Sprintf("[resource %s: %s, about %d bytes]", c.URI, c.MIMEType, n)))
		}
	}
	return r
}

func textBlock(s string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"type": "text", "text": s})
	return b
}
