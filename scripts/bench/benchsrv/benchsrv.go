// Package benchsrv benchmarks stdio MCP servers, whatever they are written
// in. Its client is deliberately minimal so the numbers describe the server:
// requests are pre-encoded JSON lines written straight to the child's stdin
// pipe, and responses are split by a buffered line reader and checked by a
// scan of their top-level members (no SDK, no JSON decoding into values).
//
// Workloads (each reports calls/s or a latency/size metric):
//
//	W1 Sequential  one tools/call echo round trip at a time
//	W2 InFlight    n requests kept in flight
//	W4 ColdStart   exec → first message(s) → tools/list answer, per process
//	W5 PeakRSS     peak resident set of the server after many calls
//
// The era of the conversation is chosen with [Options]: [Legacy] opens with
// initialize + notifications/initialized (2025-11-25); [Modern] opens with
// server/discover and puts the 2026-07-28 _meta envelope on every request.
package benchsrv

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Era is the protocol era the client speaks.
type Era string

const (
	Modern Era = "modern" // 2026-07-28: server/discover, per-request _meta
	Legacy Era = "legacy" // 2025-11-25: initialize handshake
)

// Protocol versions the client sends.
const (
	ModernVersion = "2026-07-28"
	LegacyVersion = "2025-11-25"
)

// modernMeta is the envelope every modern request carries (spec §3).
const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + ModernVersion +
	`","io.modelcontextprotocol/clientCapabilities":{}}`

// Options configure how a server is started and driven. The zero value is
// usable: modern era, 10 s response timeout.
type Options struct {
	Era     Era           // "" means Modern
	Env     []string      // added to the test process's environment
	Dir     string        // working directory of the server ("" = the test's)
	Timeout time.Duration // longest wait for one response (0 = 10 s)
	// Starts caps the cold starts ColdStart makes per benchmark invocation
	// (0 = b.N). A cold start costs tens to hundreds of milliseconds, so a
	// -benchtime=5000x run meant for the call workloads would take minutes.
	Starts int
}

func (o Options) era() Era {
	if o.Era == "" {
		return Modern
	}
	return o.Era
}

func (o Options) timeout() time.Duration {
	if o.Timeout <= 0 {
		return 10 * time.Second
	}
	return o.Timeout
}

// Server is a running server process with a completed handshake.
type Server struct {
	era     Era
	name    string
	cmd     *exec.Cmd
	in, out *os.File
	w       *bufio.Writer
	r       *bufio.Reader
	long    []byte // a line longer than r's buffer, assembled
	stderr  *TailBuffer
	timeout time.Duration
	nextID  int64
	t0      time.Time // just before exec

	callTail []byte // `,"method":"tools/call",…}\n` after the id
	listTail []byte
	buf      []byte

	closeOnce sync.Once
	state     *os.ProcessState // after Close
}

// Start starts cmd in the modern era (see [Options.Start]).
func Start(tb testing.TB, cmd string, args ...string) *Server {
	tb.Helper()
	return Options{}.Start(tb, cmd, args...)
}

// Start starts cmd with its arguments, performs the era's handshake and
// returns the server; it is killed when tb's test or benchmark ends. On
// failure the server's stderr is part of the message; it is also logged at
// cleanup if the test failed.
func (o Options) Start(tb testing.TB, cmd string, args ...string) *Server {
	tb.Helper()
	s, err := o.start(cmd, args)
	if err == nil {
		err = s.handshake()
	}
	if err != nil {
		if s != nil {
			s.Close()
		}
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		s.Close()
		if tb.Failed() {
			tb.Logf("stderr of %s:\n%s", s.name, s.stderr)
		}
	})
	return s
}

// start execs the process; it does not talk to it yet.
func (o Options) start(cmd string, args []string) (*Server, error) {
	era := o.era()
	if era != Modern && era != Legacy {
		return nil, fmt.Errorf("benchsrv: unknown era %q", era)
	}
	s := &Server{
		era:     era,
		name:    strings.Join(append([]string{cmd}, args...), " "),
		stderr:  &TailBuffer{Max: 64 << 10},
		timeout: o.timeout(),
		nextID:  1,
		buf:     make([]byte, 0, 512),
	}
	s.callTail = s.tail("tools/call", `"name":"echo","arguments":{"message":"hi"}`)
	s.listTail = s.tail("tools/list", "")

	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	c := exec.Command(cmd, args...)
	c.Stdin, c.Stdout, c.Stderr = inR, outW, s.stderr
	c.Dir = o.Dir
	if len(o.Env) > 0 {
		c.Env = append(os.Environ(), o.Env...)
	}
	c.WaitDelay = 2 * time.Second // a grandchild holding stderr must not hang Wait
	s.cmd, s.in, s.out = c, inW, outR
	s.t0 = time.Now()
	err = c.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	s.w = bufio.NewWriterSize(&deadlineIO{f: inW, timeout: s.timeout}, 64<<10)
	s.r = bufio.NewReaderSize(&deadlineIO{f: outR, timeout: s.timeout}, 64<<10)
	return s, nil
}

