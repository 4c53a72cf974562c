package transport

import (
	"bytes"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/luagent/luagent/runtime/errs"
)

// Stdio is the server side of the stdio transport: messages are read from r
// (the process's stdin) and written to w (its stdout), one per line.
// Non-JSON input lines are skipped (OnJunk) as the client side does.
//
// Write never blocks on w: it appends the message to a buffer that a writer
// goroutine of the stream's own writes out, so whoever answers (the Lua
// state's goroutine, the reader answering a ping) goes on at once, even
// when the client has stopped reading its stdout. Messages that come while
// a write is in progress go out together in the next one: a client with
// many requests in flight gets its replies in few write syscalls (a write
// per message was a quarter of a busy server's CPU). Over a non-blocking
// pipe (NewStdioFiles), a message that finds the writer idle is written
// on the spot, as far as the pipe takes it without waiting: no hand-over
// to the writer for a client that keeps up.
type Stdio struct {
	lr    *LineReader
	r     io.Reader
	w     io.Writer
	try   func([]byte) (int, error) // writes without waiting (nil: always the writer)
	yield bool                      // Read yields before a blocking read (NewStdioFiles)

	corked atomic.Bool // Cork: writes wait for Uncork or the writer

	mu      sync.Mutex
	cond    *sync.Cond // signalled when buf gains a message or the stream closes
	buf     []byte     // messages not yet handed to w
	spare   []byte     // the buffer the writer last used, for reuse
	writing bool       // the writer is in w.Write (so nothing may go ahead of it)
	err     error      // the first failed write: every later Write returns it
	closed  bool
	started bool
	wdone   chan struct{} // closed when the writer goroutine ends
}

// maxPending bounds the output waiting for a client that does not read its
// stdout: past it, writes fail (kind closed) instead of growing without end.
const maxPending = 4 * DefaultMaxMessage

// closeWait bounds how long Close waits for held output to be written.
const closeWait = 5 * time.Second

// NewStdio returns a stream over r and w with the given message size cap
// (DefaultMaxMessage when max <= 0).
func NewStdio(r io.Reader, w io.Writer, max int) *Stdio {
	if max <= 0 {
		max = DefaultMaxMessage
	}
	s := &Stdio{lr: NewLineReader(r, max), r: r, w: w, wdone: make(chan struct{})}
	s.cond = sync.NewCond(&s.mu)
	return s
}

// NewStdioFiles is NewStdio over the process's stdin and stdout.
//
// stdin stays a blocking file: read through the poller, every message cost
// two more syscalls (a read that finds nothing, then epoll_wait: +20% CPU
// per sequential call), and its reader goroutine is not the one that
// handles what it reads anyway. Before a read that will block, Read yields
// (runtime.Gosched), so the handler just posted runs first instead of
// waiting for the runtime to take back the P the blocked thread keeps.
//
// stdout, when it is a pipe or a socket, is switched to non-blocking mode
// (restore puts it back): a reply that finds the pipe with room is written
// on the spot by whoever answers, with no hand-over to the writer, and a
// client that stops reading still blocks nobody. stdout shared with stderr
// (2>&1) stays blocking, or stderr's writes could fail when it is full.
func NewStdioFiles(in, out, stderr *os.File, max int) (_ *Stdio, restore func()) {
	var w io.Writer = out
	restoreOut := func() {}
	var try func([]byte) (int, error)
	if stderr == nil || !sameFile(out, stderr) {
		var ok bool
		var pout *os.File
		if pout, restoreOut, ok = pollable(out); ok {
			w, try = pout, tryWriter(pout)
		}
	}
	s := NewStdio(in, w, max)
	s.try, s.yield = try, true
	return s, restoreOut
}

// OnJunk sets the callback for skipped input lines.
func (s *Stdio) OnJunk(f func(line []byte, size int64)) { s.lr.OnJunk = f }

