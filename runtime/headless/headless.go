// Package headless speaks Claude Code's headless formats for luagent ask,
// so that wrappers written for `claude -p` read ours unchanged:
//
//   - --output-format json: one result object, the last thing on stdout;
//   - --output-format stream-json: one JSON object per line, flushed per
//     line: first {"type":"system","subtype":"init",...}, then an
//     "assistant" message per model response (text and tool_use blocks)
//     and a "user" message per tool result (a tool_result block), last
//     {"type":"result",...};
//   - --input-format stream-json: user messages as JSON lines on stdin
//     ({"type":"user","message":{"role":"user","content":...}}), one
//     turn each, and a result line after each.
//
// The shapes are the Claude Agent SDK's message types (SDKSystemMessage,
// SDKAssistantMessage, SDKUserMessage, SDKResultMessage). The package
// writes what it is given; the caller (cmd/luagent) runs the agent.
package headless

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/luagent/luagent/runtime/errs"
)

// The formats.
const (
	Text       = "text"        // the answer as text (ask's own output)
	JSON       = "json"        // one result object
	StreamJSON = "stream-json" // JSON lines
)

// CheckOutput says whether s is an --output-format.
func CheckOutput(s string) error {
	switch s {
	case Text, JSON, StreamJSON:
		return nil
	}
	return errs.Errorf(errs.Invalid, "", "--output-format must be text, json or stream-json, not %q", s)
}

// CheckInput says whether s is an --input-format.
func CheckInput(s string) error {
	switch s {
	case Text, StreamJSON:
		return nil
	}
	return errs.Errorf(errs.Invalid, "", "--input-format must be text or stream-json, not %q", s)
}

// Writer writes JSON objects one a line, each line whole in one Write
// (and flushed, when the writer can), safe for concurrent use. Mask
// passes each line before it is written (nil: as it is): the providers'
// keys never reach stdout.
type Writer struct {
	mu   sync.Mutex
	w    io.Writer
	mask func(string) string
	err  error
}

// NewWriter returns a Writer on w.
func NewWriter(w io.Writer, mask func(string) string) *Writer {
	return &Writer{w: w, mask: mask}
}

// Write writes v as one line. After a failed write (a closed pipe) it
// writes nothing more and returns that error.
func (w *Writer) Write(v any) error {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false) // "<secret>" reads as itself
	if err := e.Encode(v); err != nil {
		return errs.Wrap(errs.Internal, "stream-json", err)
	}
	line := b.String() // Encode ends it with "\n" and escapes every other
	if w.mask != nil {
		line = w.mask(line)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if _, err := io.WriteString(w.w, line); err != nil {
		w.err = errs.Wrap(errs.Closed, "stream-json", err)
		return w.err
	}
	if f, ok := w.w.(interface{ Flush() error }); ok {
		if err := f.Flush(); err != nil {
			w.err = errs.Wrap(errs.Closed, "stream-json", err)
			return w.err
		}
	}
	return nil
}

// Err is the first write error (nil: none).
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// msgID is an assistant message's id, as the Messages API spells them.
func msgID(uuid string) string {
	return fmt.Sprintf("msg_%s", uuid)
}