// tail pre-encodes everything of a request after its id.
func (s *Server) tail(method, fields string) []byte {
	var b strings.Builder
	b.WriteString(`,"method":"` + method + `","params":{` + fields)
	if s.era == Modern {
		if fields != "" {
			b.WriteString(",")
		}
		b.WriteString(modernMeta)
	}
	b.WriteString("}}\n")
	return []byte(b.String())
}

// Era is the era the server is spoken to in.
func (s *Server) Era() Era { return s.era }

// Pid is the server's process id.
func (s *Server) Pid() int { return s.cmd.Process.Pid }

// Stderr is what the server has written to stderr so far (its last 64 KiB).
func (s *Server) Stderr() string { return s.stderr.String() }

// Close kills the server and waits for it. It is safe to call twice.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		s.in.Close()
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
		s.out.Close()
		s.state = s.cmd.ProcessState
	})
}

func (s *Server) errorf(format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if s.state != nil {
		msg += " (" + s.name + ": " + s.state.String() + ")"
	}
	if st := strings.TrimSpace(s.stderr.String()); st != "" {
		msg += "\nstderr of " + s.name + ":\n" + st
	}
	return errors.New(msg)
}

// handshake opens the conversation the era's way.
func (s *Server) handshake() error {
	if s.era == Modern {
		id := s.id()
		s.send(id, s.tail("server/discover", ""))
		line, err := s.await(id)
		if err != nil {
			return err
		}
		if !bytes.Contains(line, []byte(`"supportedVersions"`)) || !bytes.Contains(line, []byte(`"`+ModernVersion+`"`)) {
			return s.errorf("server/discover: no DiscoverResult listing %s: %s", ModernVersion, line)
		}
		return nil
	}
	id := s.id()
	s.send(id, s.tail("initialize", `"protocolVersion":"`+LegacyVersion+
		`","capabilities":{},"clientInfo":{"name":"benchsrv","version":"0"}`))
	line, err := s.await(id)
	if err != nil {
		return err
	}
	if !bytes.Contains(line, []byte(`"protocolVersion"`)) {
		return s.errorf("initialize: no InitializeResult: %s", line)
	}
	s.w.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	return s.flush()
}

func (s *Server) id() int64 {
	id := s.nextID
	s.nextID++
	return id
}

