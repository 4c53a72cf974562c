package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/luagent/luagent/runtime/agent"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/secret"
)

// Writer appends to one session file. It is the agent's recorder
// (agent.Recorder): a line per message as it completes, a turn_end line
// per complete ask. Safe for concurrent use; Close releases the file.
type Writer struct {
	mu      sync.Mutex
	f       *os.File
	unlock  func()
	header  Header
	path    string
	turn    int // the turn the next message belongs to
	first   int // turn when the writer was opened
	size    int64
	maxLine int64
	maxFile int64
	mask    *secret.Masker
	warn    func(string)
	capped  bool
	err     error // the first failed write (said once)
	closed  bool
}

func (s *Store) newWriter(f *os.File, unlock func(), h Header, size int64, turn int) *Writer {
	return &Writer{f: f, unlock: unlock, header: h, path: f.Name(), turn: turn, first: turn, size: size,
		maxLine: s.maxLine(), maxFile: s.maxFile(), mask: s.Mask, warn: s.Warn}
}

// ID is the session's id; Path its file ("" for the nil *Writer: a run
// whose session could not be saved).
func (w *Writer) ID() string {
	if w == nil {
		return ""
	}
	return w.header.ID
}

func (w *Writer) Path() string {
	if w == nil {
		return ""
	}
	return w.path
}

// Header is the session's header.
func (w *Writer) Header() Header { return w.header }

// Err is the first write that failed (nil: none).
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Message records one complete message of the running turn (call: a
// tool result's record, with the full result).
func (w *Writer) Message(m agent.Message, call *agent.ToolCallRecord) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writeLocked(Line{Type: TypeMessage, Turn: w.turn, Message: &m, Call: call})
}

// Compacted records a compaction boundary (agent.CompactRecorder): a
// resumed session goes on from summary and the kept messages before it.
func (w *Writer) Compacted(summary agent.Message, kept int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writeLocked(Line{Type: TypeCompact, Turn: w.turn, Message: &summary, Kept: kept})
}

// End records the end of the running turn (an ask): the turn is complete.
func (w *Writer) End(tr *agent.Transcript) {
	w.mu.Lock()
	defer w.mu.Unlock()
	l := Line{Type: TypeTurnEnd, Turn: w.turn, Time: time.Now().UTC().Round(time.Millisecond)}
	if tr != nil {
		u := tr.Usage
		l.End, l.Model, l.Error, l.ErrorKind, l.Usage, l.DurationNS = string(tr.End), tr.Model, tr.Error, tr.ErrorKind, &u, int64(tr.Duration)
		l.CostUSD, l.CostUnknown, l.ModelUsage = tr.CostUSD, tr.Unpriced, tr.ModelUsage
	}
	w.writeLocked(l)
	w.turn++
}

// Close releases the file. The nil *Writer's Close does nothing.
func (w *Writer) Close() error {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	w.unlock()
	return w.f.Close()
}

func (w *Writer) writeHeader(h Header) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	h.Cwd, h.Model, h.AgentFile = w.mask.String(h.Cwd), w.mask.String(h.Model), w.mask.String(h.AgentFile)
	b, err := marshal(h)
	if err != nil {
		return errs.Wrap(errs.Internal, "session", err)
	}
	w.append(b)
	return w.err
}

// writeLocked writes l as one line: its secrets masked, its long parts
// cut to the line cap; nothing once the file reached its cap.
func (w *Writer) writeLocked(l Line) {
	if w.closed || w.capped {
		return
	}
	l = w.masked(l)
	b, err := marshal(l)
	if err != nil {
		w.failed(errs.Wrap(errs.Internal, "session", err))
		return
	}
	if int64(len(b))+1 > w.maxLine {
		b = cutLine(l, w.maxLine)
	}
	if w.size+int64(len(b))+1 > w.maxFile {
		w.capped = true
		note, _ := marshal(Line{Type: TypeCapped, Turn: l.Turn, Time: time.Now().UTC().Round(time.Millisecond),
			Text: fmt.Sprintf("the file reached its %s cap: nothing after this was saved", sizeName(w.maxFile))})
		w.append(note)
		w.warnCapped()
		return
	}
	w.append(b)
}

// append writes b and a newline with one write: a reader or a crash sees
// the line whole or cut short, never mixed with another.
func (w *Writer) append(b []byte) {
	if w.err != nil {
		return
	}
	line := make([]byte, 0, len(b)+1)
	line = append(append(line, b...), '\n')
	n, err := w.f.Write(line)
	w.size += int64(n)
	if err != nil {
		w.failed(errs.Errorf(errs.Invalid, "session", "cannot write %s: %v", w.path, err))
	}
}

func (w *Writer) failed(err error) {
	if w.err != nil {
		return
	}
	w.err = err
	if w.warn != nil {
		w.warn(fmt.Sprintf("session %s is no longer saved: %v", w.header.ID, err))
	}
}

func (w *Writer) warnCapped() {
	if w.warn != nil {
		w.warn(fmt.Sprintf("session %s reached the %s cap of a session file: what follows is not saved (its complete turns can be resumed; luagent sessions show %s)", w.header.ID, sizeName(w.maxFile), w.header.ID))
	}
}

func sizeName(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	if n >= 1<<10 && n%(1<<10) == 0 {
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// marshal is v as one line of JSON, "<" and ">" as themselves (a masked
// secret reads <secret>).
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
