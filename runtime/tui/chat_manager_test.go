package tui

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// What the session prints while the manager has the screen is held and
// printed after, in order, but for the status lines the last one sums up.
func TestHeldOutput(t *testing.T) {
	var h heldOutput
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() { // the hub's subscriber and the logger write from goroutines of their own
			defer wg.Done()
			fmt.Fprintf(&h, "[%d/4 servers ready]\n", i)
		}()
	}
	wg.Wait()
	h.Write([]byte("  slow failed: exited with status 3\n"))
	h.Write([]byte("warn: [srv] low disk\n[not a status line] really\n"))
	var out bytes.Buffer
	h.flushTo(&out, func(l string) bool { return strings.HasPrefix(l, "[") && strings.HasSuffix(l, "]") })
	want := "  slow failed: exited with status 3\nwarn: [srv] low disk\n[not a status line] really\n"
	if out.String() != want {
		t.Errorf("flushed %q, want %q", out.String(), want)
	}
	out.Reset()
	h.flushTo(&out, func(string) bool { return false })
	if out.Len() != 0 {
		t.Errorf("a second flush wrote %q", out.String())
	}
}

func TestSwapWriter(t *testing.T) {
	var a, b bytes.Buffer
	s := NewSwapWriter(&a)
	s.Write([]byte("1"))
	if old := s.swap(&b); old != &a {
		t.Errorf("swap returned %v, want the first writer", old)
	}
	s.Write([]byte("2"))
	if a.String() != "1" || b.String() != "2" {
		t.Errorf("a=%q b=%q", a.String(), b.String())
	}
}
