package hub

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/mcp"
)

// listed is a hub whose servers are ready with the given tools, without
// processes (the catalog side only).
func listed(servers map[string][]mcp.Tool, order ...string) *Hub {
	var cfgs []*catalog.Server
	for _, name := range order {
		cfgs = append(cfgs, &catalog.Server{Name: name, Enabled: true, Command: "none"})
	}
	h := New(cfgs, Options{})
	for _, name := range order {
		s := h.servers[name]
		s.setTools(servers[name])
		s.state.Status = Ready
	}
	h.renameLocked()
	return h
}

func tool(name, desc string, args ...string) mcp.Tool {
	props := map[string]any{}
	for _, a := range args {
		props[a] = map[string]string{"type": "string"}
	}
	schema, _ := json.Marshal(map[string]any{"type": "object", "properties": props})
	return mcp.Tool{Name: name, Description: desc, InputSchema: schema}
}

func TestSearch(t *testing.T) {
	h := listed(map[string][]mcp.Tool{
		"fs": {
			tool("read_text_file", "Read the complete contents of a file as text", "path"),
			tool("write_file", "Create a new file or overwrite an existing one", "path", "content"),
			tool("list_directory", "List the entries of a directory", "path"),
		},
		"gh": {
			tool("searchIssues", "Search issues and pull requests in a repository", "query", "repo"),
			tool("create_issue", "Open a new issue", "title", "body", "repo"),
		},
		"web": {tool("fetch", "Fetch a URL and return its text", "url")},
	}, "fs", "gh", "web")
	check := func(q string, o SearchOptions, want ...string) {
		t.Helper()
		got, _ := h.Search(q, o)
		if len(got) < len(want) {
			t.Errorf("search %q: %v, want first %v", q, names(got), want)
			return
		}
		for i, w := range want {
			if got[i].Name != w {
				t.Errorf("search %q: %v, want first %v", q, names(got), want)
				return
			}
		}
	}
	check("read file", SearchOptions{}, "fs__read_text_file")
	check("readFile", SearchOptions{}, "fs__read_text_file")
	if got, _ := h.Search("issues", SearchOptions{Limit: 2}); len(got) != 2 || got[0].Server != "gh" || got[1].Server != "gh" {
		t.Errorf("issues: %v", names(got))
	}
	check("search", SearchOptions{}, "gh__searchIssues")
	check("url", SearchOptions{}, "web__fetch")                                        // an argument name and a word of the description
	check("repo", SearchOptions{Server: "gh"}, "gh__create_issue", "gh__searchIssues") // ties by name
	if got, _ := h.Search("file", SearchOptions{Server: "gh"}); len(got) != 0 {
		t.Errorf("server filter: %v", names(got))
	}
	if got, _ := h.Search("", SearchOptions{Limit: 2}); len(got) != 2 || got[0].Name != "fs__list_directory" {
		t.Errorf("empty query: %v", names(got))
	}
	if got, _ := h.Search("zebra", SearchOptions{}); len(got) != 0 {
		t.Errorf("no match: %v", names(got))
	}
	got, _ := h.Search("write", SearchOptions{})
	if len(got) == 0 || got[0].SchemaHash == "" || string(got[0].Def.InputSchema) == "" || got[0].Server != "fs" {
		t.Errorf("result fields: %+v", got)
	}
}

// thousand is 1,000 tools over 10 servers, with varied words.
func thousand() *Hub {
	verbs := []string{"get", "list", "create", "update", "delete", "search", "read", "write", "sync", "render"}
	nouns := []string{"issue", "file", "page", "user", "repo", "commit", "branch", "ticket", "invoice", "message",
		"channel", "event", "metric", "alert", "report", "record", "table", "query", "image", "video"}
	servers := map[string][]mcp.Tool{}
	var order []string
	for s := 0; s < 10; s++ {
		name := fmt.Sprintf("srv%d", s)
		order = append(order, name)
		for i := 0; i < 100; i++ {
			v, n := verbs[(i+s)%len(verbs)], nouns[(i*7+s)%len(nouns)]
			servers[name] = append(servers[name], tool(fmt.Sprintf("%s_%s_%d", v, n, i),
				fmt.Sprintf("%s a %s of the %s workspace, with paging and filters for %s", v, n, name, nouns[(i+3)%len(nouns)]),
				n+"Id", "limit", "cursor"))
		}
	}
	return listed(servers, order...)
}

// BenchmarkSearch: one query over 1,000 tools (target: at most 1 ms).
func BenchmarkSearch(b *testing.B) {
	h := thousand()
	queries := []string{"create issue", "list files in repo", "deleteUser", "render video report", "metric alert channel"}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if got, _ := h.Search(queries[i%len(queries)], SearchOptions{Limit: 10}); len(got) == 0 {
			b.Fatal("no results")
		}
	}
}

// A server's name is a word of its tools: "gitlab issue" finds gitlab's
// issue tool first, though github's reads the same and sorts first.
func TestSearchServerName(t *testing.T) {
	h := listed(map[string][]mcp.Tool{
		"github": {tool("create_issue", "Open a new issue", "title")},
		"gitlab": {tool("create_issue", "Open a new issue", "title")},
		"fs":     {tool("read_file", "Read a file", "path")},
	}, "github", "gitlab", "fs")
	for q, want := range map[string]string{"gitlab issue": "gitlab__create_issue", "github issue": "github__create_issue", "gitlab": "gitlab__create_issue"} {
		if got, _ := h.Search(q, SearchOptions{}); len(got) == 0 || got[0].Name != want {
			t.Errorf("search %q: %v, want %s first", q, names(got), want)
		}
	}
}
