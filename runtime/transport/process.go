package transport

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/secret"
	"github.com/luagent/luagent/runtime/trace"
)

// Defaults for Options.
const (
	DefaultStderrLines   = 50
	DefaultShutdownGrace = 2 * time.Second

	maxStderrLine  = 1000 // bytes kept of one stderr line
	errTailLines   = 10   // stderr lines quoted in an exit error
	errTailBytes   = 2048 // and at most this much of them
	previewBytes   = 80   // of a junk line, in its trace event
	errTailJoinSep = " | "
)

// Command says how to start a server process. No shell is involved.
type Command struct {
	Path string            // program, looked up on PATH like exec.Command does
	Args []string          // arguments, without the program
	Env  map[string]string // added to (overriding) the inherited environment
	Dir  string            // working directory, "" = inherit
	// Inherit says which of luagent's own environment variables the
	// process inherits besides Env; the zero value is all of them but the
	// ones that hold luagent's own credentials (WithheldEnv).
	Inherit Inherit
	// Secrets are values the process may print but luagent never shows
	// (its env's secrets): each is SecretMask in the stderr lines
	// (Options.OnStderr, StderrTail, the exit error's tail) and in the
	// previews of skipped stdout lines.
	Secrets []string
}

// SecretMask stands for a secret value in what luagent shows.
const SecretMask = secret.Mask

// Options tune a Process. The zero value is usable.
type Options struct {
	Name          string            // server name, for errors and trace events; default: base name of Command.Path
	MaxMessage    int               // bytes; a longer stdout line is rejected; default DefaultMaxMessage
	StderrLines   int               // stderr lines kept in a ring buffer; default DefaultStderrLines (each truncated to 1000 bytes)
	OnStderr      func(line string) // optional, called for each stderr line from the stderr goroutine; must not block long
	OnJunk        func(line []byte) // optional, called from Read for each skipped stdout line (at most PrefixSize bytes, a copy)
	Trace         trace.Sink        // may be nil
	ShutdownGrace time.Duration     // wait after closing stdin, and again after SIGTERM; default DefaultShutdownGrace
}

// Process is a running server and the two ends of its newline-delimited
// JSON stream.
type Process struct {
	name  string
	cmd   *exec.Cmd
	pid   int
	grace time.Duration
	sink  trace.Sink

	stdin  *os.File // parent's write end
	stdout *os.File // parent's read end
	stderr *os.File // parent's read end

	lr     *LineReader // only Read touches it
	onJunk func([]byte)

	writeMu sync.Mutex
	closing atomic.Bool // Close has begun: Write refuses

	// sigMu orders group signals against reaping: while the leader is not
	// reaped its pid, and so the group id, cannot be reused, so a signal sent
	// under sigMu with reaped false cannot hit a stranger.
	sigMu  sync.Mutex
	reaped bool

	done       chan struct{} // exited and reaped
	reaperDone chan struct{} // reaper goroutine finished
	stderrDone chan struct{} // stderr goroutine finished
	state      *os.ProcessState

	mask *secret.Masker // Command.Secrets (nil: none)

	tailMu    sync.Mutex
	tail      []string // ring buffer of stderr lines
	tailStart int
	tailLen   int
	onStderr  func(string)

	closeOnce sync.Once
	closeErr  error

	// ready: the server finished its handshake (MarkReady), so at exit it
	// gets Close's grace; one that never did is killed at once.
	ready    atomic.Bool
	killed   chan struct{} // closed by Kill: stop waiting, kill now
	killOnce sync.Once
}

