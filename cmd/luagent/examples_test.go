package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luagent/luagent/internal/peers"
)

// Every example runs, exits 0 and prints something. Examples that talk to
// MCP servers use the pinned peers (make peers).
func TestExamples(t *testing.T) {
	files, _ := filepath.Glob("../../examples/*.lua")
	nested, _ := filepath.Glob("../../examples/*/*.lua")
	files = append(files, nested...)
	if len(files) == 0 {
		t.Fatal("no examples found")
	}
	fsCmd, fsArgs := peers.Filesystem(t, "")
	env := []string{"MCP_FS_SERVER=" + strings.Join(append([]string{fsCmd}, fsArgs[:len(fsArgs)-1]...), " ")}
	env = append(env, "PATH="+filepath.Dir(bin)+":"+os.Getenv("PATH"))
	for _, f := range files {
		name, _ := filepath.Rel("../../examples", f)
		t.Run(name, func(t *testing.T) {
			src, _ := os.ReadFile(f)
			if strings.Contains(string(src), "mcp.server{") {
				// A server: serve it and drive it with a client.
				abs, _ := filepath.Abs(f)
				client := `local c = mcp.connect{ command = "` + bin + `", args = { "serve", "` + abs + `" } }
local tools = c:tools()
assert(#tools > 0, "no tools")
print(c:info().name, #tools, tools[1].name)
c:close()`
				r := luagent(t, "", env, "-e", client)
				if r.code != 0 || strings.TrimSpace(r.stdout) == "" {
					t.Fatalf("serving %s: %+v", f, r)
				}
				return
			}
			args := []string{"run", f}
			if name == "conformance/client.lua" {
				// The judge's client: make conformance runs every scenario;
				// here it connects to the fixture served over HTTP.
				args = append(args, serveHTTPArgs(t, "../../examples/conformance/server.lua", "--http", "127.0.0.1:0/mcp").url)
				env = append(env[:len(env):len(env)], "MCP_CONFORMANCE_SCENARIO=initialize")
			}
			r := luagent(t, "", env, args...)
			if r.code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			if strings.TrimSpace(r.stdout) == "" {
				t.Error("printed nothing")
			}
			noGoStack(t, r.stderr)
		})
	}
}

func TestFilesystemExampleReadsTheFile(t *testing.T) {
	fsCmd, fsArgs := peers.Filesystem(t, "")
	env := []string{"MCP_FS_SERVER=" + strings.Join(append([]string{fsCmd}, fsArgs[:len(fsArgs)-1]...), " ")}
	r := luagent(t, "", env, "run", "../../examples/filesystem.lua", "../../examples/hello.lua")
	if r.code != 0 || !strings.Contains(r.stdout, "-- The smallest script") || !strings.Contains(r.stdout, "secure-filesystem-server") {
		t.Errorf("%+v", r)
	}
}
