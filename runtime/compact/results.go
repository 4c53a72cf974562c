package compact

import (
	"fmt"
	"sync"
	"unicode/utf8"
)

// DefaultResultLimit is the bytes of a tool result's text the model gets
// at once; the rest is paged with ReadToolResult.
const DefaultResultLimit = 40 * 1024

// ReadToolResult is the name of the tool that pages a cut tool result.
const ReadToolResult = "read_tool_result"

// ReadToolResultSchema is its arguments' schema.
const ReadToolResultSchema = `{"type":"object","properties":{"id":{"type":"string","description":"the tool call id the cut result names"},"offset":{"type":"integer","minimum":0,"description":"the byte offset to read from (the note says where the shown part ended)"}},"required":["id","offset"]}`

// ReadToolResultDescription describes it to the model.
const ReadToolResultDescription = "Read more of a tool result that was cut because it was long: give the call's id and the byte offset the note names; each read returns at most one page."

// Store keeps the whole text of cut tool results, by call id, for one
// agent (until it is reset), so the model can page them. It is safe for
// concurrent use.
type Store struct {
	limit int
	mu    sync.Mutex
	texts map[string]string
}

// NewStore returns a store cutting at limit bytes (0: DefaultResultLimit).
func NewStore(limit int) *Store {
	if limit <= 0 {
		limit = DefaultResultLimit
	}
	return &Store{limit: limit, texts: map[string]string{}}
}

// Cut returns text as the model is to see it: whole when it fits the
// limit, else its first page and a note saying how to read the rest
// (which the store keeps under id).
func (s *Store) Cut(id, text string) (string, bool) {
	if len(text) <= s.limit {
		return text, false
	}
	s.mu.Lock()
	s.texts[id] = text
	s.mu.Unlock()
	end := runeStart(text, s.limit)
	if end == 0 {
		_, end = utf8.DecodeRuneInString(text)
	}
	return text[:end] + fmt.Sprintf("\n\n[The result was cut: %d of %d bytes shown. Call %s with id %q and offset %d to read on.]",
		end, len(text), ReadToolResult, id, end), true
}

// Read returns a page of the cut result id from offset, with a note when
// more follows. ok is false when no cut result has that id.
func (s *Store) Read(id string, offset int) (page string, ok bool) {
	s.mu.Lock()
	text, ok := s.texts[id]
	s.mu.Unlock()
	if !ok {
		return "", false
	}
	if offset < 0 {
		offset = 0
	}
	if offset >= len(text) {
		return fmt.Sprintf("[offset %d is at or past the end: the result has %d bytes]", offset, len(text)), true
	}
	offset = runeStart(text, offset)
	end := len(text)
	if end-offset > s.limit {
		end = runeStart(text, offset+s.limit)
		if end <= offset { // a page smaller than one character
			_, n := utf8.DecodeRuneInString(text[offset:])
			end = offset + n
		}
	}
	page = text[offset:end]
	if end < len(text) {
		page += fmt.Sprintf("\n\n[bytes %d to %d of %d shown. Call %s with id %q and offset %d to read on.]", offset, end, len(text), ReadToolResult, id, end)
	}
	return page, true
}

// Len is how many cut results the store keeps.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.texts)
}

// Reset forgets every kept result.
func (s *Store) Reset() {
	s.mu.Lock()
	s.texts = map[string]string{}
	s.mu.Unlock()
}

// runeStart moves i back to the start of the UTF-8 sequence it falls in.
func runeStart(s string, i int) int {
	if i >= len(s) {
		return len(s)
	}
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}