// Start spawns the process. A failure to start is an *errs.Error of kind
// errs.Process that names the server and the program and says what to check.
func Start(cmd Command, opts Options) (*Process, error) {
	name := opts.Name
	if name == "" {
		name = filepath.Base(cmd.Path)
	}
	if cmd.Path == "" {
		return nil, errs.New(errs.Process, "", fmt.Sprintf("cannot start server %q: no command given; set command= in its configuration", name))
	}
	env, err := buildEnv(os.Environ(), cmd.Env, cmd.Inherit)
	if err != nil {
		return nil, errs.Errorf(errs.Invalid, "", "cannot start server %q: %v; check env= and inheritEnv= in its configuration", name, err)
	}
	if opts.MaxMessage <= 0 {
		opts.MaxMessage = DefaultMaxMessage
	}
	if opts.StderrLines <= 0 {
		opts.StderrLines = DefaultStderrLines
	}
	if opts.ShutdownGrace <= 0 {
		opts.ShutdownGrace = DefaultShutdownGrace
	}

	// Own pipes rather than exec's StdoutPipe: exec's Wait would close the
	// read ends as soon as the process is reaped, losing output still in the
	// pipe, and we reap as soon as the process exits. os.Pipe sets
	// close-on-exec, so servers started concurrently do not inherit each
	// other's stdin (which would keep it from ever reaching EOF).
	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return
	}
	inR, inW, err1 := pipe()
	outR, outW, err2 := pipe()
	errR, errW, err3 := pipe()
	if err := errors.Join(err1, err2, err3); err != nil {
		closeAll()
		return nil, errs.Errorf(errs.Process, "", "cannot start server %q: %w", name, err)
	}

	c := exec.Command(cmd.Path, cmd.Args...)
	c.Env = env
	c.Dir = cmd.Dir
	c.Stdin, c.Stdout, c.Stderr = inR, outW, errW
	setProcAttr(c)
	if !beginStart() {
		closeAll()
		return nil, errs.Errorf(errs.Closed, "", "cannot start server %q: luagent is exiting", name)
	}
	guardReady()
	if err := startCmd(c); err != nil {
		endStart(nil)
		closeAll()
		hint := "check command= in its configuration"
		if cmd.Dir != "" {
			hint = "check command= and cwd= in its configuration"
		}
		return nil, &errs.Error{Kind: errs.Process, Msg: fmt.Sprintf("cannot start server %q: %v; %s", name, err, hint), Err: err}
	}
	// The child has its copies; ours would keep the pipes open forever.
	inR.Close()
	outW.Close()
	errW.Close()

	p := &Process{
		name:       name,
		cmd:        c,
		pid:        c.Process.Pid,
		grace:      opts.ShutdownGrace,
		sink:       opts.Trace,
		stdin:      inW,
		stdout:     outR,
		stderr:     errR,
		onJunk:     opts.OnJunk,
		done:       make(chan struct{}),
		killed:     make(chan struct{}),
		reaperDone: make(chan struct{}),
		stderrDone: make(chan struct{}),
		tail:       make([]string, opts.StderrLines),
		onStderr:   opts.OnStderr,
		mask:       secret.NewMasker(cmd.Secrets),
	}
	p.lr = NewLineReader(outR, opts.MaxMessage)
	p.lr.OnJunk = p.junk
	p.lr.OnPartial = p.partial

	trace.Emit(p.sink, trace.Event{
		Kind:     trace.ProcessStarted,
		Server:   name,
		PID:      p.pid,
		Command:  formatCommand(cmd.Path, cmd.Args),
		EnvNames: envNames(cmd.Env),
	})
	go p.readStderr()
	go p.reap()
	endStart(p)
	return p, nil
}

// Read returns the next message: one stdout line that is a JSON object
// (first non-space byte '{'), without the newline. Other lines are skipped
// (Options.OnJunk, trace.JunkSkipped). A line over Options.MaxMessage gives
// an *OversizeError and the next Read goes on with the next line. When
// stdout ends, Read waits for the exit and returns an errs.Process error with
// the exit status and the stderr tail; it wraps io.EOF.
//
// Read must be called from one goroutine only.
func (p *Process) Read() ([]byte, error) {
	msg, err := p.lr.Next()
	if err == nil {
		return msg, nil
	}
	var oe *OversizeError
	if errors.As(err, &oe) {
		oe.Server = p.name
		trace.Emit(p.sink, trace.Event{
			Kind:    trace.JunkSkipped,
			Server:  p.name,
			Count:   int(oe.Size),
			Message: "oversize message discarded: " + preview(p.mask.Bytes(oe.Prefix), previewBytes),
		})
		return nil, oe
	}
	return nil, p.endError(err)
}

