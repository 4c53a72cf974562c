package headless

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strings"

	"github.com/luagent/luagent/runtime/errs"
)

// MaxInputLine bounds one stream-json input line (a longer one is an
// error result, and the next line is read).
const MaxInputLine = 8 << 20

// UserPrompt reads one --input-format stream-json line, a user message as
// the Claude Agent SDK sends it:
//
//	{"type":"user","message":{"role":"user","content":"text"}}
//	{"type":"user","message":{"role":"user","content":[{"type":"text","text":"..."}]}}
//
// and returns its text (text blocks joined by blank lines). Other fields
// (session_id, parent_tool_use_id, uuid) are accepted and ignored. Its
// errors are kind Invalid, one line saying what is wrong (the caller
// says which line).
func UserPrompt(line []byte) (string, error) {
	bad := func(format string, args ...any) (string, error) {
		return "", errs.Errorf(errs.Invalid, "", format, args...)
	}
	var m struct {
		Type    *string         `json:"type"`
		Message json.RawMessage `json:"message"`
	}
	d := json.NewDecoder(bytes.NewReader(line))
	if err := d.Decode(&m); err != nil {
		return bad("not a JSON object (%s); each line is one message: {\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"...\"}}", shorten(err.Error()))
	}
	if d.More() {
		return bad("more than one JSON value on a line; put each message on a line of its own")
	}
	if m.Type == nil {
		return bad(`a message needs "type":"user"`)
	}
	if *m.Type != "user" {
		return bad(`only "type":"user" messages are read, not %q`, shorten(*m.Type))
	}
	var msg struct {
		Role    *string         `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if len(m.Message) == 0 || json.Unmarshal(m.Message, &msg) != nil || bytes.Equal(bytes.TrimSpace(m.Message), []byte("null")) {
		return bad(`a user message needs "message":{"role":"user","content":"..."}`)
	}
	if msg.Role != nil && *msg.Role != "user" {
		return bad(`the message's role must be "user", not %q`, shorten(*msg.Role))
	}
	var text string
	if json.Unmarshal(msg.Content, &text) != nil {
		var blocks []json.RawMessage
		if json.Unmarshal(msg.Content, &blocks) != nil {
			return bad(`"content" must be a string or a list of {"type":"text","text":"..."} blocks`)
		}
		var parts []string
		for i, raw := range blocks {
			var b struct {
				Type string  `json:"type"`
				Text *string `json:"text"`
			}
			if json.Unmarshal(raw, &b) != nil {
				return bad("content block %d is not an object", i+1)
			}
			if b.Type != "text" {
				return bad("content block %d is %q: only text blocks are read", i+1, shorten(b.Type))
			}
			if b.Text == nil {
				return bad(`content block %d has no "text"`, i+1)
			}
			parts = append(parts, *b.Text)
		}
		text = strings.Join(parts, "\n\n")
	}
	if strings.TrimSpace(text) == "" {
		return bad("the message has no text")
	}
	return text, nil
}

func shorten(s string) string {
	if r := []rune(s); len(r) > 80 {
		return string(r[:80]) + "…"
	}
	return s
}

// Lines reads r's lines for --input-format stream-json: each call to
// Next returns the next non-blank line, or an error for one longer than
// max (its rest skipped: the line after it is read next), or io.EOF.
type Lines struct {
	r   *bufio.Reader
	max int
	n   int // the line number of the last line read
}

// NewLines returns a reader of r's lines, each at most max bytes.
func NewLines(r io.Reader, max int) *Lines {
	return &Lines{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// Line is the number of the line Next returned last (1-based).
func (l *Lines) Line() int { return l.n }

// Next returns the next non-blank line (without its end).
func (l *Lines) Next() ([]byte, error) {
	for {
		line, long, err := l.read()
		if err != nil && len(line) == 0 && !long {
			return nil, err
		}
		l.n++
		if long {
			return nil, errs.Errorf(errs.Limit, "", "line %d is longer than %d bytes; it was skipped", l.n, l.max)
		}
		if len(bytes.TrimSpace(line)) == 0 {
			if err != nil {
				return nil, err
			}
			continue
		}
		return line, nil
	}
}

// read reads one line; long says it passed max (its rest is read and
// dropped).
func (l *Lines) read() (line []byte, long bool, err error) {
	var buf []byte
	for {
		chunk, err := l.r.ReadSlice('\n')
		if !long {
			if len(buf)+len(chunk) > l.max+1 { // +1: the '\n'
				long, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		buf = bytes.TrimRight(buf, "\r\n")
		if len(buf) > l.max {
			buf, long = nil, true
		}
		return buf, long, err
	}
}
