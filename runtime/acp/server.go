package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/jsonrpc"
	"github.com/luagent/luagent/runtime/transport"
)

// Handler is what the sessions do: luagent's agent (cmd/luagent).
type Handler interface {
	// Authenticate runs the method the client chose (an AuthMethod's id).
	Authenticate(ctx context.Context, methodID string) error
	// NewSession makes a session in req.Cwd with the client's MCP
	// servers beside the agent's own.
	NewSession(ctx context.Context, req NewSessionRequest) (Session, error)
	// LoadSession resumes the saved session req.SessionID, telling its
	// conversation so far to replay (session/update notifications)
	// before it returns.
	LoadSession(ctx context.Context, req LoadSessionRequest, replay func(Update)) (Session, error)
}

// Session is one conversation.
type Session interface {
	ID() string
	// Modes are the session's approval modes (nil: none).
	Modes() *SessionModeState
	// Prompt runs one turn, telling update what happens as it happens.
	// ctx ends at session/cancel: Prompt then stops its tool calls and
	// returns (the stop reason is then cancelled, whatever it returns).
	Prompt(ctx context.Context, prompt []ContentBlock, update func(Update)) (StopReason, error)
	// SetMode changes the mode (an id of Modes); an unknown one is an
	// errs.Invalid error.
	SetMode(id string) error
	// Close ends the session (the server is ending).
	Close()
}

// Opener is a Session with something to tell once the client has its
// id (session/new's or session/load's answer sent): the slash commands
// (available_commands_update).
type Opener interface {
	Opened(update func(Update))
}

// Options configure a Server.
type Options struct {
	Info         Implementation
	Capabilities AgentCapabilities
	AuthMethods  []AuthMethod
	// MaxLine bounds an incoming line (0: DefaultMaxLine); MaxInFlight
	// the requests being served at once (0: 16); MaxSessions the open
	// sessions (0: 64).
	MaxLine     int
	MaxInFlight int
	MaxSessions int
	// Log is told about what the client is not (stderr), may be nil.
	Log func(msg string)
}

// Server is an ACP agent's connection to its client.
type Server struct {
	h    Handler
	o    Options
	conn *jsonrpc.Conn
	sem  chan struct{}

	mu       sync.Mutex
	client   ClientCapabilities
	sessions map[string]*sessionState
	opening  int // sessions being made (counted against MaxSessions)
	wg       sync.WaitGroup
}

type sessionState struct {
	s       Session
	running context.CancelFunc // the prompt's (nil: none)
}

// NewServer returns a server for h.
func NewServer(h Handler, o Options) *Server {
	if o.MaxInFlight <= 0 {
		o.MaxInFlight = 16
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = 64
	}
	return &Server{h: h, o: o, sem: make(chan struct{}, o.MaxInFlight), sessions: map[string]*sessionState{}}
}

// Serve talks to the client on in and out until in ends (or ctx does),
// then cancels the running turns, waits for them, and closes the
// sessions.
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	max := s.o.MaxLine
	if max <= 0 {
		max = DefaultMaxLine
	}
	// The MCP server's stdio stream: a write never waits for a client
	// that stops reading (the reader goes on, a cancel still arrives);
	// output held for one is bounded.
	st := transport.NewStdio(in, out, max)
	st.OnJunk(s.junk)
	s.conn = jsonrpc.NewIdleConn(lines{st}, jsonrpc.Options{
		Name:         "acp client",
		Request:      s.request,
		Notification: s.notification,
		Invalid:      s.invalid,
		Refuse: func(id jsonrpc.ID, rerr *jsonrpc.Error) {
			s.conn.Reply(id, nil, rerr)
		},
	})
	s.conn.Start()
	select {
	case <-s.conn.Done():
	case <-ctx.Done():
		s.conn.Close()
	}
	s.mu.Lock()
	for _, ss := range s.sessions {
		if ss.running != nil {
			ss.running()
		}
	}
	s.mu.Unlock()
	s.wg.Wait()
	s.mu.Lock()
	for _, ss := range s.sessions {
		ss.s.Close()
	}
	s.sessions = map[string]*sessionState{}
	s.mu.Unlock()
	st.Close() // what the turns and requests answered last goes out first
	if err := s.conn.Err(); err != nil && err != io.EOF && ctx.Err() == nil {
		return err
	}
	return nil
}

