package catalog

import (
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/errs"
)

func TestNormalizeURL(t *testing.T) {
	tests := []struct {
		a, b string
		same bool
	}{
		{"https://mcp.example.com/mcp", "https://mcp.example.com/mcp", true},
		{"https://mcp.example.com/mcp", "HTTPS://MCP.Example.COM/mcp", true},
		{"https://mcp.example.com/mcp", "https://mcp.example.com:443/mcp", true},
		{"http://mcp.example.com/mcp", "http://mcp.example.com:80/mcp", true},
		{"https://mcp.example.com", "https://mcp.example.com/", true},
		{"https://mcp.example.com/%7Euser/mcp", "https://mcp.example.com/~user/mcp", true},
		{"https://mcp.example.com/a%2fb", "https://mcp.example.com/a%2Fb", true},
		{"https://mcp.example.com/mcp?tenant=%61", "https://mcp.example.com/mcp?tenant=a", true},
		{"https://mcp.example.com/mcp#frag", "https://mcp.example.com/mcp", true},
		{"http://[::1]:8080/mcp", "http://[::1]:8080/mcp", true},
		// Different servers.
		{"https://mcp.example.com/mcp", "https://mcp.example.com/MCP", false},
		{"https://mcp.example.com/mcp", "https://mcp.example.com/mcp/", false},
		{"https://mcp.example.com/mcp", "http://mcp.example.com/mcp", false},
		{"https://mcp.example.com/mcp", "https://mcp.example.com:8443/mcp", false},
		{"https://mcp.example.com/mcp", "https://mcp.example.com/mcp?tenant=2", false},
		{"https://mcp.example.com/mcp?a=1&b=2", "https://mcp.example.com/mcp?b=2&a=1", false},
		{"https://mcp.example.com/a%2Fb", "https://mcp.example.com/a/b", false},
		{"not a url", "not a url", false},
	}
	for _, tt := range tests {
		if got := SameURL(tt.a, tt.b); got != tt.same {
			t.Errorf("SameURL(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.same)
		}
	}
}

func TestServersAt(t *testing.T) {
	cfg, err := Parse([]byte(`{"version":1,"mcpServers":{
		"a": {"url": "https://mcp.example.com/mcp"},
		"b": {"url": "https://MCP.example.com:443/mcp", "connectionId": "b-1"},
		"c": {"url": "https://mcp.example.com/mcp?tenant=2"},
		"d": {"command": "x"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range cfg.ServersAt("https://mcp.example.com/mcp") {
		names = append(names, s.Name)
	}
	if strings.Join(names, ",") != "a,b" {
		t.Errorf("ServersAt: %v, want a,b", names)
	}
	if got := cfg.ServersAt("https://mcp.example.com/mcp?tenant=2"); len(got) != 1 || got[0].Name != "c" {
		t.Errorf("the query is significant: %v", got)
	}
	if cfg.Server("b").ConnectionID() != "b-1" || cfg.Server("a").ConnectionID() != "" {
		t.Errorf("connectionId: %q %q", cfg.Server("b").ConnectionID(), cfg.Server("a").ConnectionID())
	}
}

// Two entries may not share a connectionId; it must be a nonempty string.
func TestConnectionIDValidate(t *testing.T) {
	tests := []struct {
		name, servers, want string
	}{
		{"distinct", `"a": {"url": "https://x.example/mcp", "connectionId": "1"}, "b": {"url": "https://x.example/mcp", "connectionId": "2"}`, ""},
		{"shared", `"a": {"url": "https://x.example/mcp", "connectionId": "1"}, "b": {"url": "https://y.example/mcp", "connectionId": "1"}`,
			`mcpServers.b.connectionId: is also the connectionId of a; two entries may not share one`},
		{"not a string", `"a": {"url": "https://x.example/mcp", "connectionId": 7}`, "mcpServers.a.connectionId: must be a nonempty string"},
		{"blank", `"a": {"url": "https://x.example/mcp", "connectionId": " "}`, "mcpServers.a.connectionId: must be a nonempty string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse([]byte(`{"version":1,"mcpServers":{` + tt.servers + `}}`))
			if err != nil {
				t.Fatal(err)
			}
			err = cfg.Validate()
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if errs.KindOf(err) != errs.Invalid || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("got %v, want one line of kind invalid with %q", err, tt.want)
			}
		})
	}
}
