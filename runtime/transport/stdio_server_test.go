package transport

import (
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/errs"
)

// writes records each Write call separately.
type writes struct {
	mu    sync.Mutex
	calls []string
	fail  error
}

func (w *writes) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fail != nil {
		return 0, w.fail
	}
	w.calls = append(w.calls, string(p))
	return len(p), nil
}

func (w *writes) got() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.calls...)
}

func TestStdioCoalescesRepliesToABatch(t *testing.T) {
	w := &writes{}
	s := NewStdio(strings.NewReader("{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n"), w, 0)
	for _, want := range []string{`{"a":1}`, `{"b":2}`, `{"c":3}`} {
		msg, err := s.Read()
		if err != nil || string(msg) != want {
			t.Fatalf("Read = %q, %v; want %s", msg, err, want)
		}
		if err := s.Write([]byte("re " + want)); err != nil {
			t.Fatal(err)
		}
	}
	// Three requests read in one chunk: their replies in one write, in order.
	if got := w.got(); len(got) != 1 || got[0] != "re {\"a\":1}\nre {\"b\":2}\nre {\"c\":3}\n" {
		t.Fatalf("writes: %q", got)
	}
	// With nothing buffered a reply goes out at once.
	if err := s.Write([]byte("late")); err != nil || len(w.got()) != 2 {
		t.Fatalf("an unbatched write was held: %q", w.got())
	}
	if _, err := s.Read(); err != io.EOF {
		t.Fatalf("Read at the end: %v", err)
	}
}

func TestStdioHeldReplyGoesOutWithoutMoreInput(t *testing.T) {
	// The reader is busy with the second message (never reads again): the
	// first reply still goes out within coalesceDelay.
	w := &writes{}
	s := NewStdio(strings.NewReader("{}\n{}\n"), w, 0)
	if _, err := s.Read(); err != nil {
		t.Fatal(err)
	}
	s.Write([]byte("held"))
	if len(w.got()) != 0 {
		t.Fatal("the reply was not held while more input was buffered")
	}
	deadline := time.Now().Add(time.Second)
	for len(w.got()) == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if got := w.got(); len(got) != 1 || got[0] != "held\n" {
		t.Fatalf("writes after the delay: %q", got)
	}
}

func TestStdioFlushesBeforeWaitingForInput(t *testing.T) {
	pr, pw := io.Pipe()
	w := &writes{}
	s := NewStdio(pr, w, 0)
	go pw.Write([]byte("{}\n{}\n"))
	s.Read()
	s.Read()
	s.Write([]byte("one")) // the last of the batch: out at once
	done := make(chan struct{})
	go func() { s.Read(); close(done) }()
	time.Sleep(10 * time.Millisecond)
	if got := w.got(); len(got) != 1 {
		t.Fatalf("writes while waiting: %q", got)
	}
	pw.Close()
	<-done
}

func TestStdioWriteErrorsAreClosed(t *testing.T) {
	w := &writes{fail: errors.New("broken pipe")}
	s := NewStdio(strings.NewReader(""), w, 0)
	if err := s.Write([]byte("x")); errs.KindOf(err) != errs.Closed {
		t.Fatalf("write to a broken stdout: %v (kind %v)", err, errs.KindOf(err))
	}
	if err := s.Write([]byte("a\nb")); errs.KindOf(err) != errs.Invalid {
		t.Fatalf("a message with a newline: %v", err)
	}
	s.Close()
	if err := s.Write([]byte("y")); errs.KindOf(err) != errs.Closed {
		t.Fatalf("write after Close: %v", err)
	}
}