// Read returns the next message. io.EOF ends the stream.
func (s *Stdio) Read() ([]byte, error) {
	if s.lr.Buffered() == 0 && s.yield {
		// About to block in read(2), which keeps this thread's P: let
		// what the last message posted (its handler) run first, rather
		// than wait for the runtime to take the P back.
		runtime.Gosched()
	}
	return s.lr.Next()
}

// Write queues msg and a newline for the writer; it does not wait for w.
func (s *Stdio) Write(msg []byte) error {
	if bytes.IndexByte(msg, '\n') >= 0 {
		return errs.New(errs.Invalid, "", "a message may not contain a newline")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return errs.New(errs.Closed, "", "stdout is closed")
	case s.err != nil:
		return s.err
	case len(s.buf)+len(msg) > maxPending:
		s.err = errs.New(errs.Closed, "", "the client is not reading stdout: over 64 MiB of replies are waiting; stopped writing")
		return s.err
	}
	idle := len(s.buf) == 0 && !s.writing
	s.buf = append(append(s.buf, msg...), '\n')
	if idle && !s.corked.Load() {
		return s.flushLocked()
	}
	s.startWriter()
	s.cond.Signal()
	return nil
}

// flushLocked writes what is held now, as far as the pipe takes it without
// waiting, and hands the rest to the writer; s.mu is held and the writer
// is not writing.
func (s *Stdio) flushLocked() error {
	if s.try != nil {
		n, err := s.try(s.buf)
		if err != nil {
			s.err = errs.Wrap(errs.Closed, "", err)
			return s.err
		}
		if n == len(s.buf) {
			s.buf = s.buf[:0]
			return nil
		}
		s.buf = append(s.buf[:0], s.buf[n:]...)
	}
	s.startWriter()
	s.cond.Signal()
	return nil
}

// Cork holds what is written until Uncork, so that the replies a burst of
// requests gets go out in one write syscall (a write per reply was a
// quarter of a busy server's CPU). The Lua state's loop corks around each
// of its ticks. Held messages are never stuck: the writer goroutine is
// told of each, and writes them whenever it runs before Uncork (with one
// P, when the corking goroutine parks or is preempted: a ping answered by
// the reader during a long tick still goes out).
func (s *Stdio) Cork() { s.corked.Store(true) }

// Uncork writes what Cork held: at once when the pipe has room, else
// through the writer.
func (s *Stdio) Uncork() {
	s.corked.Store(false)
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.buf) == 0 || s.writing || s.closed || s.err != nil {
		return
	}
	s.flushLocked()
}

func (s *Stdio) startWriter() {
	if !s.started {
		s.started = true
		go s.writeLoop()
	}
}

// writeLoop hands what is queued to w, all of it in one Write, until the
// stream closes and nothing is left.
func (s *Stdio) writeLoop() {
	defer close(s.wdone)
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		for len(s.buf) == 0 && !s.closed {
			s.cond.Wait()
		}
		if len(s.buf) == 0 || s.err != nil {
			return // closed, and nothing left (or nothing can be written)
		}
		out := s.buf
		s.buf, s.spare = s.spare[:0], nil
		s.writing = true
		s.mu.Unlock()
		_, err := s.w.Write(out)
		s.mu.Lock()
		s.writing = false
		if err != nil && s.err == nil {
			s.err = errs.Wrap(errs.Closed, "", err)
		}
		if cap(out) <= keepBufferCap {
			s.spare = out[:0]
		}
		s.cond.Broadcast() // Close may be waiting for the buffer to empty
	}
}

// Close writes what is held (waiting at most closeWait for a client that
// does not read), stops writing and closes r when it can be closed.
func (s *Stdio) Close() error {
	s.mu.Lock()
	started := s.started && !s.closed
	s.closed = true
	s.cond.Broadcast()
	s.mu.Unlock()
	if started {
		select {
		case <-s.wdone:
		case <-time.After(closeWait):
		}
	}
	if c, ok := s.r.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
