package types_test

import (
	"testing"

	"github.com/luagent/luagent/stdlib/types"
)

// help() reads the stubs: each module and object class has its functions
// with the signatures and first sentences the stubs give.
func TestDocs(t *testing.T) {
	d := types.Docs()
	for _, tc := range []struct{ class, fn, sig, summary string }{
		{"luagent.mcp", "connect", "mcp.connect(opts: mcp.ConnectOptions) -> mcp.Conn", "Connects to an MCP server and negotiates the era; waits until ready."},
		{"mcp.Conn", "call", "conn:call(name: string, args?: table, opts?: mcp.CallOptions) -> mcp.CallResult", "Calls a tool."},
		{"mcp.Conn", "resources", "conn:resources() -> mcp.Resource[]", ""},
		{"luagent.json", "encode", "json.encode(v: any, opts?: {indent?: string|integer}) -> string", "Encodes `v` as JSON."},
		{"luagent.env", "get", "env.get(name: string, default?: string) -> string|nil", "The variable's value; `default` (or nil) when it is unset or empty."},
		{"task.Handle", "await", "handle:await() -> any", "Waits for the task and returns what its function returned; raises the task's error (the value it ..."},
	} {
		c := d.Classes[tc.class]
		if c == nil {
			t.Errorf("no class %s", tc.class)
			continue
		}
		f := c.Func(tc.fn)
		if f == nil {
			t.Errorf("%s has no %s", tc.class, tc.fn)
			continue
		}
		if tc.sig != "" && c.Signature(f) != tc.sig {
			t.Errorf("%s.%s: signature %q, want %q", tc.class, tc.fn, c.Signature(f), tc.sig)
		}
		if f.Summary != tc.summary && tc.sig != "" {
			t.Errorf("%s.%s: summary %q, want %q", tc.class, tc.fn, f.Summary, tc.summary)
		}
	}
	if s := d.Classes["luagent.mcp"].Summary; s == "" {
		t.Errorf("the mcp module has no summary")
	}
	for _, name := range d.Order {
		c := d.Classes[name]
		t.Logf("%s (%s) %q", c.Name, c.Var, c.Summary)
		for _, f := range c.Funcs {
			t.Logf("  %s  %s", c.Signature(f), f.Summary)
		}
	}
}
