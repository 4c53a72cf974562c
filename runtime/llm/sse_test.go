package llm

import (
	"bytes"
	"context"
	"errors"
	"io"
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

func TestSSE(t *testing.T) {
	in := ": a comment\n" +
		"event: message_start\ndata: {\"a\":1}\n\n" +
		"data:no space\r\ndata:  two spaces\r\nid: 7\r\nretry: 10\r\n\r\n" +
		"event: ping\n\n" + // no data: not dispatched
		"data\n\n" + // a field without a colon: empty data
		"data: [DONE]\n\n" +
		"data: cut by the end"
	got, err := readAll([]byte(in), maxEvent)
	if err != io.EOF {
		t.Fatal(err)
	}
	want := []sseOut{{"message_start", `{"a":1}`}, {"", "no space\n two spaces"}, {"", ""}, {"", "[DONE]"}}
	if len(got) != len(want) {
		t.Fatalf("got %q", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("event %d: got %q, want %q", i, got[i], want[i])
		}
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

// A failed connection is retried after the backoff, which grows and is
// bounded by MaxRetryWait; then the error says the server is unreachable.
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
	_, err = m.Stream(context.Background(), &Request{}, nil)
	if !errs.Is(err, errs.Server) || !strings.Contains(err.Error(), "cannot reach http://127.0.0.1:1/v1") {
		t.Fatalf("got %v", err)
	}
	if len(waits) != 4 {
		t.Fatalf("waits %v", waits)
	}
	for i, d := range waits {
		hi := min(backoffBase<<i, 1500*time.Millisecond)
		if d > hi || d < hi*3/4 {
			t.Fatalf("wait %d: %v, want in [%v, %v]", i, d, hi*3/4, hi)
		}
	}
}
