package host_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luagent/luagent/luabind/host"
	"github.com/luagent/luagent/runtime/testkit"
)

// help(value) shows what the editor stubs say of it: a function's
// signature and first sentence, and every method of an object.
func TestHelpReadsTheStubs(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"a module function", `help(mcp.connect)`, []string{
			"mcp.connect(opts: mcp.ConnectOptions) -> mcp.Conn",
			"Connects to an MCP server and negotiates the era; waits until ready."}},
		{"a module", `help(json)`, []string{
			"json: JSON text <-> Lua values",
			"json.encode(v: any, opts?: {indent?: string|integer}) -> string",
			"Encodes `v` as JSON.",
			"json.null"}},
		{"a lazy module", `help(mcp)`, []string{"mcp.server(opts: mcp.ServerOptions) -> mcp.Server", "mcp.hub("}},
		{"every module", `help(task) help(log) help(env) help(agent) help(inspect)`, []string{
			"task.spawn(fn: ", "log.info(...)", "env.get(name: string, default?: string) -> string|nil",
			"agent.new(opts: agent.Options) -> agent.Agent", "inspect.quote(s: string) -> string"}},
		{"a server", `help(mcp.server{name = "x"})`, []string{
			"mcp.Server: An MCP server written in Lua;",
			"server:tool(def: mcp.ToolDef)", "Registers (or replaces) a tool.", "server:remove_tool(name: string) -> boolean"}},
		{"a task handle", `help(task.spawn(function() end))`, []string{
			"handle:await() -> any", "handle:cancel(message?: string)"}},
		{"a queue", `help(task.queue())`, []string{"queue:put(v: any) -> boolean"}},
		{"a catalog", `help(mcp.catalog(CATALOG))`, []string{"catalog:add(name: string, entry: mcp.ServerEntry"}},
		{"an agent", `help(agent.new{model = "mock", hub = false})`, []string{"agent:ask(prompt: string"}},
		{"a method", `help(task.queue().put)`, []string{"queue:put(v: any) -> boolean"}},
		{"a plain value", `help(42)`, []string{"42: a number (help() for the overview)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			out := &testkit.Buffer{}
			h := host.New(host.Config{Home: dir, Clean: true, Stdout: out, Stderr: out})
			defer h.Close()
			src := "CATALOG = " + quote(filepath.Join(dir, "c.json")) + "\n" + tc.src
			if code := h.Run(context.Background(), host.Script{Src: []byte(src), Name: "-e"}); code != host.ExitOK {
				t.Fatalf("exit %d:\n%s", code, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("help lacks %q:\n%s", w, out)
				}
			}
			if strings.Contains(out.String(), "no methods to list") {
				t.Errorf("help found no methods:\n%s", out)
			}
		})
	}
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `\`, `\\`) + `"` }
