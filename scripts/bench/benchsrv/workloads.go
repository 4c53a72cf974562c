package benchsrv

import (
	"github.com/luagent/luagent/runtime/cputime"

	"slices"
	"testing"
	"time"
)

// Warmup is how many untimed echo calls W1 and W2 make first, so that lazy
// initialisation and JIT compilation (Node) are not measured.
var Warmup = 200

// Sequential (W1) makes b.N sequential tools/call echo {"message":"hi"}
// round trips, checking each response's id and that it contains "hi". It
// reports calls/s, the p50/p99 latency (µs) and the server's and this
// client's CPU per call (µs; the server's from /proc in 10 ms ticks).
func Sequential(b *testing.B, s *Server) {
	b.Helper()
	if err := s.sequential(Warmup, nil); err != nil {
		b.Fatal(err)
	}
	lat := make([]time.Duration, b.N)
	cpu := startCPU(s)
	b.ResetTimer()
	if err := s.sequential(b.N, lat); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	reportCalls(b)
	cpu.report(b, s)
	slices.Sort(lat)
	b.ReportMetric(us(lat[len(lat)/2]), "p50-us")
	b.ReportMetric(us(lat[len(lat)*99/100]), "p99-us")
}

// InFlight (W2) makes b.N echo calls keeping n requests in flight: it writes
// n, then one more for each response read (responses may come in any
// order). It reports calls/s and CPU per call like Sequential.
func InFlight(b *testing.B, s *Server, n int) {
	b.Helper()
	if n < 1 {
		b.Fatalf("InFlight: n = %d", n)
	}
	if err := s.sequential(Warmup, nil); err != nil {
		b.Fatal(err)
	}
	cpu := startCPU(s)
	b.ResetTimer()
	if err := s.inFlight(b.N, n); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	reportCalls(b)
	cpu.report(b, s)
}

// ColdStart (W4) in the modern era; see [Options.ColdStart].
func ColdStart(b *testing.B, cmd string, args ...string) {
	b.Helper()
	Options{}.ColdStart(b, cmd, args...)
}

// ColdStart (W4) starts the server b.N times (at most o.Starts times if
// set). Each time it measures from exec to the answer to tools/list: the
// era's opening (server/discover; or initialize, its answer, then
// notifications/initialized) followed by tools/list, each request awaited
// as a real client would. It reports the median and p90 in ms (ns/op is
// suppressed: with Starts it is not per start) and kills the process.
func (o Options) ColdStart(b *testing.B, cmd string, args ...string) {
	b.Helper()
	n := b.N
	if o.Starts > 0 && n > o.Starts {
		n = o.Starts
	}
	ds := make([]time.Duration, 0, n)
	b.ResetTimer()
	for range n {
		d, err := o.coldStart(cmd, args)
		if err != nil {
			b.Fatal(err)
		}
		ds = append(ds, d)
	}
	b.StopTimer()
	slices.Sort(ds)
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(ms(ds[len(ds)/2]), "median-ms")
	b.ReportMetric(ms(ds[len(ds)*9/10]), "p90-ms")
}

// coldStart is one W4 sample.
func (o Options) coldStart(cmd string, args []string) (time.Duration, error) {
	s, err := o.start(cmd, args)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	if err := s.handshake(); err != nil {
		return 0, err
	}
	if err := s.listTools(); err != nil {
		return 0, err
	}
	return time.Since(s.t0), nil
}

// PeakRSS (W5) in the modern era; see [Options.PeakRSS].
func PeakRSS(tb testing.TB, calls int, cmd string, args ...string) float64 {
	tb.Helper()
	return Options{}.PeakRSS(tb, calls, cmd, args...)
}

// PeakRSS (W5) starts the server, makes calls sequential echo calls, reads
// its peak resident set (VmHWM in /proc/<pid>/status, while it still runs)
// and kills it. It returns the peak in MiB and, when tb is a *testing.B,
// reports it as peak-rss-MiB (ns/op suppressed).
//
// Why VmHWM and not rusage: getrusage(RUSAGE_CHILDREN) is the largest child
// the test process ever reaped (`go build` included), and even wait4's
// per-child ru_maxrss is polluted: Go spawns with vfork semantics, and at
// exec Linux folds the hiwater RSS of the old mm — the test process's own —
// into the child's maxrss (measured here: 6.3 MiB reported for a 2.2 MiB
// server). VmHWM belongs to the server's own address space.
func (o Options) PeakRSS(tb testing.TB, calls int, cmd string, args ...string) float64 {
	tb.Helper()
	s, err := o.start(cmd, args)
	if err == nil {
		defer s.Close()
		err = s.handshake()
	}
	if err == nil {
		err = s.sequential(calls, nil)
	}
	if err != nil {
		tb.Fatal(err)
	}
	peak, err := s.peakRSS()
	if err != nil {
		tb.Fatal(err)
	}
	mib := float64(peak) / (1 << 20)
	if b, ok := tb.(*testing.B); ok {
		b.ReportMetric(0, "ns/op")
		b.ReportMetric(mib, "peak-rss-MiB")
	}
	return mib
}

func reportCalls(b *testing.B) {
	if e := b.Elapsed(); e > 0 {
		b.ReportMetric(float64(b.N)/e.Seconds(), "calls/s")
	}
}

// cpuStart is the CPU times at the start of a measured loop.
type cpuStart struct {
	server time.Duration
	ok     bool
	client time.Duration
}

func startCPU(s *Server) cpuStart {
	sv, ok := s.cpu()
	return cpuStart{server: sv, ok: ok, client: cputime.Self()}
}

func (c cpuStart) report(b *testing.B, s *Server) {
	client := cputime.Self() - c.client
	b.ReportMetric(us(client)/float64(b.N), "client-cpu-us/call")
	if sv, ok := s.cpu(); ok && c.ok {
		b.ReportMetric(us(sv-c.server)/float64(b.N), "server-cpu-us/call")
	}
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
