package headless

import (
	"io"
	"sync"

	ragent "github.com/luagent/luagent/runtime/agent"
)

// Options configure a Stream.
type Options struct {
	// Out is where the lines go (stdout); Format is JSON or StreamJSON.
	Out    io.Writer
	Format string
	// SessionID is every message's session_id.
	SessionID string
	// Mask passes each line before it is written (nil: none).
	Mask func(string) string
	// NewID makes the messages' uuids (sessionid.New).
	NewID func() string
}

// Stream is one headless run's output: the init line once, each turn's
// messages as they happen, and a result line per ask (stream-json); or
// the one result object (json).
type Stream struct {
	o     Options
	w     *Writer
	mu    sync.Mutex
	model string
	init  bool
	sid   string // the session id (Options.SessionID until SetSessionID)
}

// New returns a Stream.
func New(o Options) *Stream {
	if o.NewID == nil {
		o.NewID = func() string { return "" }
	}
	return &Stream{o: o, w: NewWriter(o.Out, o.Mask), sid: o.SessionID}
}

// SetSessionID changes the session_id of the lines written from now on:
// the run's id is known only once its session is open (a resumed one
// keeps its own). Call it before Init.
func (s *Stream) SetSessionID(id string) {
	s.mu.Lock()
	s.sid = id
	s.mu.Unlock()
}

func (s *Stream) sessionID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sid
}

// Lines says whether this is stream-json (JSON lines as the run goes).
func (s *Stream) Lines() bool { return s.o.Format == StreamJSON }

// Init writes the init line (stream-json; once): i with the type, the
// session, a uuid and the SDK's neutral values filled in.
func (s *Stream) Init(i SystemInit) error {
	s.mu.Lock()
	if s.init {
		s.mu.Unlock()
		return nil
	}
	s.init, s.model = true, i.Model
	s.mu.Unlock()
	if !s.Lines() {
		return nil
	}
	i.Type, i.Subtype, i.SessionID, i.UUID = "system", "init", s.sessionID(), s.o.NewID()
	if i.Tools == nil {
		i.Tools = []string{}
	}
	if i.MCPServers == nil {
		i.MCPServers = []MCPServer{}
	}
	if i.SlashCommands == nil {
		i.SlashCommands = []string{}
	}
	if i.Skills == nil {
		i.Skills = []string{}
	}
	if i.Plugins == nil {
		i.Plugins = []struct{}{}
	}
	if i.PermissionMode == "" {
		i.PermissionMode = "default"
	}
	if i.APIKeySource == "" {
		i.APIKeySource = "none"
	}
	if i.OutputStyle == "" {
		i.OutputStyle = "default"
	}
	return s.w.Write(i)
}

// Inited says whether Init ran.
func (s *Stream) Inited() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.init
}

// Event writes what a turn's event adds to the conversation: a model
// response as an assistant message, a finished tool call (not one a
// run_lua snippet made: the model saw only run_lua's) as a user message
// with its tool_result, a retry of the model's request as a system
// api_retry line, a fallback model taking over as a system
// informational line tagged model_fallback, a compaction as a
// compact_boundary system message. The other events say nothing here.
func (s *Stream) Event(e ragent.Event) {
	if !s.Lines() {
		return
	}
	switch {
	case e.Type == ragent.EventResponse && e.Response != nil:
		s.mu.Lock()
		model := s.model
		s.mu.Unlock()
		if e.Model != "" { // a fallback model answered
			model = e.Model
		}
		s.w.Write(assistantOf(e.Response, model, e.Usage, e.StopReason, s.sessionID(), s.o.NewID()))
	case e.Type == ragent.EventRetry && e.Notice != nil:
		s.w.Write(retryLine(e, s.sessionID(), s.o.NewID()))
	case e.Type == ragent.EventToolEnd && e.Call != nil && e.Call.Parent == "":
		s.w.Write(toolResultOf(e, s.sessionID(), s.o.NewID()))
	case e.Type == ragent.EventCompact && e.Compaction != nil:
		c := e.Compaction
		s.w.Write(CompactBoundary{Type: "system", Subtype: "compact_boundary", SessionID: s.sessionID(), UUID: s.o.NewID(),
			CompactMetadata: CompactMetadata{Trigger: c.Trigger, PreTokens: c.PreTokens, PostTokens: c.PostTokens, DurationMS: c.Duration.Milliseconds()}})
	}
}

// Result writes an ask's result: a line (stream-json) or the one object
// (json). r's session and uuid are filled in.
func (s *Stream) Result(r ResultMessage) error {
	r.SessionID = s.sessionID()
	if r.UUID == "" {
		r.UUID = s.o.NewID()
	}
	return s.w.Write(r)
}

// Err is the first error writing to Out (a closed pipe): the run should
// stop, nobody reads it.
func (s *Stream) Err() error { return s.w.Err() }
