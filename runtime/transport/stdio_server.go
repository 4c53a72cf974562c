package transport

import (
	"bytes"
	"io"
	"sync"

	"github.com/luagent/luagent/runtime/errs"
)

// Stdio is the server side of the stdio transport: messages are read from r
// (the process's stdin) and written to w (its stdout), one per line. Writes
// are serialised, one write call per message, so concurrent replies never
// interleave. Non-JSON input lines are skipped (OnJunk) as the client side
// does.
type Stdio struct {
	lr     *LineReader
	r      io.Reader
	mu     sync.Mutex
	w      io.Writer
	buf    []byte
	closed bool
}

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
func (s *Stdio) Read() ([]byte, error) { return s.lr.Next() }

// Write writes msg and a newline in one write.
func (s *Stdio) Write(msg []byte) error {
	if bytes.IndexByte(msg, '\n') >= 0 {
		return errs.New(errs.Invalid, "", "a message may not contain a newline")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errs.New(errs.Closed, "", "stdout is closed")
	}
	s.buf = append(append(s.buf[:0], msg...), '\n')
	_, err := s.w.Write(s.buf)
	if cap(s.buf) > keepBufferCap {
		s.buf = nil
	}
	if err != nil {
		return errs.Wrap(errs.Closed, "", err)
	}
	return nil
}

// Close stops writing and closes r when it can be closed.
func (s *Stdio) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	if c, ok := s.r.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
