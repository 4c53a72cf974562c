package transport

import (
	"bytes"
	"io"
	"sync"
	"time"

	"github.com/luagent/luagent/runtime/errs"
)

// Stdio is the server side of the stdio transport: messages are read from r
// (the process's stdin) and written to w (its stdout), one per line. Writes
// are serialised, so concurrent replies never interleave. Non-JSON input
// lines are skipped (OnJunk) as the client side does.
//
// Replies are coalesced while more input is already buffered: a client with
// many requests in flight sends them in one chunk, the reader answers each
// (handlers often reply on the reader's goroutine), and the replies go out in
// one write when the last buffered message is answered, when the reader is
// about to wait for input, or after coalesceDelay at the latest. A write
// syscall per message was a quarter of a busy server's CPU.
type Stdio struct {
	lr     *LineReader
	r      io.Reader
	mu     sync.Mutex
	w      io.Writer
	buf    []byte // replies not yet written
	corked bool   // more input is buffered: hold replies
	timer  *time.Timer
	err    error // the last failed write
	closed bool
}

// coalesceDelay bounds how long a reply waits for the others of its batch.
const coalesceDelay = time.Millisecond

// NewStdio returns a stream over r and w with the given message size cap
// (DefaultMaxMessage when max <= 0).
func NewStdio(r io.Reader, w io.Writer, max int) *Stdio {
	if max <= 0 {
		max = DefaultMaxMessage
	}
	return &Stdio{lr: NewLineReader(r, max), r: r, w: w}
}

// OnJunk sets the callback for skipped input lines.
func (s *Stdio) OnJunk(f func(line []byte, size int64)) { s.lr.OnJunk = f }

// Read returns the next message. io.EOF ends the stream.
func (s *Stdio) Read() ([]byte, error) {
	if s.lr.Buffered() == 0 {
		// About to wait for input: nothing may wait with us.
		s.mu.Lock()
		s.corked = false
		s.flushLocked()
		s.mu.Unlock()
	}
	msg, err := s.lr.Next()
	// The last buffered message's reply (or the next Read, or the timer)
	// takes what is held along.
	s.mu.Lock()
	s.corked = err == nil && s.lr.Buffered() > 0
	s.mu.Unlock()
	return msg, err
}

// Write writes msg and a newline (now, or with the rest of its batch).
func (s *Stdio) Write(msg []byte) error {
	if bytes.IndexByte(msg, '\n') >= 0 {
		return errs.New(errs.Invalid, "", "a message may not contain a newline")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errs.New(errs.Closed, "", "stdout is closed")
	}
	if s.err != nil {
		return s.err
	}
	s.buf = append(append(s.buf, msg...), '\n')
	if s.corked {
		if s.timer == nil {
			s.timer = time.AfterFunc(coalesceDelay, s.flush)
		} else {
			s.timer.Reset(coalesceDelay)
		}
		return nil
	}
	s.flushLocked()
	return s.err
}

func (s *Stdio) flush() {
	s.mu.Lock()
	s.flushLocked()
	s.mu.Unlock()
}

func (s *Stdio) flushLocked() {
	if len(s.buf) == 0 {
		return
	}
	if s.timer != nil {
		s.timer.Stop()
	}
	if _, err := s.w.Write(s.buf); err != nil && s.err == nil {
		s.err = errs.Wrap(errs.Closed, "", err)
	}
	s.buf = s.buf[:0]
	if cap(s.buf) > keepBufferCap {
		s.buf = nil
	}
}

// Close writes what is held, stops writing and closes r when it can be
// closed.
func (s *Stdio) Close() error {
	s.mu.Lock()
	s.flushLocked()
	s.closed = true
	s.mu.Unlock()
	if c, ok := s.r.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
