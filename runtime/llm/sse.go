package llm

import (
	"bufio"
	"bytes"
	"io"
	"strconv"

	"github.com/luagent/luagent/runtime/errs"
)

// maxEvent bounds one server-sent event (its data and any one line):
// a tool call's arguments arrive in many small events, so 8 MiB is far
// above what either API sends.
const maxEvent = 8 << 20

// sseEvent is one dispatched server-sent event.
type sseEvent struct {
	Event string // the event: field ("" when the server sent none)
	Data  []byte // the data: lines joined by "\n"; valid until the next Next
}

// sseReader reads the event-stream format (the HTML standard's
// "server-sent events") as both APIs send it: lines ending in "\n" or
// "\r\n"; "event:" and "data:" fields (one space after the colon is
// dropped; repeated data lines are joined by "\n"); lines starting with
// ":" are comments; other fields (id, retry) are ignored; a blank line
// dispatches the event, if it has data. An event cut by the end of the
// stream is dropped, as the standard says: the callers then see the
// stream end before its end event.
type sseReader struct {
	r     *bufio.Reader
	max   int
	event string
	data  bytes.Buffer
	line  []byte // a line longer than the bufio buffer, assembled
}

func newSSEReader(r io.Reader, max int) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, 32<<10), max: max}
}

// errEventTooLarge is the error of an event over the reader's bound.
func errEventTooLarge(max int) error {
	return errs.New(errs.Server, "", "a stream event is larger than "+strconv.Itoa(max>>20)+" MiB")
}

// Next returns the next event, io.EOF at the stream's clean end, or the
// read error (io.ErrUnexpectedEOF for a connection cut mid-body).
func (s *sseReader) Next() (sseEvent, error) {
	s.event = ""
	s.data.Reset()
	hasData := false
	for {
		line, err := s.readLine()
		if err != nil {
			return sseEvent{}, err
		}
		if len(line) == 0 {
			if hasData {
				d := s.data.Bytes()
				return sseEvent{Event: s.event, Data: d[:len(d)-1]}, nil
			}
			s.event = ""
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			s.event = string(value)
		case "data":
			if s.data.Len()+len(value)+1 > s.max {
				return sseEvent{}, errEventTooLarge(s.max)
			}
			s.data.Write(value)
			s.data.WriteByte('\n')
			hasData = true
		}
	}
}

// readLine returns the next line without its "\n" or "\r\n". A last
// line without its newline is dropped (io.EOF).
func (s *sseReader) readLine() ([]byte, error) {
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
				return nil, errEventTooLarge(s.max)
			}
			line = line[:len(line)-1]
			if n := len(line); n > 0 && line[n-1] == '\r' {
				line = line[:n-1]
			}
			return line, nil
		case bufio.ErrBufferFull:
			if len(s.line)+len(chunk) > s.max+2 {
				return nil, errEventTooLarge(s.max)
			}
			s.line = append(s.line, chunk...)
		default:
			return nil, err
		}
	}
}
