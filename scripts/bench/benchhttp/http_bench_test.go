package benchhttp_test

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/cputime"
	"github.com/luagent/luagent/runtime/testkit"
	"github.com/luagent/luagent/scripts/bench/benchhttp"
	"github.com/luagent/luagent/scripts/bench/benchsrv"
)

// BenchmarkHTTP (W3) compares echo servers over Streamable HTTP, each driven
// by the same minimal raw client (package benchhttp), every server in the
// same run:
//
//	go test -run='^$' -bench=HTTP -benchtime=3000x -count=2 ./scripts/bench/benchhttp/
//
// Sub-benchmarks are W3/c=N/SERVER/ERA: b.N tools/call echo round trips
// shared by N concurrent clients (each client one call at a time; a legacy
// client is its own session), measured after an untimed warm-up. Reported:
// calls/s, p50-us and p99-us (latency of one call), server-cpu-us/call
// (from /proc, 10 ms ticks) and client-cpu-us/call (this process).
//
// BenchmarkHTTPSoak is the soak: -soak.clients (200) clients × -soak.calls
// (50) calls against luagent's HTTP server in both eras; every answer must
// arrive, correct, within -soak.timeout (60 s) in all.
//
// Servers (one process per sub-benchmark run, on 127.0.0.1:0):
//
//	gosdk   runtime/testkit/servers/gosdkecho -http (Go SDK v1.8.0): legacy on its
//	        default (stateful) handler, modern with -stateless (the SDK
//	        serves 2026-07-28 over HTTP only statelessly)
//	mcpgo   runtime/testkit/servers/mcpgoecho -http (mcp-go v1.2.1, default
//	        options; one handler serves both eras)
//	lua     luagent serve examples/echo.lua --http 127.0.0.1:0/mcp
//	lua-w2  the same with --workers 2 (skipped, saying so, if `luagent
//	        serve` refuses the option: "unknown serve option --workers")
//	lua-w2-gogc100  lua-w2 with GOGC=100, Go's default (serve --http sets
//	        200 unless GOGC is set): what that setting contributes
//	lua-base, lua-base-w2  lua and lua-w2 served by $LUAGENT_BASE_BIN (say,
//	        main before a change), for a change measured against its base
//	        in one run; skipped when it is not set
//
// -soak.peers runs the soak against gosdk and mcpgo too.

var (
	w3Conc       = flag.String("w3.clients", "1,16", "W3: comma-separated numbers of concurrent clients")
	soakClients  = flag.Int("soak.clients", 200, "soak: concurrent clients")
	soakCalls    = flag.Int("soak.calls", 50, "soak: calls per client")
	soakTimeout  = flag.Duration("soak.timeout", 60*time.Second, "soak: the longest the whole soak may take")
	soakAllPeers = flag.Bool("soak.peers", false, "soak: run the peers (gosdk, mcpgo) too, not only luagent")
)

// A server in the comparison: its name, the eras it serves over HTTP, and
// its command line for an era.
type server struct {
	name string
	eras []benchsrv.Era
	cmd  func(tb testing.TB, era benchsrv.Era) command
}

// command is a server's argv, the environment it needs besides ours, and
// (optional) a serve option it may not accept yet: when the server exits
// saying "unknown serve option OPT", the row is skipped, not failed.
type command struct {
	argv  []string
	env   []string
	needs string
}

var both = []benchsrv.Era{benchsrv.Modern, benchsrv.Legacy}

var servers = []server{
	{"gosdk", both, func(tb testing.TB, era benchsrv.Era) command {
		argv := []string{testkit.Build(tb, "runtime/testkit/servers/gosdkecho"), "-http", "127.0.0.1:0"}
		if era == benchsrv.Modern {
			argv = append(argv, "-stateless")
		}
		return command{argv: argv}
	}},
	{"mcpgo", both, func(tb testing.TB, era benchsrv.Era) command {
		return command{argv: []string{testkit.Build(tb, "runtime/testkit/servers/mcpgoecho"), "-http", "127.0.0.1:0"}}
	}},
	{"lua", both, luagent()},
	{"lua-w2", both, luagent("--workers", "2")},
	{"lua-w2-gogc100", both, func(tb testing.TB, era benchsrv.Era) command {
		c := luagent("--workers", "2")(tb, era)
		c.env = append(c.env, "GOGC=100") // Go's default, which serve --http changes to 200
		return c
	}},
	{"lua-base", both, luagentBase()},
	{"lua-base-w2", both, luagentBase("--workers", "2")},
}

