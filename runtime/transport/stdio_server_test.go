package transport

import (
	"errors"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/luagent/luagent/runtime/errs"
)

// writes records each Write call separately; with gate set, each call
// waits for a value on it first (a client that is slow to read).
type writes struct {
	mu      sync.Mutex
	calls   []string
	fail    error
	gate    chan struct{}
	entered chan struct{} // told when a call begins (if set)
}

func (w *writes) Write(p []byte) (int, error) {
	if w.entered != nil {
		w.entered <- struct{}{}
	}
	if w.gate != nil {
		<-w.gate
	}
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

func TestStdioWriteDoesNotWaitForTheClient(t *testing.T) {
	w := &writes{gate: make(chan struct{}), entered: make(chan struct{}, 8)}
	s := NewStdio(strings.NewReader(""), w, 0)
	if err := s.Write([]byte("one")); err != nil {
		t.Fatal(err)
	}
	<-w.entered // the writer is stuck in the client's pipe
	// Writes go on returning at once, and are kept in order.
	for _, m := range []string{"two", "three"} {
		if err := s.Write([]byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	w.gate <- struct{}{} // "one" goes through
	<-w.entered
	w.gate <- struct{}{} // the rest, together
	close(w.gate)
	s.Close()
	if got := w.got(); len(got) != 2 || got[0] != "one\n" || got[1] != "two\nthree\n" {
		t.Fatalf("writes: %q (want one write, then the two held ones together)", got)
	}
}

func TestStdioCloseWritesWhatIsHeld(t *testing.T) {
	w := &writes{}
	s := NewStdio(strings.NewReader(""), w, 0)
	for _, m := range []string{"a", "b", "c"} {
		s.Write([]byte(m))
	}
	s.Close()
	if got := strings.Join(w.got(), ""); got != "a\nb\nc\n" {
		t.Fatalf("written by Close: %q", got)
	}
	if _, err := s.Read(); err != io.EOF {
		t.Fatalf("Read at the end: %v", err)
	}
}

func TestStdioWriteErrorsAreClosed(t *testing.T) {
	w := &writes{fail: errors.New("broken pipe"), entered: make(chan struct{}, 1)}
	s := NewStdio(strings.NewReader(""), w, 0)
	if err := s.Write([]byte("x")); err != nil {
		t.Fatalf("the first write is queued: %v", err)
	}
	<-w.entered
	s.Close() // waits for the writer, which has seen the error
	if err := s.Write([]byte("a\nb")); errs.KindOf(err) != errs.Invalid {
		t.Fatalf("a message with a newline: %v", err)
	}
	if err := s.Write([]byte("y")); errs.KindOf(err) != errs.Closed {
		t.Fatalf("write after Close: %v", err)
	}
	s2 := NewStdio(strings.NewReader(""), w, 0)
	s2.Write([]byte("x"))
	<-w.entered
	// The failed write is reported by a later Write, once the writer has
	// recorded it (it writes nothing more after a failure).
	for {
		err := s2.Write([]byte("z"))
		if err != nil {
			if errs.KindOf(err) != errs.Closed {
				t.Fatalf("write to a broken stdout: %v (kind %v)", err, errs.KindOf(err))
			}
			break
		}
		runtime.Gosched()
	}
	s2.Close()
}

func TestStdioBoundsWhatWaitsForAStalledClient(t *testing.T) {
	w := &writes{gate: make(chan struct{}), entered: make(chan struct{}, 1)}
	s := NewStdio(strings.NewReader(""), w, 0)
	s.Write([]byte("first"))
	<-w.entered // stuck: the client never reads
	msg := []byte(strings.Repeat("x", 1<<20))
	var err error
	for i := 0; i < 2*maxPending/len(msg) && err == nil; i++ {
		err = s.Write(msg)
	}
	if errs.KindOf(err) != errs.Closed || !strings.Contains(err.Error(), "not reading") {
		t.Fatalf("writing past the bound: %v", err)
	}
	close(w.gate)
	s.Close()
}

func TestStdioCorkBatchesAndNeverStrands(t *testing.T) {
	w := &writes{entered: make(chan struct{}, 8)}
	s := NewStdio(strings.NewReader(""), w, 0)
	s.try = func(b []byte) (int, error) { return w.Write(b) } // a pipe with room
	s.Cork()
	for _, m := range []string{"a", "b", "c"} {
		s.Write([]byte(m))
	}
	// The writer was told, and writes what is held if it runs first;
	// either way all three go out together, in order.
	s.Uncork()
	s.Close()
	got := w.got()
	if strings.Join(got, "") != "a\nb\nc\n" || len(got) > 2 {
		t.Fatalf("writes: %q (want the corked three in one write)", got)
	}

	// Corked and never uncorked (a tick that runs for long): the writer
	// still writes what is held.
	w2 := &writes{entered: make(chan struct{}, 8)}
	s2 := NewStdio(strings.NewReader(""), w2, 0)
	s2.Cork()
	s2.Write([]byte("ping reply"))
	<-w2.entered
	s2.Close()
	if got := w2.got(); len(got) != 1 || got[0] != "ping reply\n" {
		t.Fatalf("a held write: %q", got)
	}
}
