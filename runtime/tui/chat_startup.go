package tui

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	rhub "github.com/luagent/luagent/runtime/hub"
)

// The servers' status line as a chat starts. On a terminal it is one line
// that changes in place while nothing else was printed after it; piped, it
// is printed once the start settles (awaitServers), then on each change.

// outputSeq counts what the chat wrote and the lines read since: the
// status line may redraw itself only while the count is the one it left.
type outputSeq struct{ n atomic.Uint64 }

type countedWriter struct {
	w   io.Writer
	seq *outputSeq
}

func (c countedWriter) Write(p []byte) (int, error) {
	c.seq.n.Add(1)
	return c.w.Write(p)
}

type countedReader struct {
	LineReader
	seq *outputSeq
}

func (c countedReader) ReadLine(prompt string) (string, error) {
	line, err := c.LineReader.ReadLine(prompt)
	c.seq.n.Add(1) // the typed line (or ^C) now sits below the status line
	return line, err
}

// counted wraps the chat's writers and reader in t.seq.
func (t *chatTerm) counted() {
	t.out = countedWriter{t.out, &t.seq}
	t.errw = countedWriter{t.errw, &t.seq}
	t.rd = countedReader{t.rd, &t.seq}
}

// awaitServers makes a piped chat wait, before its first line, for the
// servers still connecting (each bounded by its start timeout): the first
// turn then sees every tool it will get, and the status line is printed
// once, settled.
func (t *chatTerm) awaitServers(ctx context.Context, hb *rhub.Hub) {
	if t.tty || hb == nil {
		return
	}
	// Bounded by the start timeouts; Ctrl-C ends it (op), and the status
	// line then says where the start got.
	octx, done := t.op(ctx, 24*time.Hour)
	_ = hb.Wait(octx)
	done()
	t.settled.Store(true)
	t.showStatus(hb)
}

// printStatus shows the status line when it changed: in place of the
// previous one on a terminal when nothing came after it; piped, only
// once the start settled.
func (t *chatTerm) printStatus(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if line == "" || line == t.status || !t.tty && !t.settled.Load() {
		return
	}
	t.status = line
	t.endAnswerLocked()
	text := "[" + t.shown(line) + "]\n"
	if t.tty && t.statusAt != 0 && t.statusAt == t.seq.n.Load() {
		text = "\x1b[1A\r\x1b[K" + text // up to the previous status line, cleared
	}
	fmt.Fprint(t.out, text)
	t.statusAt = t.seq.n.Load()
}