// ClientCapabilities are what the client said it offers at initialize.
func (s *Server) ClientCapabilities() ClientCapabilities {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.client
}

// Update sends a session/update notification.
func (s *Server) Update(sessionID string, u Update) error {
	params, err := json.Marshal(map[string]any{"sessionId": sessionID, "update": u})
	if err != nil {
		return err
	}
	return s.conn.Notify(MethodUpdate, params)
}

// Call makes a request of the client and decodes its result into out
// (nil: ignored). When ctx ends first the call is abandoned and ctx's
// error returned.
func (s *Server) Call(ctx context.Context, method string, params, out any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	call, err := s.conn.Call(method, raw)
	if err != nil {
		return errs.Wrap(errs.Closed, method, err)
	}
	select {
	case <-call.Done():
	case <-ctx.Done():
		call.Abandon()
		return errs.Wrap(errs.Cancelled, method, ctx.Err())
	}
	m, err := call.Result()
	if err != nil {
		return errs.Wrap(errs.Closed, method, err)
	}
	if m.Error != nil {
		return errs.Errorf(errs.Tool, method, "the client answered %d: %s", m.Error.Code, m.Error.Message)
	}
	if out != nil {
		if err := json.Unmarshal(m.Result, out); err != nil {
			return errs.Errorf(errs.Protocol, method, "the client's answer: %v", err)
		}
	}
	return nil
}

// RequestPermission asks the client about a tool call; it returns the
// option chosen ("" when the client answered cancelled, or ctx ended).
func (s *Server) RequestPermission(ctx context.Context, sessionID string, tc ToolCall, opts []PermissionOption) (string, error) {
	var resp RequestPermissionResponse
	err := s.Call(ctx, MethodRequestPermission, RequestPermissionRequest{SessionID: sessionID, ToolCall: tc, Options: opts}, &resp)
	if err != nil {
		if ctx.Err() != nil {
			return "", nil
		}
		return "", err
	}
	switch resp.Outcome.Outcome {
	case "selected":
		for _, o := range opts {
			if o.OptionID == resp.Outcome.OptionID {
				return o.OptionID, nil
			}
		}
		return "", errs.Errorf(errs.Protocol, MethodRequestPermission, "the client chose %q, which was not offered", resp.Outcome.OptionID)
	case "cancelled":
		return "", nil
	}
	return "", errs.Errorf(errs.Protocol, MethodRequestPermission, "the client's outcome %q is neither selected nor cancelled", resp.Outcome.Outcome)
}

// rpcError is a JSON-RPC error for err: an errs.Invalid one is invalid
// params, errs.Auth auth required, the rest an internal error, its
// message one line.
func rpcError(err error) *jsonrpc.Error {
	msg := strings.ReplaceAll(err.Error(), "\n", " ")
	switch errs.KindOf(err) {
	case errs.Invalid, errs.NotFound:
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
	case errs.Auth:
		return &jsonrpc.Error{Code: CodeAuthRequired, Message: msg}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: msg}
}

func invalidParams(format string, args ...any) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid params: " + fmt.Sprintf(format, args...)}
}

func (s *Server) reply(id jsonrpc.ID, result any, rerr *jsonrpc.Error) {
	if rerr != nil {
		s.conn.Reply(id, nil, rerr)
		return
	}
	raw, err := json.Marshal(result)
	if err != nil {
		s.conn.Reply(id, nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()})
		return
	}
	s.conn.Reply(id, raw, nil)
}

