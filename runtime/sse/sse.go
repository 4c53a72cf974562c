// Package sse reads the event-stream format (the HTML standard's
// "server-sent events") that MCP's Streamable HTTP and the model
// providers' streaming APIs send, with a bound on what one event may hold:
// a peer that sends data lines without ever ending the event costs at
// most that bound, not the process's memory.
package sse

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
	"time"
)

// ErrTooLarge is the error of an event (or one line) over the reader's
// bound. Callers wrap it with their own error kind.
var ErrTooLarge = errors.New("a stream event is larger than the limit")

// Event is one dispatched event.
type Event struct {
	Type  string        // the event: field ("" when the server sent none)
	ID    string        // the id: field ("" when none)
	Retry time.Duration // the retry: field (0 when none or invalid)
	// Data is the data: lines joined by "\n"; nil when the event had no
	// data line. It is valid until the next call of Next.
	Data []byte
}

// Reader reads events: lines end in "\n" or "\r\n"; one space after a
// field's colon is dropped; repeated data lines are joined by "\n"; lines
// starting with ":" are comments; unknown fields are ignored; a blank line
// dispatches the event when it had any field. An event cut by the end of
// the stream is dropped, as the standard says.
type Reader struct {
	r    *bufio.Reader
	max  int
	data bytes.Buffer
	line []byte // a line longer than the bufio buffer, assembled
}

// NewReader reads r; max bounds one event's data (and any one line).
func NewReader(r io.Reader, max int) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, 32<<10), max: max}
}

// Next returns the next event, io.EOF at the stream's clean end,
// ErrTooLarge, or the read error (io.ErrUnexpectedEOF for a connection
// cut mid-body).
func (s *Reader) Next() (Event, error) {
	var ev Event
	s.data.Reset()
	hasData, hasField := false, false
	for {
		line, err := s.readLine()
		if err != nil {
			return Event{}, err
		}
		if len(line) == 0 {
			if hasField {
				if hasData {
					d := s.data.Bytes()
					ev.Data = d[:len(d)-1]
				}
				return ev, nil
			}
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			ev.Type, hasField = string(value), true
		case "id":
			ev.ID, hasField = string(value), true
		case "retry":
			if ms, err := strconv.Atoi(string(value)); err == nil && ms >= 0 {
				ev.Retry, hasField = time.Duration(ms)*time.Millisecond, true
			}
		case "data":
			if s.data.Len()+len(value)+1 > s.max {
				return Event{}, ErrTooLarge
			}
			s.data.Write(value)
			s.data.WriteByte('\n')
			hasData, hasField = true, true
		}
	}
}

// readLine returns the next line without its "\n" or "\r\n". A last
// line without its newline is dropped (io.EOF).
func (s *Reader) readLine() ([]byte, error) {
	s.line = s.line[:0]
	for {
		chunk, err := s.r.ReadSlice('\n')
		switch err {
		case nil:
			line := chunk
			if len(s.line) > 0 {
				s.line = append(s.line, chunk...)
				line = s.line
			}
			if len(line) > s.max+2 {
				return nil, ErrTooLarge
			}
			line = line[:len(line)-1]
			if n := len(line); n > 0 && line[n-1] == '\r' {
				line = line[:n-1]
			}
			return line, nil
		case bufio.ErrBufferFull:
			if len(s.line)+len(chunk) > s.max+2 {
				return nil, ErrTooLarge
			}
			s.line = append(s.line, chunk...)
		default:
			return nil, err
		}
	}
}
