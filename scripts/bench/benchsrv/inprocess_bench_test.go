package benchsrv_test

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/luagent/luagent/luabind/host"
	"github.com/luagent/luagent/runtime/cputime"
	"github.com/luagent/luagent/runtime/testkit"
)

// BenchmarkInProcess is W2 without the processes: examples/echo.lua served
// by host.Serve over pipes in this process (as `luagent serve` serves
// stdio), -peers.inflight calls kept in flight by a client goroutine. With
// -cpu=1 it runs as the binary does (one P). No other process shares the
// work, so allocations per call are exact and, under callgrind, so are the
// instructions (scripts/bench/BENCHMARKS.md, "W2 profile"):
//
//	go test ./scripts/bench/benchsrv -run '^$' -bench InProcess -benchmem -cpu 1
//
// cpu-ns/op is this process's CPU (user and system) per call: the server's
// and the client's, which is small and the same for every server.
func BenchmarkInProcess(b *testing.B) {
	src, err := os.ReadFile(filepath.Join(testkit.Root(), "examples", "echo.lua"))
	if err != nil {
		b.Skip(err)
	}
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},`
	for _, era := range []struct{ name, open, tail string }{
		{"legacy", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n",
			`,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}` + "\n"},
		{"modern", `{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{` + strings.TrimSuffix(meta, ",") + `}}` + "\n",
			`,"method":"tools/call","params":{` + meta + `"name":"echo","arguments":{"message":"hi"}}}` + "\n"},
	} {
		b.Run(era.name, func(b *testing.B) {
			h := host.New(host.Config{Home: b.TempDir(), Clean: true})
			defer h.Close()
			clientOut, serverIn := io.Pipe()
			serverOut, clientIn := io.Pipe()
			done := make(chan int, 1)
			go func() {
				done <- h.Serve(context.Background(), host.Script{Src: src, Name: "echo.lua"}, clientOut, clientIn)
			}()
			out := bufio.NewReader(serverOut)
			w := bufio.NewWriter(serverIn)
			w.WriteString(era.open)
			w.Flush()
			if _, err := out.ReadString('\n'); err != nil {
				b.Fatal(err)
			}
			id := 1
			run := func(n int) {
				sent := 0
				send := func() {
					w.WriteString(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + era.tail)
					id++
					sent++
				}
				for sent < min(*inflight, n) {
					send()
				}
				w.Flush()
				for got := 0; got < n; got++ {
					answer, err := out.ReadString('\n')
					if err != nil || !strings.Contains(answer, `"text":"hi"`) {
						b.Fatalf("answer %q, %v", answer, err)
					}
					if sent < n {
						send()
					}
					if out.Buffered() == 0 {
						w.Flush()
					}
				}
			}
			run(200) // as W2 warms up
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cputime.Self()
			run(b.N)
			b.StopTimer()
			b.ReportMetric(float64(cputime.Self()-cpu0)/float64(b.N), "cpu-ns/op")
			serverIn.Close()
			go io.Copy(io.Discard, serverOut)
			<-done
		})
	}
}
