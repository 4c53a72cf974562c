package mcp_test

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/luagent/luagent/luabind/host"
)

// The server's per-call path, in process: a modern tools/call line in,
// the Lua handler as a task, its result shaped and encoded, the answer
// line out (host.Serve over a pipe, as luagent serve runs it over stdio).
// Each case is one kind of result the handler returns: a string, a table
// (structured content) and a list of content blocks.
func BenchmarkServeLuaTool(b *testing.B) {
	for _, c := range []struct{ name, ret, want string }{
		{"text", `args.message`, `"text":"hi"`},
		{"structured", `{ message = args.message, n = 1 }`, `"structuredContent":`},
		{"content", `{ { type = "text", text = args.message } }`, `"text":"hi"`},
	} {
		b.Run(c.name, func(b *testing.B) {
			script := `local s = mcp.server{ name = "bench", version = "1.0.0" }
s:tool{ name = "echo", input = { message = "string" }, handler = function(args) return ` + c.ret + ` end }
return s`
			h := host.New(host.Config{Home: b.TempDir(), Clean: true})
			defer h.Close()
			clientOut, serverIn := io.Pipe()
			serverOut, clientIn := io.Pipe()
			done := make(chan int, 1)
			go func() {
				done <- h.Serve(context.Background(), host.Script{Src: []byte(script), Name: "bench.lua"}, clientOut, clientIn)
			}()
			out := bufio.NewReader(serverOut)
			line := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"},` +
				`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}` + "\n"
			call := func() {
				if _, err := io.WriteString(serverIn, line); err != nil {
					b.Fatal(err)
				}
				answer, err := out.ReadString('\n')
				if err != nil || !strings.Contains(answer, c.want) {
					b.Fatalf("answer %q, %v", answer, err)
				}
			}
			call()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				call()
			}
			b.StopTimer()
			serverIn.Close()
			go io.Copy(io.Discard, serverOut)
			<-done
		})
	}
}