// endError turns the end of stdout into the error Read reports.
func (p *Process) endError(cause error) error {
	if !errors.Is(cause, io.EOF) && !errors.Is(cause, os.ErrClosed) && !errors.Is(cause, os.ErrDeadlineExceeded) {
		// A genuine read failure; still the end of this process for us.
		return &errs.Error{Kind: errs.Process, Msg: fmt.Sprintf("cannot read from server %q: %v", p.name, cause), Err: cause}
	}
	t := time.NewTimer(p.grace)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
		return &errs.Error{Kind: errs.Process, Err: io.EOF,
			Msg: fmt.Sprintf("server %q closed its stdout but is still running; close it and start it again", p.name)}
	}
	return &errs.Error{Kind: errs.Process, Msg: p.exitMessage(), Err: io.EOF}
}

// exitMessage says how the exited process ended, with its stderr tail;
// p.done must be closed. It waits for the stderr goroutine (the reaper
// bounds that), so the last lines a dying server wrote are in it.
func (p *Process) exitMessage() string {
	<-p.stderrDone
	msg := fmt.Sprintf("server %q %s", p.name, describeExit(p.state))
	if p.closing.Load() {
		msg = fmt.Sprintf("server %q was closed (it %s)", p.name, describeExit(p.state))
	}
	if tail := p.errTail(); tail != "" {
		msg += "; last stderr: " + tail
	}
	return msg
}

// Write sends msg and a newline in one write. It is safe for concurrent
// callers: lines never interleave. msg must not contain a newline.
func (p *Process) Write(msg []byte) error {
	if bytes.IndexByte(msg, '\n') >= 0 {
		return errs.New(errs.Invalid, "", fmt.Sprintf("message for server %q contains a newline; stdio messages must be one line", p.name))
	}
	if err := p.goneError(); err != nil {
		return err
	}
	buf := make([]byte, len(msg)+1)
	copy(buf, msg)
	buf[len(msg)] = '\n'
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	if _, err := p.stdin.Write(buf); err != nil {
		// EPIPE: the reader is gone, so the process is exiting. Say how it
		// ended once it has (as Read does), not that the pipe broke.
		if !p.closing.Load() && p.waitDone(p.grace) {
			return &errs.Error{Kind: errs.Process, Msg: p.exitMessage(), Err: err}
		}
		if gone := p.goneError(); gone != nil {
			return gone
		}
		return &errs.Error{Kind: errs.Process, Msg: fmt.Sprintf("cannot write to server %q: %v; it is probably exiting", p.name, err), Err: err}
	}
	return nil
}

// goneError says why writing is impossible, or nil while the process runs.
func (p *Process) goneError() error {
	if p.closing.Load() {
		return errs.New(errs.Process, "", fmt.Sprintf("server %q is closed", p.name))
	}
	select {
	case <-p.done:
		return errs.New(errs.Process, "", p.exitMessage())
	default:
		return nil
	}
}

// Close shuts the server down gracefully: it closes stdin, waits up to
// ShutdownGrace for the exit, then sends SIGTERM to the process group, waits
// again, then SIGKILL. It always reaps the process and stops every goroutine
// of the Process. It returns nil if the server exited with status 0, else an
// errs.Process error saying how it ended. Close is idempotent and safe to call
// concurrently with Read, Write and Kill; later calls return the first result.
func (p *Process) Close() error {
	p.closeOnce.Do(func() {
		p.closing.Store(true)
		// Closing the file also wakes a Write blocked on a full pipe.
		p.stdin.Close()
		p.end()
		<-p.reaperDone
		// Wakes a Read still blocked, say on a pipe held open by a process
		// that left the group.
		p.stdout.Close()
		if code, _ := p.ExitCode(); code != 0 {
			p.closeErr = errs.New(errs.Process, "", fmt.Sprintf("server %q %s", p.name, describeExit(p.state)))
		}
	})
	return p.closeErr
}

