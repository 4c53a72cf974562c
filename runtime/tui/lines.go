package tui

import (
	"bufio"
	"errors"
	"io"
	"os"
	"path/filepath"

	"github.com/peterh/liner"
)

// LineReader reads REPL input: a terminal with line editing, or plain lines
// from a pipe.
type LineReader interface {
	// ReadLine returns the next line; io.EOF ends the session and
	// ErrAborted means Ctrl-C at the prompt (clear the pending input).
	ReadLine(prompt string) (string, error)
	AddHistory(chunk string)
	Close() error
}

// ErrAborted is Ctrl-C at the prompt.
var ErrAborted = errors.New("aborted")

// plainReader reads lines without prompts or editing.
type plainReader struct{ sc *bufio.Scanner }

// NewPlainReader reads in's lines, up to 16 MB each.
func NewPlainReader(in io.Reader) *plainReader {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	return &plainReader{sc: sc}
}

func (p *plainReader) ReadLine(string) (string, error) {
	if p.sc.Scan() {
		return p.sc.Text(), nil
	}
	if err := p.sc.Err(); err != nil {
		return "", err
	}
	return "", io.EOF
}
func (p *plainReader) AddHistory(string) {}
func (p *plainReader) Close() error      { return nil }

// lineEditor is the terminal reader: liner with history and completion.
type lineEditor struct {
	st      *liner.State
	file    string
	tw      *termWriters
	history int
}

// NewLineEditor is the terminal reader of the REPL and of chat: history
// in file, Tab completing through complete, and what is written to out and
// errw meanwhile (a host's print and log output) made prompt-aware.
func NewLineEditor(file string, complete liner.WordCompleter, out, errw *SwapWriter) LineReader {
	st := liner.NewLiner()
	st.SetCtrlCAborts(true)
	st.SetTabCompletionStyle(liner.TabPrints)
	st.SetWordCompleter(complete)
	if f, err := os.Open(file); err == nil {
		st.ReadHistory(f)
		f.Close()
	}
	tw := newTermWriters(out.Target(), errw.Target())
	out.Set(tw.out)
	errw.Set(tw.err)
	return &lineEditor{st: st, file: file, tw: tw}
}

func (e *lineEditor) ReadLine(p string) (string, error) {
	e.tw.prompting.Store(true)
	line, err := e.st.Prompt(p)
	e.tw.prompting.Store(false)
	if errors.Is(err, liner.ErrPromptAborted) {
		return "", ErrAborted
	}
	if err == io.EOF {
		// Ctrl-D leaves the cursor after the prompt; what is printed on
		// the way out (the shell's prompt, chat's "saved ...") starts on a
		// line of its own, as after Ctrl-C's ^C.
		io.WriteString(e.tw.out, "\n")
	}
	return line, err
}

func (e *lineEditor) AddHistory(chunk string) {
	e.st.AppendHistory(chunk)
	e.history++
}

// Close saves the history (private: it may hold tokens typed at the
// prompt) and restores the terminal.
func (e *lineEditor) Close() error {
	if e.history > 0 {
		os.MkdirAll(filepath.Dir(e.file), 0o700)
		if f, err := os.OpenFile(e.file, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600); err == nil {
			e.st.WriteHistory(f)
			f.Close()
		}
	}
	return e.st.Close()
}
