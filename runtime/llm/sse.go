package llm

import (
	"errors"
	"io"
	"strconv"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/sse"
)

// maxEvent bounds one server-sent event (its data and any one line):
// a tool call's arguments arrive in many small events, so 8 MiB is far
// above what either API sends.
const maxEvent = 8 << 20

// sseEvent is one server-sent event with data.
type sseEvent struct {
	Event string // the event: field ("" when the server sent none)
	Data  []byte // the data: lines joined by "\n"; valid until the next Next
}

// sseReader gives the events that carry data: both APIs send their
// messages as data, and nothing else of theirs matters here.
type sseReader struct {
	r   *sse.Reader
	max int
}

func newSSEReader(r io.Reader, max int) *sseReader {
	return &sseReader{r: sse.NewReader(r, max), max: max}
}

// Next returns the next event with data, io.EOF at the stream's clean
// end, or the read error (io.ErrUnexpectedEOF for a connection cut
// mid-body); an event over the bound is a server error.
func (s *sseReader) Next() (sseEvent, error) {
	for {
		ev, err := s.r.Next()
		if errors.Is(err, sse.ErrTooLarge) {
			return sseEvent{}, errs.New(errs.Server, "", "a stream event is larger than "+strconv.Itoa(s.max>>20)+" MiB")
		}
		if err != nil {
			return sseEvent{}, err
		}
		if ev.Data != nil {
			return sseEvent{Event: ev.Type, Data: ev.Data}, nil
		}
	}
}