// Kill stops the server at once: SIGKILL to its process group, no grace
// (for a server that never answered its handshake, there is nothing to
// wait for). It cuts short a Close in progress and returns what Close
// returns.
func (p *Process) Kill() error {
	p.killOnce.Do(func() { close(p.killed) })
	return p.Close()
}

// MarkReady says the server finished its handshake: from now on, ending
// luagent (EndAll) closes it gracefully instead of killing it at once.
func (p *Process) MarkReady() { p.ready.Store(true) }

// end waits for the exit after stdin was closed: the grace, SIGTERM, the
// grace again, SIGKILL; Kill skips straight to SIGKILL.
func (p *Process) end() {
	if p.waitDone(p.grace) {
		return
	}
	if !p.isKilled() {
		p.signal(sigTerm)
		if p.waitDone(p.grace) {
			return
		}
	}
	p.signal(sigKill)
	<-p.done
}

// waitDone waits up to d for the exit; false when d passed or Kill was
// called first.
func (p *Process) waitDone(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.done:
		return true
	case <-p.killed:
		select {
		case <-p.done:
			return true
		default:
			return false
		}
	case <-t.C:
		return false
	}
}

func (p *Process) isKilled() bool {
	select {
	case <-p.killed:
		return true
	default:
		return false
	}
}

// signal sends sig to the process group unless the leader is reaped.
func (p *Process) signal(sig signalKind) {
	p.sigMu.Lock()
	defer p.sigMu.Unlock()
	if !p.reaped {
		signalGroup(p.cmd.Process, sig)
	}
}

// reap waits for the exit, kills what is left of the group, reaps, and then
// makes sure the stderr goroutine ends too.
func (p *Process) reap() {
	defer close(p.reaperDone)
	if waitExited(p.pid) {
		// The leader is a zombie: its pid still names the group, so killing
		// the leftovers (orphans nobody else would stop) is safe, and so is
		// telling the guard to forget the group before the id can be reused.
		p.sigMu.Lock()
		signalGroup(p.cmd.Process, sigKillLeftovers)
		guardForget(p.pid)
		p.cmd.Wait()
		p.reaped = true
		p.sigMu.Unlock()
	} else {
		p.cmd.Wait()
		p.sigMu.Lock()
		guardForget(p.pid)
		p.reaped = true
		p.sigMu.Unlock()
	}
	untrack(p)
	p.state = p.cmd.ProcessState
	code, _ := exitCode(p.state)
	trace.Emit(p.sink, trace.Event{
		Kind:    trace.ProcessStopped,
		Server:  p.name,
		PID:     p.pid,
		Exit:    &code,
		Message: describeExit(p.state),
	})
	close(p.done)

	p.stdin.Close()
	// Read gets the output still in the pipe; only a read that would block
	// past the grace (a writer escaped from the group) fails, and ends.
	p.stdout.SetReadDeadline(time.Now().Add(p.grace))
	t := time.NewTimer(p.grace)
	defer t.Stop()
	select {
	case <-p.stderrDone:
	case <-t.C:
		p.stderr.Close()
		<-p.stderrDone
	case <-p.killed:
		// Killed: whatever still holds stderr (a process that left the
		// group) is not worth waiting for.
		p.stderr.Close()
		<-p.stderrDone
	}
	p.stderr.Close()
}

// readStderr fills the ring buffer until stderr ends.
func (p *Process) readStderr() {
	defer close(p.stderrDone)
	br := bufio.NewReaderSize(p.stderr, 4096)
	var line []byte
	seen := false
	for {
		chunk, err := br.ReadSlice('\n')
		complete := err == nil
		if complete {
			chunk = chunk[:len(chunk)-1]
		}
		seen = seen || len(chunk) > 0
		if room := maxStderrLine - len(line); room > 0 {
			line = append(line, chunk[:min(room, len(chunk))]...)
		}
		if complete || (err != bufio.ErrBufferFull && seen) {
			p.addStderr(cleanLine(line))
			line, seen = line[:0], false
		}
		if err != nil && err != bufio.ErrBufferFull {
			return
		}
	}
}