// decode reads params into v; a failure is invalid params.
func decode(params json.RawMessage, v any) *jsonrpc.Error {
	if len(params) == 0 {
		return invalidParams("params are missing")
	}
	if err := json.Unmarshal(params, v); err != nil {
		return invalidParams("%v", err)
	}
	return nil
}

// async serves a request on a goroutine of its own, when fewer than
// MaxInFlight are being served; else it is refused.
func (s *Server) async(m *jsonrpc.Message, fn func() (any, *jsonrpc.Error), after ...func()) {
	select {
	case s.sem <- struct{}{}:
	default:
		s.reply(m.ID, nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
			Message: fmt.Sprintf("too many requests in flight (%d): wait for their answers", cap(s.sem))})
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer func() { <-s.sem }()
		res, rerr := fn()
		s.reply(m.ID, res, rerr)
		if rerr == nil {
			for _, f := range after {
				f()
			}
		}
	}()
}

// request is the read goroutine's: it must not block.
func (s *Server) request(_ *jsonrpc.Conn, m *jsonrpc.Message) {
	switch m.Method {
	case MethodInitialize:
		var req InitializeRequest
		if rerr := decode(m.Params, &req); rerr != nil {
			s.reply(m.ID, nil, rerr)
			return
		}
		s.mu.Lock()
		s.client = req.ClientCapabilities
		s.mu.Unlock()
		// The client's version is answered with ours: it disconnects
		// when it cannot speak it.
		s.reply(m.ID, InitializeResponse{ProtocolVersion: ProtocolVersion, AgentCapabilities: s.o.Capabilities,
			AgentInfo: &s.o.Info, AuthMethods: nonNil(s.o.AuthMethods)}, nil)
	case MethodAuthenticate:
		var req AuthenticateRequest
		if rerr := decode(m.Params, &req); rerr != nil {
			s.reply(m.ID, nil, rerr)
			return
		}
		if !s.knownAuth(req.MethodID) {
			s.reply(m.ID, nil, invalidParams("no auth method %q (initialize lists them)", req.MethodID))
			return
		}
		s.async(m, func() (any, *jsonrpc.Error) {
			if err := s.h.Authenticate(context.Background(), req.MethodID); err != nil {
				return nil, rpcError(err)
			}
			return struct{}{}, nil
		})
	case MethodSessionNew:
		var req NewSessionRequest
		if rerr := decode(m.Params, &req); rerr != nil {
			s.reply(m.ID, nil, rerr)
			return
		}
		if rerr := checkSetup(req.Cwd, req.MCPServers, s.o.Capabilities.MCPCapabilities); rerr != nil {
			s.reply(m.ID, nil, rerr)
			return
		}
		if !s.reserve(m.ID) {
			return
		}
		var ss Session
		s.async(m, func() (any, *jsonrpc.Error) {
			var err error
			ss, err = s.h.NewSession(context.Background(), req)
			if err != nil {
				s.unreserve()
				return nil, rpcError(err)
			}
			s.add(ss)
			return NewSessionResponse{SessionID: ss.ID(), Modes: ss.Modes()}, nil
		}, func() { s.opened(ss) })
	case MethodSessionLoad:
		var req LoadSessionRequest
		if rerr := decode(m.Params, &req); rerr != nil {
			s.reply(m.ID, nil, rerr)
			return
		}
		if req.SessionID == "" {
			s.reply(m.ID, nil, invalidParams("sessionId is missing"))
			return
		}
		if rerr := checkSetup(req.Cwd, req.MCPServers, s.o.Capabilities.MCPCapabilities); rerr != nil {
			s.reply(m.ID, nil, rerr)
			return
		}
		// A session open here is closed first (its saved file is then
		// free), unless a prompt runs in it.
		s.mu.Lock()
		old := s.sessions[req.SessionID]
		busy := old != nil && old.running != nil // read under the lock: a prompt sets it
		if old != nil && !busy {
			delete(s.sessions, req.SessionID)
		}
		s.mu.Unlock()
		if busy {
			s.reply(m.ID, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
				Message: fmt.Sprintf("Invalid request: session %q is running a prompt; cancel it before loading the session again", req.SessionID)})
			return
		}
		if old != nil {
			old.s.Close()
		}
		if !s.reserve(m.ID) {
			return
		}
		var ss Session
		s.async(m, func() (any, *jsonrpc.Error) {
			var err error
			ss, err = s.h.LoadSession(context.Background(), req, func(u Update) { s.Update(req.SessionID, u) })
			if err != nil {
				s.unreserve()
				return nil, rpcError(err)
			}
			s.add(ss)
			return LoadSessionResponse{Modes: ss.Modes()}, nil
		}, func() { s.opened(ss) })
	case MethodPrompt:
		s.prompt(m)
	case MethodSetMode:
		var req SetModeRequest
		if rerr := decode(m.Params, &req); rerr != nil {
			s.reply(m.ID, nil, rerr)
			return
		}
		ss, rerr := s.session(req.SessionID)
		if rerr != nil {
			s.reply(m.ID, nil, rerr)
			return
		}
		if err := ss.s.SetMode(req.ModeID); err != nil {
			s.reply(m.ID, nil, rpcError(err))
			return
		}
		s.reply(m.ID, struct{}{}, nil)
	default:
		s.reply(m.ID, nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: fmt.Sprintf("Method not found: %q is not an ACP agent method", m.Method)})
	}
}

