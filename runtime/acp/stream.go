package acp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/jsonrpc"
	"github.com/luagent/luagent/runtime/jsonscan"
)

// DefaultMaxLine bounds one incoming message (a line): a prompt with an
// embedded file fits; a runaway client does not grow the agent's memory.
const DefaultMaxLine = 8 << 20

// prefixKeep is how much of a line over the limit is kept, to answer the
// request it was by its id.
const prefixKeep = 4096

// LineTooLong is a line over the limit, read to its end and dropped;
// Prefix is its beginning (a jsonrpc.PrefixError).
type LineTooLong struct {
	Prefix []byte
	Size   int64
	Max    int
}

func (e *LineTooLong) Error() string {
	return fmt.Sprintf("message of %d bytes is over the limit of %d bytes; it was discarded", e.Size, e.Max)
}

// MessagePrefix and MessageSize make it a jsonrpc.PrefixError.
func (e *LineTooLong) MessagePrefix() []byte     { return e.Prefix }
func (e *LineTooLong) MessageSize() (int64, int) { return e.Size, e.Max }
func (e *LineTooLong) Unwrap() error             { return errs.New(errs.Limit, "acp", "line too long") }

var _ jsonrpc.PrefixError = (*LineTooLong)(nil)

// Reader reads newline-delimited lines of at most max bytes. A longer
// line is read to its end and dropped (Next returns a *LineTooLong), so
// the lines after it are read as they were sent. A last line without a
// newline is a line.
type Reader struct {
	br  *bufio.Reader
	max int
	eof bool
}

// NewReader reads r (max <= 0: DefaultMaxLine).
func NewReader(r io.Reader, max int) *Reader {
	if max <= 0 {
		max = DefaultMaxLine
	}
	return &Reader{br: bufio.NewReaderSize(r, 64<<10), max: max}
}

// Next returns the next line without its line ending ("\n" or "\r\n"),
// a *LineTooLong, or io.EOF at the end.
func (r *Reader) Next() ([]byte, error) {
	if r.eof {
		return nil, io.EOF
	}
	var line []byte
	var size int64
	over := false
	for {
		chunk, err := r.br.ReadSlice('\n')
		size += int64(len(chunk))
		if !over {
			if len(line)+len(chunk) > r.max+2 { // +2: the line ending
				over = true
				keep := prefixKeep - len(line)
				if keep > len(chunk) {
					keep = len(chunk)
				}
				if keep > 0 {
					line = append(line, chunk[:keep]...)
				}
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				return nil, err
			}
			r.eof = true
			if size == 0 {
				return nil, io.EOF
			}
		}
		break
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	if over || len(line) > r.max {
		if len(line) > prefixKeep {
			line = line[:prefixKeep]
		}
		return nil, &LineTooLong{Prefix: line, Size: size, Max: r.max}
	}
	return line, nil
}

// stdioStream is the jsonrpc.Stream of an agent on stdio: lines in,
// lines out. A line that is not JSON is answered at once with a parse
// error (-32700, id null) and skipped; blank lines are skipped.
type stdioStream struct {
	r   *Reader
	wmu sync.Mutex
	w   io.Writer
	c   io.Closer // nil: nothing to close
}

func (s *stdioStream) Read() ([]byte, error) {
	for {
		line, err := s.r.Next()
		if err != nil {
			return nil, err
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if !jsonscan.Valid(line) {
			s.Write(jsonrpc.AppendResponse(nil, jsonrpc.ID{}, nil, &jsonrpc.Error{Code: jsonrpc.CodeParseError,
				Message: "Parse error: the line is not JSON (one JSON-RPC message a line)"}))
			continue
		}
		return line, nil
	}
}

func (s *stdioStream) Write(msg []byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	buf := make([]byte, 0, len(msg)+1)
	buf = append(append(buf, msg...), '\n')
	_, err := s.w.Write(buf)
	return err
}

func (s *stdioStream) Close() error {
	if s.c != nil {
		return s.c.Close()
	}
	return nil
}