// cleanLine makes a stderr line safe to keep and show: no trailing CR, no
// rune cut in half by the truncation, valid UTF-8.
func cleanLine(b []byte) string {
	b = bytes.TrimSuffix(b, []byte{'\r'})
	if len(b) == maxStderrLine {
		for i := 0; i < utf8.UTFMax && len(b) > 0 && !utf8.Valid(b[max(0, len(b)-utf8.UTFMax):]); i++ {
			b = b[:len(b)-1]
		}
	}
	return strings.ToValidUTF8(string(b), "?")
}

func (p *Process) addStderr(s string) {
	s = p.mask.String(s)
	if p.onStderr != nil {
		p.onStderr(s)
	}
	if strings.TrimSpace(s) == "" {
		return // says nothing about why a server died
	}
	p.tailMu.Lock()
	n := len(p.tail)
	p.tail[(p.tailStart+p.tailLen)%n] = s
	if p.tailLen < n {
		p.tailLen++
	} else {
		p.tailStart = (p.tailStart + 1) % n
	}
	p.tailMu.Unlock()
}

// StderrTail returns up to the last n stderr lines, oldest first; n <= 0
// means all that are kept.
func (p *Process) StderrTail(n int) []string {
	p.tailMu.Lock()
	defer p.tailMu.Unlock()
	if n <= 0 || n > p.tailLen {
		n = p.tailLen
	}
	out := make([]string, n)
	for i := range out {
		out[i] = p.tail[(p.tailStart+p.tailLen-n+i)%len(p.tail)]
	}
	return out
}

// errTail is the stderr tail for an error message: one line, the most
// recent lines that fit.
func (p *Process) errTail() string {
	lines := p.StderrTail(errTailLines)
	size := 0
	first := len(lines)
	for i := len(lines) - 1; i >= 0; i-- {
		size += len(lines[i]) + len(errTailJoinSep)
		if size > errTailBytes {
			break
		}
		first = i
	}
	return strings.Join(lines[first:], errTailJoinSep)
}

func (p *Process) junk(line []byte, size int64) {
	line = p.mask.Bytes(line)
	trace.Emit(p.sink, trace.Event{
		Kind:    trace.JunkSkipped,
		Server:  p.name,
		Count:   int(size),
		Message: preview(line, previewBytes),
	})
	if p.onJunk != nil {
		p.onJunk(line)
	}
}

// partial traces a stdout line that came in pieces (its start held in the
// read buffer while more was read).
func (p *Process) partial(size int64, reads int) {
	trace.Emit(p.sink, trace.Event{
		Kind:    trace.BufferMoved,
		Server:  p.name,
		Count:   int(size),
		Message: fmt.Sprintf("a partial line waited in the read buffer: %d bytes in %d reads", size, reads),
	})
}

// Done is closed when the process has exited and been reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// ExitCode returns the exit status once the process has exited: -1 if a
// signal ended it.
func (p *Process) ExitCode() (int, bool) {
	select {
	case <-p.done:
		return exitCode(p.state)
	default:
		return 0, false
	}
}

// State returns the process state once it has exited, else nil; use it to
// tell which signal ended the process.
func (p *Process) State() *os.ProcessState {
	select {
	case <-p.done:
		return p.state
	default:
		return nil
	}
}

// Pid returns the process id, which is also its process group id on Unix.
func (p *Process) Pid() int { return p.pid }

// Name returns the server name used in errors and events.
func (p *Process) Name() string { return p.name }

func exitCode(ps *os.ProcessState) (int, bool) {
	if ps == nil {
		return -1, true
	}
	return ps.ExitCode(), true
}

func envNames(env map[string]string) []string {
	if len(env) == 0 {
		return nil
	}
	names := make([]string, 0, len(env))
	for k := range env {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// formatCommand renders the command for humans, quoting arguments that
// would otherwise read ambiguously.
func formatCommand(path string, args []string) string {
	parts := make([]string, 0, 1+len(args))
	for _, s := range append([]string{path}, args...) {
		if s == "" || strings.ContainsAny(s, " \t\n\r\"'\\") {
			s = strconv.Quote(s)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}