// send buffers one request; flush writes it.
func (s *Server) send(id int64, tail []byte) {
	b := append(s.buf[:0], `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, tail...)
	s.w.Write(b)
	s.buf = b
}

func (s *Server) flush() error {
	if err := s.w.Flush(); err != nil {
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			s.Close() // it is probably dying: reap it so its stderr is complete
		}
		return s.errorf("writing to %s: %v", s.name, err)
	}
	return nil
}

// await flushes, then reads the response to id (which must be next) and
// fails on an error response.
func (s *Server) await(id int64) ([]byte, error) {
	if err := s.flush(); err != nil {
		return nil, err
	}
	got, line, err := s.read()
	if err != nil {
		return nil, err
	}
	if got != id {
		return nil, s.errorf("response id %d, want %d: %s", got, id, line)
	}
	return line, nil
}

// read returns the next response (skipping notifications): its id and the
// line, valid until the next read. An error response is an error.
func (s *Server) read() (int64, []byte, error) {
	for {
		line, err := s.readLine()
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				return 0, nil, s.errorf("no response from %s within %v", s.name, s.timeout)
			}
			s.Close() // it is probably dying: reap it so its stderr is complete
			return 0, nil, s.errorf("reading from %s: %v", s.name, err)
		}
		m, ok := topLevel(line)
		if !ok {
			return 0, nil, s.errorf("not a JSON object: %q", line)
		}
		if m.id == nil {
			continue // a notification
		}
		if m.method != nil {
			return 0, nil, s.errorf("unexpected server→client request: %s", line)
		}
		if m.err != nil {
			return 0, nil, s.errorf("error response: %s", line)
		}
		id, ok := parseID(m.id)
		if !ok {
			return 0, nil, s.errorf("response id %s is not one of ours: %s", m.id, line)
		}
		return id, line, nil
	}
}

func (s *Server) readLine() ([]byte, error) {
	line, err := s.r.ReadSlice('\n')
	if err == nil {
		return line, nil
	}
	if !errors.Is(err, bufio.ErrBufferFull) {
		return nil, err
	}
	s.long = append(s.long[:0], line...)
	for {
		line, err = s.r.ReadSlice('\n')
		s.long = append(s.long, line...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return s.long, err
		}
	}
}

// lineBuffered reports whether a whole response line is already buffered.
func (s *Server) lineBuffered() bool {
	n := s.r.Buffered()
	if n == 0 {
		return false
	}
	b, _ := s.r.Peek(n)
	return bytes.IndexByte(b, '\n') >= 0
}

// checkEcho checks an echo tools/call result.
func (s *Server) checkEcho(line []byte) error {
	if !bytes.Contains(line, []byte(`"hi"`)) {
		return s.errorf(`echo result lacks "hi": %s`, line)
	}
	return nil
}

// call makes one echo round trip.
func (s *Server) call() error {
	id := s.id()
	s.send(id, s.callTail)
	line, err := s.await(id)
	if err != nil {
		return err
	}
	return s.checkEcho(line)
}

// listTools makes one tools/list round trip and checks echo is listed.
func (s *Server) listTools() error {
	id := s.id()
	s.send(id, s.listTail)
	line, err := s.await(id)
	if err != nil {
		return err
	}
	if !bytes.Contains(line, []byte(`"echo"`)) {
		return s.errorf("tools/list lacks echo: %s", line)
	}
	return nil
}

// sequential makes n echo round trips, one at a time; lat (if not nil)
// receives each one's latency.
func (s *Server) sequential(n int, lat []time.Duration) error {
	for i := 0; i < n; i++ {
		var t time.Time
		if lat != nil {
			t = time.Now()
		}
		if err := s.call(); err != nil {
			return err
		}
		if lat != nil {
			lat[i] = time.Since(t)
		}
	}
	return nil
}

// inFlight makes total echo calls keeping n in flight: it writes n, then
// one more per response read. Responses may come in any order. Writes are
// flushed once no further whole response is already buffered.
func (s *Server) inFlight(total, n int) error {
	base := s.nextID
	s.nextID += int64(total)
	pending := make([]bool, total)
	sent := 0
	for ; sent < min(n, total); sent++ {
		s.send(base+int64(sent), s.callTail)
		pending[sent] = true
	}
	for recv := 0; recv < total; recv++ {
		if !s.lineBuffered() {
			if err := s.flush(); err != nil {
				return err
			}
		}
		id, line, err := s.read()
		if err != nil {
			return err
		}
		k := id - base
		if k < 0 || k >= int64(sent) || !pending[k] {
			return s.errorf("response id %d was not in flight: %s", id, line)
		}
		pending[k] = false
		if err := s.checkEcho(line); err != nil {
			return err
		}
		if sent < total {
			s.send(base+int64(sent), s.callTail)
			pending[sent] = true
			sent++
		}
	}
	return nil
}

// cpu is the server's user+system CPU time so far (/proc, 10 ms ticks).
func (s *Server) cpu() (time.Duration, bool) { return ProcCPU(s.Pid()) }

// ProcCPU is a process's user+system CPU time so far, from /proc/PID/stat
// (10 ms ticks).
func ProcCPU(pid int) (time.Duration, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(b, ')') // comm may contain spaces
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, false
	}
	// Fields after ")": state(3) … utime(14) stime(15), so indexes 11, 12.
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	const tick = 10 * time.Millisecond // USER_HZ is 100 on Linux
	return time.Duration(ut+st) * tick, true
}

// peakRSS is the server's peak resident set size in bytes: VmHWM from
// /proc/<pid>/status, read while it runs.
func (s *Server) peakRSS() (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(s.Pid()) + "/status")
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				return 0, err
			}
			return kb << 10, nil
		}
	}
	return 0, errors.New("no VmHWM in /proc/" + strconv.Itoa(s.Pid()) + "/status")
}

// deadlineIO is a pipe end whose reads and writes fail after timeout
// without progress. The deadline is pushed forward at most every
// timeout/4, so it costs a clock read per syscall, not a timer update.
type deadlineIO struct {
	f       *os.File
	timeout time.Duration
	rset    time.Time
	wset    time.Time
}

func (d *deadlineIO) Read(p []byte) (int, error) {
	if now := time.Now(); now.Sub(d.rset) > d.timeout/4 {
		d.f.SetReadDeadline(now.Add(d.timeout))
		d.rset = now
	}
	return d.f.Read(p)
}

func (d *deadlineIO) Write(p []byte) (int, error) {
	if now := time.Now(); now.Sub(d.wset) > d.timeout/4 {
		d.f.SetWriteDeadline(now.Add(d.timeout))
		d.wset = now
	}
	return d.f.Write(p)
}

// TailBuffer keeps the last Max bytes written to it (a server's stderr).
type TailBuffer struct {
	mu  sync.Mutex
	Max int
	b   []byte
}

func (t *TailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.Max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.Max:]...)
	}
	return len(p), nil
}

func (t *TailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