// luagentBase is luagent with $LUAGENT_BASE_BIN as the binary.
func luagentBase(extra ...string) func(testing.TB, benchsrv.Era) command {
	return func(tb testing.TB, era benchsrv.Era) command {
		base := os.Getenv("LUAGENT_BASE_BIN")
		if base == "" {
			tb.Skip("LUAGENT_BASE_BIN is not set")
		}
		c := luagent(extra...)(tb, era)
		c.argv[0] = base
		return c
	}
}

// luagent runs `luagent serve examples/echo.lua --http 127.0.0.1:0/mcp`
// with extra options.
func luagent(extra ...string) func(testing.TB, benchsrv.Era) command {
	return func(tb testing.TB, _ benchsrv.Era) command {
		script := filepath.Join(testkit.Root(), "examples", "echo.lua")
		argv := append([]string{testkit.Build(tb, "cmd/luagent"), "serve", script, "--http", "127.0.0.1:0/mcp"}, extra...)
		c := command{argv: argv, env: []string{"LUAGENT_HOME=" + tb.TempDir()}}
		if len(extra) > 0 {
			c.needs = extra[0]
		}
		return c
	}
}

// start starts s for era; it is killed when tb ends (its output logged if
// tb failed).
func start(tb testing.TB, s server, era benchsrv.Era) *benchhttp.Server {
	tb.Helper()
	c := s.cmd(tb, era)
	srv, err := benchhttp.StartServer(c.argv, c.env, 30*time.Second)
	if err != nil {
		var ee *benchhttp.ExitedError
		if c.needs != "" && errors.As(err, &ee) && strings.Contains(ee.Output, "unknown serve option "+c.needs) {
			tb.Skipf("%s: `luagent serve` does not accept %s yet (it said: %s); this row runs once it does",
				s.name, c.needs, strings.TrimSpace(ee.Output))
		}
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		exited := srv.Exited()
		srv.Close()
		if tb.Failed() || exited {
			tb.Logf("%s (exited early: %v), its output:\n%s", s.name, exited, srv.Output())
		}
	})
	return srv
}

func conc(tb testing.TB) []int {
	var ns []int
	for _, f := range strings.Split(*w3Conc, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			tb.Fatalf("-w3.clients: %q is not a positive number", f)
		}
		ns = append(ns, n)
	}
	return ns
}

func BenchmarkHTTP(b *testing.B) {
	b.Run("W3", func(b *testing.B) {
		for _, n := range conc(b) {
			b.Run("c="+strconv.Itoa(n), func(b *testing.B) {
				for _, s := range servers {
					b.Run(s.name, func(b *testing.B) {
						for _, era := range s.eras {
							b.Run(string(era), func(b *testing.B) { w3(b, s, era, n) })
						}
					})
				}
			})
		}
	})
}