func nonNil(a []AuthMethod) []AuthMethod {
	if a == nil {
		return []AuthMethod{}
	}
	return a
}

func (s *Server) knownAuth(id string) bool {
	for _, a := range s.o.AuthMethods {
		if a.ID == id {
			return true
		}
	}
	return false
}

// checkSetup checks session/new's and session/load's cwd and servers.
func checkSetup(cwd string, servers []MCPServer, caps MCPCapabilities) *jsonrpc.Error {
	if cwd == "" || !filepath.IsAbs(cwd) {
		return invalidParams("cwd must be an absolute path, not %q", cwd)
	}
	for _, sv := range servers {
		switch {
		case sv.Name == "":
			return invalidParams("an MCP server has no name")
		case sv.Type == "http" && caps.HTTP, sv.Type == "sse" && caps.SSE:
			if sv.URL == "" {
				return invalidParams("MCP server %q has no url", sv.Name)
			}
		case sv.Type == "" || sv.Type == "stdio":
			if sv.Command == "" {
				return invalidParams("MCP server %q has no command", sv.Name)
			}
		default:
			return invalidParams("MCP server %q: transport %q is not supported (initialize's mcpCapabilities say which are)", sv.Name, sv.Type)
		}
	}
	return nil
}

// reserve counts a session being made against MaxSessions, or refuses
// the request.
func (s *Server) reserve(id jsonrpc.ID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.sessions)+s.opening >= s.o.MaxSessions {
		s.conn.Reply(id, nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("too many sessions open (%d)", s.o.MaxSessions)})
		return false
	}
	s.opening++
	return true
}

func (s *Server) unreserve() {
	s.mu.Lock()
	s.opening--
	s.mu.Unlock()
}

func (s *Server) add(ss Session) {
	s.mu.Lock()
	s.opening--
	if old := s.sessions[ss.ID()]; old != nil {
		// An id already open (two loads of one session at once): the
		// old one ends, its prompt cancelled (else nobody could).
		if old.running != nil {
			old.running()
		}
		old.s.Close()
	}
	s.sessions[ss.ID()] = &sessionState{s: ss}
	s.mu.Unlock()
}

// opened tells an Opener its session's id is the client's.
func (s *Server) opened(ss Session) {
	if o, ok := ss.(Opener); ok {
		id := ss.ID()
		o.Opened(func(u Update) { s.Update(id, u) })
	}
}

