package llm

import (
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/errs"
)

type sseOut struct{ Event, Data string }

// readAll reads every event of in, and the error that ended the stream.
func readAll(in []byte, max int) ([]sseOut, error) {
	r := newSSEReader(bytes.NewReader(in), max)
	var out []sseOut
	for {
		ev, err := r.Next()
		if err != nil {
			return out, err
		}
		out = append(out, sseOut{ev.Event, string(ev.Data)})
	}
}

// The providers' reader passes on only the events with data (runtime/sse
// has the format's own tests).
func TestSSE(t *testing.T) {
	in := "event: ping\n\nid: 7\n\nevent: message_start\ndata: {\"a\":1}\n\ndata: [DONE]\n\n"
	got, err := readAll([]byte(in), maxEvent)
	if err != io.EOF {
		t.Fatal(err)
	}
	if want := []sseOut{{"message_start", `{"a":1}`}, {"", "[DONE]"}}; !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestSSEBounds(t *testing.T) {
	// An event of many lines, and one line longer than the read buffer,
	// each over the bound: a server error, not a huge allocation.
	many := strings.Repeat("data: "+strings.Repeat("x", 1000)+"\n", 100)
	long := "data: " + strings.Repeat("y", 200<<10) + "\n\n"
	for _, in := range []string{many, long} {
		_, err := readAll([]byte(in), 64<<10)
		if !errs.Is(err, errs.Server) || !strings.Contains(err.Error(), "larger than") {
			t.Fatalf("got %v", err)
		}
	}
	// Within the bound, a long line arrives whole.
	got, err := readAll([]byte(long), 1<<20)
	if err != io.EOF || len(got) != 1 || len(got[0].Data) != 200<<10 {
		t.Fatalf("got %d events, %v", len(got), err)
	}
}

func TestSSEReadError(t *testing.T) {
	r := newSSEReader(io.MultiReader(strings.NewReader("data: x\n"), errReader{io.ErrUnexpectedEOF}), maxEvent)
	if _, err := r.Next(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("got %v", err)
	}
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// A failed connection is retried (twice at most) after the backoff,
// which grows and is bounded by MaxRetryWait; then the error says the
// server is unreachable. The jitter picks the bound here.
func TestRetryBackoff(t *testing.T) {
	m, err := New("openai:x", Config{
		Lookup: func(k string) (string, bool) {
			return map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:1/v1"}[k], true
		},
		MaxRetries:   4,
		MaxRetryWait: 1500 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	om := m.(*openaiModel)
	var waits []time.Duration
	om.wait = func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return nil }
	om.jitter = func(n int64) int64 { return n }
	_, err = m.Stream(context.Background(), &Request{}, nil)
	if !errs.Is(err, errs.Server) || !strings.Contains(err.Error(), "cannot reach http://127.0.0.1:1/v1") {
		t.Fatalf("got %v", err)
	}
	if len(waits) != 2 {
		t.Fatalf("waits %v", waits)
	}
	for i, d := range waits {
		hi := min(backoffBase<<i, 1500*time.Millisecond)
		if d != hi {
			t.Fatalf("wait %d: %v, want %v", i, d, hi)
		}
	}
}
