package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"github.com/luagent/luagent/runtime/sessionid"
	"io"
	"strings"
	"time"

	"github.com/luagent/luagent/runtime/agent"
)

// The file format (stdlib/doc/sessions.md): JSON lines. The first is the
// header; then one line per message as it completes, and a turn_end line
// when a turn (one ask) is complete. A reader takes the messages of the
// complete turns only, so a run killed mid-turn resumes after its last
// complete turn.

// Format is the version of the file format this luagent writes and reads.
const Format = 1

// Line types.
const (
	TypeHeader  = "session"
	TypeMessage = "message"
	TypeTurnEnd = "turn_end"
	TypeCapped  = "capped"
	// TypeCompact is a compaction boundary: the conversation went on from
	// Message (the summary) and the last Kept messages before the line.
	TypeCompact = "compact_boundary"
)

// Header is a session file's first line.
type Header struct {
	Type           string    `json:"type"` // "session"
	Format         int       `json:"format"`
	ID             string    `json:"id"`
	Cwd            string    `json:"cwd"`
	Start          time.Time `json:"start"`
	Model          string    `json:"model,omitempty"`
	AgentFile      string    `json:"agent_file,omitempty"`
	LuagentVersion string    `json:"luagent_version,omitempty"`
	// Command is what ran it: "ask", "chat", or "lua" (agent.new in a
	// script).
	Command string `json:"command,omitempty"`
	// ForkedFrom is the session a fork copied its history from.
	ForkedFrom string `json:"forked_from,omitempty"`
}

// Line is one line after the header.
type Line struct {
	Type string `json:"type"`
	Turn int    `json:"turn"`
	// A message line: the message as the model saw it and, for a tool's
	// result, the call's record with the full result the tool gave.
	Message *agent.Message        `json:"message,omitempty"`
	Call    *agent.ToolCallRecord `json:"call,omitempty"`
	// Cut says the line was over the per-line cap and its long parts were
	// cut (the rest is as it was).
	Cut bool `json:"cut,omitempty"`

	// A turn_end line: how the ask ended.
	End        string       `json:"end,omitempty"`
	Model      string       `json:"model,omitempty"`
	Error      string       `json:"error,omitempty"`
	ErrorKind  string       `json:"error_kind,omitempty"`
	Usage      *agent.Usage `json:"usage,omitempty"`
	DurationNS int64        `json:"duration_ns,omitempty"`
	Time       time.Time    `json:"time,omitzero"`

	// A turn_end line's cost (runtime/cost): CostUSD what the ask's
	// requests cost by their models' prices, CostUnknown that a model
	// had none (CostUSD counts the priced ones), ModelUsage each model's
	// tokens and cost.
	CostUSD     float64                     `json:"cost_usd,omitempty"`
	CostUnknown bool                        `json:"cost_unknown,omitempty"`
	ModelUsage  map[string]agent.ModelUsage `json:"model_usage,omitempty"`

	// A capped line: why nothing more is saved.
	Text string `json:"text,omitempty"`

	// A compact_boundary line: the messages before it kept whole (its
	// Message is the summary).
	Kept int `json:"kept,omitempty"`
}

// Boundary is the last compaction of a session's complete turns: a
// resumed conversation is Summary and Entries[From:].
type Boundary struct {
	Summary agent.Message
	From    int
}

// Entry is a message of a complete turn, with its tool call's record.
type Entry struct {
	Turn    int
	Message agent.Message
	Call    *agent.ToolCallRecord
	Cut     bool
}

// Session is a session file as read: its header and its complete turns.
type Session struct {
	Header
	Path string
	// Entries are the messages of the complete turns, in order.
	Entries []Entry
	// Ends are the complete turns' turn_end lines, in order.
	Ends []Line
	// LastTurn is the highest turn number in the file, complete or not
	// (a resumed session goes on after it).
	LastTurn int
	// Dropped counts the messages of unfinished turns (left out);
	// Damaged the lines that could not be read (skipped).
	Dropped, Damaged int
	// Capped says the file reached its size cap: nothing after it was
	// saved.
	Capped bool
	// Boundary is the last compaction (nil: none): Messages starts from
	// its summary. Entries keep the whole history.
	Boundary *Boundary

	pendingBoundary *Boundary // a compaction inside the turn not yet complete
}

// Messages are the conversation of the complete turns, from the last
// compaction's summary when there was one.
func (s *Session) Messages() []agent.Message {
	entries := s.Entries
	out := make([]agent.Message, 0, len(s.Entries)+1)
	if b := s.Boundary; b != nil && b.From >= 0 && b.From <= len(entries) {
		out = append(out, b.Summary)
		entries = entries[b.From:]
	}
	for _, e := range entries {
		out = append(out, e.Message)
	}
	return out
}