// w3 is one W3 run: n clients share b.N calls.
func w3(b *testing.B, s server, era benchsrv.Era, n int) {
	srv := start(b, s, era)
	ctx := context.Background()
	l, err := benchhttp.Open(ctx, benchhttp.Options{URL: srv.URL, Era: era}, n)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close(ctx)
	// Warm up every connection and the server's lazy paths.
	if err := l.Shared(ctx, max(benchsrv.Warmup, 20*n)).Err(); err != nil {
		b.Fatalf("warm-up: %v", err)
	}
	sv0, svOK := srv.CPU()
	cl0 := cputime.Self()
	b.ResetTimer()
	st := l.Shared(ctx, b.N)
	b.StopTimer()
	if err := st.Err(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(st.PerSecond(), "calls/s")
	b.ReportMetric(us(st.Quantile(0.50)), "p50-us")
	b.ReportMetric(us(st.Quantile(0.99)), "p99-us")
	b.ReportMetric(us(cputime.Self()-cl0)/float64(b.N), "client-cpu-us/call")
	if sv1, ok := srv.CPU(); ok && svOK {
		b.ReportMetric(us(sv1-sv0)/float64(b.N), "server-cpu-us/call")
	}
}

// BenchmarkHTTPSoak: SERVER/ERA, -soak.clients clients (sessions, in the
// legacy era) × -soak.calls calls each, all at once; nothing may be lost.
// It runs once per -count (b.N does not change its size; ns/op is
// suppressed) and reports calls/s, p50-us, p99-us, max-us and answered
// (the number of correct answers: clients × calls, or the run failed).
func BenchmarkHTTPSoak(b *testing.B) {
	for _, s := range servers {
		if !strings.HasPrefix(s.name, "lua") && !*soakAllPeers {
			continue
		}
		b.Run(s.name, func(b *testing.B) {
			for _, era := range s.eras {
				b.Run(string(era), func(b *testing.B) {
					v, ok := soakDone.Load(b.Name())
					if !ok || b.N == 1 {
						v = soak(b, s, era, *soakClients, *soakCalls)
						soakDone.Store(b.Name(), v)
					}
					r := v.(soakResult)
					b.ReportMetric(0, "ns/op")
					b.ReportMetric(r.perSec, "calls/s")
					b.ReportMetric(r.p50, "p50-us")
					b.ReportMetric(r.p99, "p99-us")
					b.ReportMetric(r.max, "max-us")
					b.ReportMetric(r.answered, "answered")
				})
			}
		})
	}
}

var soakDone sync.Map // sub-benchmark name → soakResult

type soakResult struct{ perSec, p50, p99, max, answered float64 }

// soak runs clients × calls against a fresh server and fails tb unless
// every answer arrives, correct, in time.
func soak(tb testing.TB, s server, era benchsrv.Era, clients, calls int) soakResult {
	tb.Helper()
	srv := start(tb, s, era)
	ctx, cancel := context.WithTimeout(context.Background(), *soakTimeout)
	defer cancel()
	t0 := time.Now()
	l, err := benchhttp.Open(ctx, benchhttp.Options{URL: srv.URL, Era: era, Timeout: *soakTimeout}, clients)
	if err != nil {
		tb.Fatalf("soak: %v", err)
	}
	st := l.Each(ctx, calls)
	closeErr := l.Close(ctx)
	if err := st.Err(); err != nil {
		tb.Fatalf("soak %s/%s, %d clients × %d calls, after %v: %v", s.name, era, clients, calls, time.Since(t0).Round(time.Millisecond), err)
	}
	if closeErr != nil {
		tb.Fatalf("soak: %v", closeErr)
	}
	if srv.Exited() {
		tb.Fatalf("soak: the server exited")
	}
	if st.Answered != clients*calls {
		tb.Fatalf("soak: %d answers, want %d", st.Answered, clients*calls)
	}
	return soakResult{st.PerSecond(), us(st.Quantile(0.50)), us(st.Quantile(0.99)), us(st.Lat[len(st.Lat)-1]), float64(st.Answered)}
}

// TestServers runs the harness against every server in both eras, briefly
// (4 clients × 20 calls), and a small soak against luagent, so that `make
// test` checks what `make bench` measures.
func TestServers(t *testing.T) {
	for _, s := range servers {
		t.Run(s.name, func(t *testing.T) {
			for _, era := range s.eras {
				t.Run(string(era), func(t *testing.T) {
					srv := start(t, s, era)
					ctx := context.Background()
					const clients, calls = 4, 20
					l, err := benchhttp.Open(ctx, benchhttp.Options{URL: srv.URL, Era: era}, clients)
					if err != nil {
						t.Fatal(err)
					}
					sessions := map[string]bool{}
					for _, c := range l.Clients() {
						sessions[c.Session()] = true
					}
					if era == benchsrv.Legacy && (len(sessions) != clients || sessions[""]) {
						t.Errorf("legacy clients got sessions %v, want %d distinct", sessions, clients)
					}
					if era == benchsrv.Modern && (len(sessions) != 1 || !sessions[""]) {
						t.Errorf("modern clients got sessions %v", sessions)
					}
					st := l.Each(ctx, calls)
					if err := st.Err(); err != nil {
						t.Fatal(err)
					}
					if st.Answered != clients*calls {
						t.Fatalf("%d answers", st.Answered)
					}
					if more := l.Shared(ctx, 30); more.Err() != nil || more.Answered != 30 {
						t.Fatalf("Shared: %v", more.Err())
					}
					if err := l.Close(ctx); err != nil {
						t.Fatal(err)
					}
				})
			}
		})
	}
}

// TestSoakSmall is the soak at a size -race can afford (32 clients × 10
// calls) against luagent.
func TestSoakSmall(t *testing.T) {
	for _, era := range both {
		t.Run(string(era), func(t *testing.T) {
			r := soak(t, serverNamed(t, "lua"), era, 32, 10)
			if r.p50 <= 0 || r.p99 < r.p50 || r.max < r.p99 {
				t.Errorf("quantiles %+v", r)
			}
		})
	}
}

// serverNamed is the row called name.
func serverNamed(tb testing.TB, name string) server {
	for _, s := range servers {
		if s.name == name {
			return s
		}
	}
	tb.Fatalf("no server %q in the table", name)
	return server{}
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