func (s *Server) session(id string) (*sessionState, *jsonrpc.Error) {
	if id == "" {
		return nil, invalidParams("sessionId is missing")
	}
	s.mu.Lock()
	ss := s.sessions[id]
	s.mu.Unlock()
	if ss == nil {
		return nil, invalidParams("unknown session %q (session/new or session/load opens one)", id)
	}
	return ss, nil
}

func (s *Server) prompt(m *jsonrpc.Message) {
	var req PromptRequest
	if rerr := decode(m.Params, &req); rerr != nil {
		s.reply(m.ID, nil, rerr)
		return
	}
	ss, rerr := s.session(req.SessionID)
	if rerr != nil {
		s.reply(m.ID, nil, rerr)
		return
	}
	if len(req.Prompt) == 0 {
		s.reply(m.ID, nil, invalidParams("prompt is empty"))
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.mu.Lock()
	if ss.running != nil {
		s.mu.Unlock()
		cancel()
		s.reply(m.ID, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
			Message: fmt.Sprintf("Invalid request: session %q is already running a prompt; wait for its answer or send session/cancel", req.SessionID)})
		return
	}
	ss.running = cancel
	s.mu.Unlock()
	// A prompt does not count against MaxInFlight: one a session at most.
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		stop, err := ss.s.Prompt(ctx, req.Prompt, func(u Update) { s.Update(req.SessionID, u) })
		cancelled := ctx.Err() != nil
		s.mu.Lock()
		ss.running = nil
		s.mu.Unlock()
		cancel()
		switch {
		case cancelled:
			s.reply(m.ID, PromptResponse{StopReason: StopCancelled}, nil)
		case err != nil:
			s.reply(m.ID, nil, rpcError(err))
		default:
			if stop == "" {
				stop = StopEndTurn
			}
			s.reply(m.ID, PromptResponse{StopReason: stop}, nil)
		}
	}()
}

func (s *Server) notification(m *jsonrpc.Message) {
	switch m.Method {
	case MethodCancel:
		var req CancelNotification
		if json.Unmarshal(m.Params, &req) != nil {
			s.log("session/cancel with bad params, ignored")
			return
		}
		s.mu.Lock()
		if ss := s.sessions[req.SessionID]; ss != nil && ss.running != nil {
			ss.running()
		}
		s.mu.Unlock()
	default:
		// Unknown notifications are ignored, as JSON-RPC has it.
		s.log(fmt.Sprintf("notification %q ignored", m.Method))
	}
}

// invalid answers a line that begins as a JSON object but is no message:
// not JSON at all is a parse error (null id); JSON but not a JSON-RPC
// message an invalid request, with its id when it has one that can be
// read.
func (s *Server) invalid(line []byte, err error) {
	if !json.Valid(line) {
		s.conn.Reply(jsonrpc.ID{}, nil, &jsonrpc.Error{Code: jsonrpc.CodeParseError, Message: "Parse error: the line is not JSON (one JSON-RPC message a line)"})
		return
	}
	var env struct {
		ID     json.RawMessage `json:"id"`
		Method any             `json:"method"`
	}
	var id jsonrpc.ID
	if json.Unmarshal(line, &env) == nil && len(env.ID) > 0 {
		id.UnmarshalJSON(env.ID) // a bad id stays null
		if _, isMethod := env.Method.(string); !isMethod && env.Method == nil {
			// A response we do not wait for (no method): not answered.
			var r struct {
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if json.Unmarshal(line, &r) == nil && (r.Result != nil || r.Error != nil) {
				return
			}
		}
	}
	msg := err.Error()
	if e, ok := err.(*errs.Error); ok && e.Msg != "" {
		msg = e.Msg
	}
	s.conn.Reply(id, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "Invalid request: " + msg})
}

func (s *Server) log(msg string) {
	if s.o.Log != nil {
		s.o.Log(msg)
	}
}