// Turns is the number of complete turns.
func (s *Session) Turns() int { return len(s.Ends) }

// FirstPrompt is the text of the first user message ("" when none).
func (s *Session) FirstPrompt() string {
	for _, e := range s.Entries {
		if e.Message.Role == "user" {
			return textOf(e.Message)
		}
	}
	return ""
}

// Cost is what the session's complete turns cost (their turn_end lines'
// cost_usd summed, over every run that appended to the file); unknown
// says a turn's model had no known price.
func (s *Session) Cost() (usd float64, unknown bool) {
	for _, e := range s.Ends {
		usd += e.CostUSD
		unknown = unknown || e.CostUnknown
	}
	return usd, unknown
}

// LastModel is the model of the last complete turn, else the header's.
func (s *Session) LastModel() string {
	for i := len(s.Ends) - 1; i >= 0; i-- {
		if s.Ends[i].Model != "" {
			return s.Ends[i].Model
		}
	}
	return s.Model
}

func textOf(m agent.Message) string {
	var b strings.Builder
	for _, p := range m.Parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// maxReadLine bounds one line a reader takes: a line longer is damaged
// (a writer never writes one: its lines are cut at MaxLine).
const maxReadLine = 4 * DefaultMaxLine

// Parse reads a session file. The header must be its first line;
// any later line that cannot be read (a line cut short by a crash, a line
// too long) is skipped and counted. It never panics on any input.
func Parse(r io.Reader) (*Session, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	first, _, err := readLine(br)
	if err != nil && len(first) == 0 {
		return nil, errNotSession("the file is empty")
	}
	var s Session
	if json.Unmarshal(first, &s.Header) != nil || s.Type != TypeHeader {
		return nil, errNotSession("its first line is not a session header")
	}
	if s.Format != Format {
		return nil, errFormat(s.Format)
	}
	if !sessionid.Valid(s.ID) {
		return nil, errNotSession("its header has no valid id")
	}
	var pending []Entry // the messages of the turn not yet complete
	pendingTurn := 0
	for {
		b, tooLong, err := readLine(br)
		if len(b) > 0 || tooLong {
			if tooLong {
				s.Damaged++
			} else if ok := s.take(b, &pending, &pendingTurn); !ok {
				s.Damaged++
			}
		}
		if err != nil {
			break
		}
	}
	s.Dropped += len(pending)
	return &s, nil
}

// take adds one line to s; false when it cannot be read.
func (s *Session) take(b []byte, pending *[]Entry, pendingTurn *int) bool {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return true
	}
	var l Line
	if json.Unmarshal(b, &l) != nil {
		return false
	}
	if l.Turn > s.LastTurn {
		s.LastTurn = l.Turn
	}
	switch l.Type {
	case TypeMessage:
		if l.Message == nil || l.Turn <= 0 {
			return false
		}
		if l.Turn != *pendingTurn { // an unfinished turn's messages, left out
			s.Dropped += len(*pending)
			*pending, *pendingTurn = nil, l.Turn
			s.pendingBoundary = nil
		}
		*pending = append(*pending, Entry{Turn: l.Turn, Message: *l.Message, Call: l.Call, Cut: l.Cut})
	case TypeTurnEnd:
		if l.Turn != *pendingTurn {
			if l.Turn <= 0 {
				return false
			}
			s.Dropped += len(*pending) // a turn that ended with no message of its own
			*pending = nil
		}
		s.Entries = append(s.Entries, *pending...)
		s.Ends = append(s.Ends, l)
		*pending, *pendingTurn = nil, 0
		if s.pendingBoundary != nil {
			s.Boundary, s.pendingBoundary = s.pendingBoundary, nil
		}
	case TypeCompact:
		if l.Message == nil || l.Kept < 0 {
			return false
		}
		if len(*pending) > 0 && l.Turn == *pendingTurn { // inside a turn: holds once it completes
			s.pendingBoundary = &Boundary{Summary: *l.Message, From: max(0, len(s.Entries)+len(*pending)-l.Kept)}
		} else { // between turns (/compact)
			s.Boundary = &Boundary{Summary: *l.Message, From: max(0, len(s.Entries)-l.Kept)}
		}
	case TypeCapped:
		s.Capped = true
	default:
		return false
	}
	return true
}

// readLine reads one line without its newline, at most maxReadLine bytes
// (tooLong: the rest was skipped). err is io.EOF after the last line.
func readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	var buf []byte
	for {
		frag, err := br.ReadSlice('\n')
		if len(buf)+len(frag) > maxReadLine {
			tooLong = true
			buf = nil
		} else if !tooLong {
			buf = append(buf, frag...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == nil {
			buf = bytes.TrimSuffix(buf, []byte("\n"))
		}
		if tooLong {
			buf = nil
		}
		return buf, tooLong, err
	}
}
