package tui

import (
	"bytes"
	"io"
	"sync"
	"sync/atomic"
)

// SwapWriter is a writer whose target can change while it is in use: the
// REPL switches print and log output to prompt-aware writers after the
// state was built, and the /mcp manager holds it while it has the screen.
type SwapWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *SwapWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// NewSwapWriter writes to w until Set.
func NewSwapWriter(w io.Writer) *SwapWriter { return &SwapWriter{w: w} }

// Target is where it writes now.
func (s *SwapWriter) Target() io.Writer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w
}

// Set makes it write to w.
func (s *SwapWriter) Set(w io.Writer) {
	s.mu.Lock()
	s.w = w
	s.mu.Unlock()
}

// termWriters write output that arrives while the prompt waits (a
// background task printing, a log line) without corrupting the line being
// edited: clear the prompt line, write the output, then make liner redraw
// the prompt and the half-typed line. liner has no redraw call, but it
// redraws on SIGWINCH, so we send ourselves one.
type termWriters struct {
	mu        sync.Mutex
	prompting atomic.Bool
	out, err  io.Writer
}

func newTermWriters(out, errw io.Writer) *termWriters {
	tw := &termWriters{}
	tw.out = &promptWriter{tw: tw, w: out}
	tw.err = &promptWriter{tw: tw, w: errw}
	return tw
}

type promptWriter struct {
	tw *termWriters
	w  io.Writer
}

func (p *promptWriter) Write(b []byte) (int, error) {
	p.tw.mu.Lock()
	defer p.tw.mu.Unlock()
	if !p.tw.prompting.Load() {
		return p.w.Write(b)
	}
	var buf bytes.Buffer
	buf.WriteString("\r\x1b[K")
	// The terminal is in raw mode while liner prompts: newlines need a
	// carriage return of their own.
	buf.Write(bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n")))
	if len(b) > 0 && b[len(b)-1] != '\n' {
		buf.WriteString("\r\n")
	}
	if _, err := p.w.Write(buf.Bytes()); err != nil {
		return 0, err
	}
	redrawPrompt()
	return len(b), nil
}
