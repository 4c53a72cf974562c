package hub

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/mcp"
)

// filtered is a hub over entries with tool filters, ready with the given
// tools, without processes.
func filtered(cfgs []*catalog.Server, tools map[string][]mcp.Tool) *Hub {
	h := New(cfgs, Options{})
	h.mu.Lock()
	for _, c := range cfgs {
		s := h.servers[c.Name]
		s.setTools(tools[c.Name])
		s.state.Status = Ready
	}
	h.renameLocked()
	h.mu.Unlock()
	return h
}

// A tool an entry's enabledTools/disabledTools filter out is not in the
// hub's catalog: not listed, not found by search, not counted, not
// callable (a not_found error naming the filter); the others are.
func TestToolFilters(t *testing.T) {
	h := filtered([]*catalog.Server{
		{Name: "fs", Enabled: true, Command: "none", DisabledTools: []string{"write_*", "delete"}},
		{Name: "gh", Enabled: true, Command: "none", EnabledTools: []string{"search_*", "get_issue", "create_issue"}, DisabledTools: []string{"create_issue"}},
		{Name: "web", Enabled: true, Command: "none"},
	}, map[string][]mcp.Tool{
		"fs":  {tool("read_file", "Read a file", "path"), tool("write_file", "Write a file", "path"), tool("delete", "Delete a file", "path")},
		"gh":  {tool("search_issues", "Search issues"), tool("get_issue", "Get an issue"), tool("create_issue", "Open an issue"), tool("merge", "Merge a pull request")},
		"web": {tool("fetch", "Fetch a URL", "url")},
	})
	all, _ := h.Tools()
	if got, want := names(all), []string{"fs__read_file", "gh__get_issue", "gh__search_issues", "web__fetch"}; !slices.Equal(got, want) {
		t.Errorf("Tools = %v, want %v", got, want)
	}
	st := byName(h.Status())
	if st["fs"].Tools != 1 || st["gh"].Tools != 2 || st["web"].Tools != 1 {
		t.Errorf("tool counts: fs %d, gh %d, web %d", st["fs"].Tools, st["gh"].Tools, st["web"].Tools)
	}
	for _, q := range []string{"write file", "delete", "merge pull request", "open issue"} {
		for _, r := range must(h.Search(q, SearchOptions{})) {
			if r.Name == "fs__write_file" || r.Name == "fs__delete" || r.Name == "gh__merge" || r.Name == "gh__create_issue" {
				t.Errorf("search %q found the filtered %s", q, r.Name)
			}
		}
	}
	if _, ok := h.Tool("fs__write_file"); ok {
		t.Error("Tool found a filtered tool")
	}
	for _, c := range []struct{ qualified, server, tool string }{
		{"fs__write_file", "fs", "write_file"}, {"gh__merge", "gh", "merge"}, {"gh__create_issue", "gh", "create_issue"},
	} {
		_, err := h.Call(context.Background(), c.qualified, nil, CallOptions{})
		if !errs.Is(err, errs.NotFound) || !strings.Contains(err.Error(), "enabledTools/disabledTools") ||
			!strings.Contains(err.Error(), c.tool) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Call(%s) = %v (kind %v), want not_found naming the filter in one line", c.qualified, err, errs.KindOf(err))
		}
		if err := h.ToolFiltered(c.server, c.tool); !errs.Is(err, errs.NotFound) || !strings.Contains(err.Error(), "config.json") {
			t.Errorf("ToolFiltered(%s, %s) = %v", c.server, c.tool, err)
		}
	}
	for _, c := range [][2]string{{"fs", "read_file"}, {"fs", "nope"}, {"nope", "x"}} {
		if err := h.ToolFiltered(c[0], c[1]); err != nil {
			t.Errorf("ToolFiltered(%s, %s) = %v, want nil (not filtered)", c[0], c[1], err)
		}
	}
	if _, err := h.Call(context.Background(), "fs__nope", nil, CallOptions{}); err == nil || strings.Contains(err.Error(), "enabledTools") {
		t.Errorf("an unknown tool: %v", err)
	}
}

func must(tools []Tool, _ bool) []Tool { return tools }
