//go:build linux

package transport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/trace"
)

const (
	// Long enough for a test server to exit on stdin EOF on a loaded
	// 2-core machine under -race (200 ms was not: CI flakes).
	testGrace = time.Second
	slack     = time.Second
)

// checkGoroutines fails the test if, once the test and its cleanups are
// done, more goroutines run than before it started. Call it first so its
// cleanup runs last.
func checkGoroutines(t *testing.T) {
	t.Helper()
	startSpawner() // the one goroutine meant to stay: it starts every server
	base := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(2 * time.Second)
		for runtime.NumGoroutine() > base {
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				n := runtime.Stack(buf, true)
				t.Errorf("goroutines leaked: %d running, %d before the test\n%s", runtime.NumGoroutine(), base, buf[:n])
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

func serverCmd(t *testing.T, mode string) Command {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Command{Path: exe, Args: []string{"-test.run=^$"}, Env: map[string]string{serverModeEnv: mode}}
}

// start starts a fake server and closes it at cleanup, checking that it was
// reaped.
func start(t *testing.T, cmd Command, opts Options) *Process {
	t.Helper()
	if opts.Name == "" {
		opts.Name = "fs"
	}
	if opts.ShutdownGrace == 0 {
		opts.ShutdownGrace = testGrace
	}
	p, err := Start(cmd, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.Close()
		select {
		case <-p.Done():
		default:
			t.Error("Done not closed after Close")
		}
		if !reaped(p.Pid()) {
			t.Errorf("pid %d still exists after Close (zombie?)", p.Pid())
		}
	})
	return p
}

// reaped reports whether pid is fully gone: no process, not even a zombie.
func reaped(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// dead reports whether pid no longer runs. An orphan killed with the group
// is reparented to PID 1, which in a container may never reap it, so a
// zombie counts as dead.
func dead(pid int) bool {
	if reaped(pid) {
		return true
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	// pid (comm) state ...; comm may contain spaces and parentheses.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && (s[i+2] == 'Z' || s[i+2] == 'X')
}

func waitDead(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for !dead(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("process %d survived", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func mustRead(t *testing.T, p *Process) []byte {
	t.Helper()
	msg, err := p.Read()
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return msg
}

func signalOf(p *Process) syscall.Signal {
	ws := p.State().Sys().(syscall.WaitStatus)
	if !ws.Signaled() {
		return 0
	}
	return ws.Signal()
}

func eventsOf(rec *trace.Recorder, k trace.Kind) []trace.Event {
	var out []trace.Event
	for _, e := range rec.Events() {
		if e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}

func TestRoundTrip(t *testing.T) {
	checkGoroutines(t)
	rec := &trace.Recorder{}
	cmd := serverCmd(t, "echo")
	p := start(t, cmd, Options{Trace: rec})
	msgs := []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `  {"a":"b c"}`, `{"big":"` + strings.Repeat("z", 200<<10) + `"}`}
	for _, m := range msgs {
		if err := p.Write([]byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range msgs {
		if got := mustRead(t, p); string(got) != m {
			t.Fatalf("got %.60q, want %.60q", got, m)
		}
	}
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if code, ok := p.ExitCode(); !ok || code != 0 {
		t.Fatalf("ExitCode = %d, %v", code, ok)
	}
	started := eventsOf(rec, trace.ProcessStarted)
	if len(started) != 1 || started[0].PID != p.Pid() || started[0].Server != "fs" ||
		started[0].Command != cmd.Path+" -test.run=^$" || !slices.Equal(started[0].EnvNames, []string{serverModeEnv}) {
		t.Fatalf("started events: %+v", started)
	}
	stopped := eventsOf(rec, trace.ProcessStopped)
	if len(stopped) != 1 || stopped[0].Exit == nil || *stopped[0].Exit != 0 || stopped[0].PID != p.Pid() {
		t.Fatalf("stopped events: %+v", stopped)
	}
	// After Close, Read ends cleanly too.
	if _, err := p.Read(); !errors.Is(err, io.EOF) || !errs.Is(err, errs.Process) {
		t.Fatalf("Read after Close: %v", err)
	}
}

func TestConcurrentWrites(t *testing.T) {
	checkGoroutines(t)
	p := start(t, serverCmd(t, "echo"), Options{})
	const writers, each = 16, 40
	type msg struct {
		W, N int
		Pad  string
	}
	var wg sync.WaitGroup
	errc := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			for n := range each {
				// Sizes past PIPE_BUF (4096), where the kernel would split writes.
				b, _ := json.Marshal(msg{W: w, N: n, Pad: strings.Repeat("p", (w*each+n)*37%20000)})
				if err := p.Write(b); err != nil {
					errc <- err
					return
				}
			}
		})
	}
	seen := map[[2]int]bool{}
	for range writers * each {
		line := mustRead(t, p)
		var m msg
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("interleaved line %.80q: %v", line, err)
		}
		if seen[[2]int{m.W, m.N}] {
			t.Fatalf("duplicate %v", m)
		}
		seen[[2]int{m.W, m.N}] = true
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
}

func TestJunkSkipped(t *testing.T) {
	checkGoroutines(t)
	rec := &trace.Recorder{}
	var junk []string
	p := start(t, serverCmd(t, "junk"), Options{Trace: rec, OnJunk: func(l []byte) { junk = append(junk, string(l)) }})
	if got := mustRead(t, p); string(got) != `{"ok":1}` {
		t.Fatalf("got %q", got)
	}
	want := []string{"hello from the server", "", "   ", "\t[1,2]", "not json {", "\x1b[31mred\x1b[0m"}
	if !slices.Equal(junk, want) {
		t.Fatalf("OnJunk got %q, want %q", junk, want)
	}
	ev := eventsOf(rec, trace.JunkSkipped)
	if len(ev) != len(want) {
		t.Fatalf("%d junk events, want %d", len(ev), len(want))
	}
	for i, e := range ev {
		if e.Server != "fs" || e.Count != len(want[i]) || len(e.Message) > 80 {
			t.Errorf("event %d: %+v", i, e)
		}
		if strings.ContainsFunc(e.Message, func(r rune) bool { return r < 0x20 }) {
			t.Errorf("event %d has raw control characters: %q", i, e.Message)
		}
	}
	if ev[5].Message != `\x1b[31mred\x1b[0m` || ev[3].Message != `\t[1,2]` {
		t.Errorf("previews: %q %q", ev[5].Message, ev[3].Message)
	}
}

func TestOversizeLine(t *testing.T) {
	checkGoroutines(t)
	p := start(t, serverCmd(t, "big"), Options{})
	_, err := p.Read()
	var oe *OversizeError
	if !errors.As(err, &oe) {
		t.Fatalf("Read: %v, want *OversizeError", err)
	}
	wantSize := int64(len(`{"id":7,"data":""}`) + 20<<20)
	if oe.Size != wantSize || oe.Max != DefaultMaxMessage || oe.Server != "fs" || len(oe.Prefix) != PrefixSize ||
		!bytes.HasPrefix(oe.Prefix, []byte(`{"id":7,"data":"xxx`)) {
		t.Fatalf("OversizeError: size %d max %d server %q prefix %d %.30q", oe.Size, oe.Max, oe.Server, len(oe.Prefix), oe.Prefix)
	}
	if !errs.Is(err, errs.Protocol) || !strings.Contains(err.Error(), `server "fs"`) {
		t.Fatalf("error %q kind %v", err, errs.KindOf(err))
	}
	if got := mustRead(t, p); string(got) != `{"id":8}` {
		t.Fatalf("next message %q", got)
	}
}

// The oversize line is read through, not held: memory allocated while
// reading a 20 MiB line under a 1 MiB cap stays far below 20 MiB.
func TestOversizeMemory(t *testing.T) {
	checkGoroutines(t)
	p := start(t, serverCmd(t, "big"), Options{MaxMessage: 1 << 20})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := p.Read()
	runtime.ReadMemStats(&after)
	var oe *OversizeError
	if !errors.As(err, &oe) {
		t.Fatalf("Read: %v", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 6<<20 {
		t.Fatalf("allocated %d bytes reading a %d-byte line", alloc, oe.Size)
	}
	if got := mustRead(t, p); string(got) != `{"id":8}` {
		t.Fatalf("next message %q", got)
	}
}

func TestExitStatusAndStderrTail(t *testing.T) {
	checkGoroutines(t)
	var mu sync.Mutex
	var all []string
	rec := &trace.Recorder{}
	p := start(t, serverCmd(t, "stderr"), Options{Trace: rec, StderrLines: 20, OnStderr: func(l string) {
		mu.Lock()
		all = append(all, l)
		mu.Unlock()
	}})
	_, err := p.Read()
	if !errs.Is(err, errs.Process) || !errors.Is(err, io.EOF) {
		t.Fatalf("Read: %v (kind %v)", err, errs.KindOf(err))
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, `server "fs" exited with status 3; last stderr: `) ||
		!strings.HasSuffix(msg, "stderr line 199 | fatal: boom") || strings.Contains(msg, "stderr line 189") ||
		strings.Contains(msg, "\n") || len(msg) > 2200 {
		t.Fatalf("error message (%d bytes): %s", len(msg), msg)
	}
	if code, ok := p.ExitCode(); !ok || code != 3 {
		t.Fatalf("ExitCode %d %v", code, ok)
	}
	tail := p.StderrTail(100)
	if len(tail) != 20 || tail[19] != "fatal: boom" || tail[0] != "stderr line 182" {
		t.Fatalf("tail %d lines: %q", len(tail), tail)
	}
	if long := tail[14]; long != strings.Repeat("y", 1000) {
		t.Fatalf("long line kept as %d bytes", len(long))
	}
	if got := p.StderrTail(2); !slices.Equal(got, []string{"stderr line 199", "fatal: boom"}) {
		t.Fatalf("StderrTail(2) = %q", got)
	}
	mu.Lock()
	if len(all) != 202 {
		t.Fatalf("OnStderr saw %d lines", len(all))
	}
	mu.Unlock()
	if err := p.Close(); !errs.Is(err, errs.Process) || !strings.Contains(err.Error(), "status 3") {
		t.Fatalf("Close: %v", err)
	}
	if ev := eventsOf(rec, trace.ProcessStopped); len(ev) != 1 || *ev[0].Exit != 3 {
		t.Fatalf("stopped: %+v", ev)
	}
}

func TestStartFailure(t *testing.T) {
	checkGoroutines(t)
	rec := &trace.Recorder{}
	_, err := Start(Command{Path: "luagent-no-such-program"}, Options{Name: "fs", Trace: rec})
	if !errs.Is(err, errs.Process) || !errors.Is(err, exec.ErrNotFound) {
		t.Fatalf("err %v kind %v", err, errs.KindOf(err))
	}
	if msg := err.Error(); !strings.Contains(msg, `cannot start server "fs"`) || !strings.Contains(msg, "luagent-no-such-program") ||
		!strings.Contains(msg, "command=") {
		t.Fatalf("message: %s", msg)
	}
	if len(rec.Events()) != 0 {
		t.Fatalf("events for a process that never started: %+v", rec.Events())
	}
	_, err = Start(Command{Path: "/bin/sh", Dir: "/no/such/dir"}, Options{Name: "fs"})
	if !errs.Is(err, errs.Process) || !strings.Contains(err.Error(), "cwd=") {
		t.Fatalf("bad dir: %v", err)
	}
	_, err = Start(Command{}, Options{Name: "fs"})
	if !errs.Is(err, errs.Process) {
		t.Fatalf("empty path: %v", err)
	}
	_, err = Start(Command{Path: "/bin/sh", Env: map[string]string{"A=B": "secret-value"}}, Options{Name: "fs"})
	if !errs.Is(err, errs.Invalid) || strings.Contains(err.Error(), "secret-value") {
		t.Fatalf("bad env name: %v", err)
	}
}

func timeClose(t *testing.T, p *Process) (time.Duration, error) {
	t.Helper()
	t0 := time.Now()
	err := p.Close()
	d := time.Since(t0)
	if d > 2*testGrace+slack {
		t.Fatalf("Close took %v", d)
	}
	return d, err
}

func TestCloseStdinSuffices(t *testing.T) {
	checkGoroutines(t)
	p := start(t, serverCmd(t, "echo"), Options{})
	d, err := timeClose(t, p)
	if err != nil {
		t.Fatal(err)
	}
	if sig := signalOf(p); sig != 0 || d >= testGrace {
		t.Fatalf("signal %v after %v: stdin EOF should have sufficed", sig, d)
	}
}

func TestCloseEscalatesToSIGTERM(t *testing.T) {
	checkGoroutines(t)
	p := start(t, serverCmd(t, "ignore-eof-obey-term"), Options{})
	mustRead(t, p)
	d, err := timeClose(t, p)
	if d < testGrace || signalOf(p) != syscall.SIGTERM {
		t.Fatalf("closed after %v by %v", d, signalOf(p))
	}
	if !errs.Is(err, errs.Process) || !strings.Contains(err.Error(), "signal 15") {
		t.Fatalf("Close: %v", err)
	}
	if code, _ := p.ExitCode(); code != -1 {
		t.Fatalf("ExitCode %d", code)
	}
}

func TestCloseEscalatesToSIGKILL(t *testing.T) {
	checkGoroutines(t)
	p := start(t, serverCmd(t, "ignore-stdin-eof"), Options{})
	mustRead(t, p)
	// A Read blocked in the meantime must end with the process.
	readErr := make(chan error, 1)
	go func() {
		_, err := p.Read()
		readErr <- err
	}()
	d, _ := timeClose(t, p)
	if d < 2*testGrace || signalOf(p) != syscall.SIGKILL {
		t.Fatalf("closed after %v by %v", d, signalOf(p))
	}
	select {
	case err := <-readErr:
		if !errors.Is(err, io.EOF) || !strings.Contains(err.Error(), "was closed") {
			t.Fatalf("Read: %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Read still blocked after Close")
	}
}

func TestCloseKillsGroup(t *testing.T) {
	checkGoroutines(t)
	p := start(t, serverCmd(t, "child"), Options{})
	var m struct{ Grandchild int }
	if err := json.Unmarshal(mustRead(t, p), &m); err != nil || m.Grandchild == 0 {
		t.Fatalf("%v %+v", err, m)
	}
	if dead(m.Grandchild) {
		t.Fatal("grandchild not running")
	}
	timeClose(t, p)
	waitDead(t, m.Grandchild)
}

// A server that dies leaving a child holding stdout: Read still ends, with
// the status, and the orphan is killed.
func TestCrashKillsGroup(t *testing.T) {
	checkGoroutines(t)
	p := start(t, serverCmd(t, "child-exit"), Options{})
	var m struct{ Grandchild int }
	if err := json.Unmarshal(mustRead(t, p), &m); err != nil || m.Grandchild == 0 {
		t.Fatalf("%v %+v", err, m)
	}
	t0 := time.Now()
	_, err := p.Read()
	if !errs.Is(err, errs.Process) || !strings.Contains(err.Error(), "exited with status 5") || time.Since(t0) > testGrace+slack {
		t.Fatalf("Read after %v: %v", time.Since(t0), err)
	}
	waitDead(t, m.Grandchild)
	if !reaped(p.Pid()) {
		t.Fatal("server not reaped")
	}
}

func TestEnvReachesChildNotTrace(t *testing.T) {
	checkGoroutines(t)
	const secret = "s3cr3t-value-4e1f"
	rec := &trace.Recorder{}
	var human bytes.Buffer
	cmd := serverCmd(t, "env")
	cmd.Env[testVarEnv] = secret
	p := start(t, cmd, Options{Trace: trace.Multi{rec, trace.NewHuman(&human)}})
	var m struct{ Value string }
	if err := json.Unmarshal(mustRead(t, p), &m); err != nil || m.Value != secret {
		t.Fatalf("%v: child saw %q", err, m.Value)
	}
	p.Close()
	started := eventsOf(rec, trace.ProcessStarted)
	if len(started) != 1 || !slices.Equal(started[0].EnvNames, []string{serverModeEnv, testVarEnv}) {
		t.Fatalf("started: %+v", started)
	}
	b, _ := json.Marshal(rec.Events())
	if bytes.Contains(b, []byte(secret)) || strings.Contains(human.String(), secret) {
		t.Fatalf("env value leaked into the trace: %s", b)
	}
}

// A server that prints a secret of its env (Command.Secrets): the stderr
// lines, the exit error's tail and the junk line's preview show
// <secret>, never the value.
func TestSecretsMaskedInStderr(t *testing.T) {
	checkGoroutines(t)
	const secret = "s3cr3t-value-9b2c"
	rec := &trace.Recorder{}
	var human bytes.Buffer
	var mu sync.Mutex
	var lines []string
	cmd := serverCmd(t, "leak")
	cmd.Env[testVarEnv] = secret
	cmd.Secrets = []string{"s3cr3t", secret, ""} // the longer one is masked whole
	p := start(t, cmd, Options{Trace: trace.Multi{rec, trace.NewHuman(&human)}, OnStderr: func(l string) {
		mu.Lock()
		lines = append(lines, l)
		mu.Unlock()
	}})
	_, err := p.Read()
	if !errs.Is(err, errs.Process) || !strings.HasSuffix(err.Error(), "last stderr: starting with token <secret> | fatal: <secret> rejected") {
		t.Fatalf("Read: %v", err)
	}
	mu.Lock()
	got := slices.Clone(lines)
	mu.Unlock()
	if !slices.Equal(got, []string{"starting with token <secret>", "fatal: <secret> rejected"}) || !slices.Equal(p.StderrTail(0), got) {
		t.Fatalf("OnStderr %q, tail %q", got, p.StderrTail(0))
	}
	if ev := eventsOf(rec, trace.JunkSkipped); len(ev) != 1 || ev[0].Message != "token=<secret>" {
		t.Fatalf("junk: %+v", ev)
	}
	p.Close()
	b, _ := json.Marshal(rec.Events())
	if bytes.Contains(b, []byte("s3cr3t")) || strings.Contains(human.String(), "s3cr3t") || strings.Contains(err.Error(), "s3cr3t") {
		t.Fatalf("the secret is shown: %v\n%s\n%s", err, b, human.String())
	}
}

// A write that meets the exit (EPIPE) says how the server ended and what
// it last wrote to stderr, as Read does, never that the pipe broke.
func TestWriteIntoAnExitSaysHowItEnded(t *testing.T) {
	checkGoroutines(t)
	for i := 0; i < 20; i++ {
		p := start(t, Command{Path: "/bin/sh", Args: []string{"-c", "echo 'fatal: bad flag' >&2; exit 3"}}, Options{})
		var err error
		for err == nil {
			err = p.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`))
		}
		if !errs.Is(err, errs.Process) || err.Error() != `server "fs" exited with status 3; last stderr: fatal: bad flag` {
			t.Fatalf("run %d: Write: %v", i, err)
		}
		p.Close()
	}
}

func TestWriteAfterExit(t *testing.T) {
	checkGoroutines(t)
	p := start(t, serverCmd(t, "exit-now"), Options{})
	<-p.Done()
	err := p.Write([]byte(`{"id":1}`))
	if !errs.Is(err, errs.Process) || err.Error() != `server "fs" exited with status 0` {
		t.Fatalf("Write: %v", err)
	}
	_, err = p.Read()
	if !errs.Is(err, errs.Process) || !errors.Is(err, io.EOF) || err.Error() != `server "fs" exited with status 0` {
		t.Fatalf("Read: %v", err)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := p.Write([]byte(`{}`)); !errs.Is(err, errs.Process) {
		t.Fatalf("Write after Close: %v", err)
	}
}

func TestWriteNewline(t *testing.T) {
	checkGoroutines(t)
	p := start(t, serverCmd(t, "echo"), Options{})
	if err := p.Write([]byte("{\"a\":\n1}")); !errs.Is(err, errs.Invalid) {
		t.Fatalf("Write: %v", err)
	}
	if err := p.Write([]byte(`{"still":"fine"}`)); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, p); string(got) != `{"still":"fine"}` {
		t.Fatalf("got %q", got)
	}
}

// A Write blocked on a server that does not read must not block Close.
func TestCloseUnblocksWrite(t *testing.T) {
	checkGoroutines(t)
	p := start(t, serverCmd(t, "no-read"), Options{})
	mustRead(t, p)
	werr := make(chan error, 1)
	go func() { werr <- p.Write(bytes.Repeat([]byte("x"), 4<<20)) }()
	time.Sleep(50 * time.Millisecond)
	timeClose(t, p)
	select {
	case err := <-werr:
		if !errs.Is(err, errs.Process) {
			t.Fatalf("Write: %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Write still blocked after Close")
	}
}

func TestCloseConcurrent(t *testing.T) {
	checkGoroutines(t)
	p := start(t, serverCmd(t, "echo"), Options{})
	var wg sync.WaitGroup
	errc := make(chan error, 8)
	for range 6 {
		wg.Go(func() { errc <- p.Close() })
	}
	wg.Go(func() {
		for {
			if _, err := p.Read(); err != nil {
				errc <- nil
				return
			}
		}
	})
	wg.Go(func() {
		for p.Write([]byte(`{}`)) == nil {
		}
		errc <- nil
	})
	wg.Wait()
	close(errc)
	for err := range errc {
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestStdoutClosedButRunning(t *testing.T) {
	checkGoroutines(t)
	p := start(t, serverCmd(t, "close-stdout"), Options{})
	_, err := p.Read()
	if !errs.Is(err, errs.Process) || !errors.Is(err, io.EOF) || !strings.Contains(err.Error(), "still running") {
		t.Fatalf("Read: %v", err)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

// A line longer than a pipe's capacity comes in pieces: the trace says so
// once (buffer_moved, the line's size), and not for the short line after.
func TestBufferMovedTraced(t *testing.T) {
	checkGoroutines(t)
	rec := &trace.Recorder{}
	cmd := serverCmd(t, "big")
	cmd.Env[bigSizeEnv] = "300000"
	p := start(t, cmd, Options{Trace: rec})
	if got := mustRead(t, p); len(got) != 300000+len(`{"id":7,"data":""}`) {
		t.Fatalf("first message: %d bytes", len(got))
	}
	if got := mustRead(t, p); string(got) != `{"id":8}` {
		t.Fatalf("next message %q", got)
	}
	ev := eventsOf(rec, trace.BufferMoved)
	if len(ev) != 1 || ev[0].Server != "fs" || ev[0].Count != 300000+len(`{"id":7,"data":""}`) || !strings.Contains(ev[0].Message, "reads") {
		t.Fatalf("buffer_moved events: %+v", ev)
	}
}
