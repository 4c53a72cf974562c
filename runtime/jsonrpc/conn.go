package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/trace"
)

// Stream moves whole messages. Read is called from one goroutine; Write may
// be called concurrently; Close unblocks Read.
type Stream interface {
	Read() ([]byte, error)
	Write(msg []byte) error
	Close() error
}

// RoutedStream is a Stream with several ways out (Streamable HTTP: each
// request's own response stream, and a stream for the rest). WriteFor
// writes a message that belongs with the incoming request related (a
// progress notification, a log message, a request to the client made while
// serving it).
type RoutedStream interface {
	Stream
	WriteFor(related ID, msg []byte) error
}

// PrefixError is an error from Stream.Read about a message that was
// dropped (too large) whose beginning is known, so the call it answers can
// be failed rather than left to time out.
type PrefixError interface {
	error
	MessagePrefix() []byte
}

// Options configure a Conn.
type Options struct {
	Name  string     // peer name for errors and traces
	Trace trace.Sink // may be nil
	// Request handles an incoming request. It is called on the read
	// goroutine and must not block: answer later with Conn.Reply. Nil
	// answers every request with -32601.
	Request func(c *Conn, m *Message)
	// Notification handles an incoming notification on the read goroutine;
	// it must not block.
	Notification func(m *Message)
	// Invalid is told about a line that is JSON but not a JSON-RPC message.
	Invalid func(line []byte, err error)
}

// Conn is a JSON-RPC connection over a Stream: outgoing calls matched to
// their responses by id, notifications, and incoming requests.
type Conn struct {
	s    Stream
	opts Options

	mu      sync.Mutex
	pending map[string]*Call
	nextID  int64
	err     error // why the connection ended
	done    chan struct{}

	startOnce sync.Once
}

// NewConn starts reading s.
func NewConn(s Stream, opts Options) *Conn {
	c := NewIdleConn(s, opts)
	c.Start()
	return c
}

// NewIdleConn returns a connection that does not read until Start: for
// callers whose handlers need the *Conn stored before the first message
// can arrive.
func NewIdleConn(s Stream, opts Options) *Conn {
	return &Conn{s: s, opts: opts, pending: make(map[string]*Call), done: make(chan struct{})}
}

// Start begins reading (once).
func (c *Conn) Start() {
	c.startOnce.Do(func() { go c.readLoop() })
}

// Call is an outgoing request awaiting its response.
type Call struct {
	ID     ID
	Method string
	start  time.Time
	c      *Conn
	done   chan struct{}
	resp   *Message
	err    error
	// then, when set, is called on the goroutine that resolves the call
	// (usually the reader), right after Done is closed. It must not block.
	then func(*Call)
}

func (call *Call) finish() {
	close(call.done)
	if call.then != nil {
		call.then(call)
	}
}

// Done is closed when the call has its response or has failed.
func (call *Call) Done() <-chan struct{} { return call.done }

// Result returns the response (its Error set for a JSON-RPC error) or the
// failure of the connection. Call it after Done is closed.
func (call *Call) Result() (*Message, error) { return call.resp, call.err }

// Abandon forgets the call: a late response is dropped (and traced).
func (call *Call) Abandon() {
	call.c.mu.Lock()
	if call.c.pending[call.ID.raw] == call {
		delete(call.c.pending, call.ID.raw)
	}
	call.c.mu.Unlock()
}

// NewID returns a fresh numeric id, never used before on this Conn.
func (c *Conn) NewID() ID {
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	c.mu.Unlock()
	return IntID(id)
}

// Call sends a request with a fresh id.
func (c *Conn) Call(method string, params json.RawMessage) (*Call, error) {
	return c.StartID(c.NewID(), method, params)
}

// StartID sends a request with the given id, which must not be in use.
func (c *Conn) StartID(id ID, method string, params json.RawMessage) (*Call, error) {
	return c.start(id, method, params, nil, ID{})
}

// StartThen sends a request and calls then when it is resolved, on the
// resolving goroutine (see Call.then): for callers that must not block
// waiting, such as an event loop.
func (c *Conn) StartThen(method string, params json.RawMessage, then func(*Call)) (*Call, error) {
	return c.start(c.NewID(), method, params, then, ID{})
}

// StartThenFor is StartThen for a request made while serving the incoming
// request related (see RoutedStream).
func (c *Conn) StartThenFor(related ID, method string, params json.RawMessage, then func(*Call)) (*Call, error) {
	return c.start(c.NewID(), method, params, then, related)
}

// write sends msg, with the request it belongs to when the stream routes.
func (c *Conn) write(related ID, msg []byte) error {
	if rs, ok := c.s.(RoutedStream); ok && !related.IsZero() {
		return rs.WriteFor(related, msg)
	}
	return c.s.Write(msg)
}

func (c *Conn) start(id ID, method string, params json.RawMessage, then func(*Call), related ID) (*Call, error) {
	call := &Call{ID: id, Method: method, start: time.Now(), c: c, done: make(chan struct{}), then: then}
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return nil, err
	}
	if _, dup := c.pending[id.raw]; dup {
		c.mu.Unlock()
		return nil, errs.Errorf(errs.Internal, method, "request id %s is already in use", id.raw)
	}
	c.pending[id.raw] = call
	c.mu.Unlock()
	msg := AppendRequest(make([]byte, 0, 64+len(method)+len(params)), id, method, params)
	trace.Emit(c.opts.Trace, trace.Event{Kind: trace.RequestSent, Server: c.opts.Name, Method: method, ID: id.raw})
	if err := c.write(related, msg); err != nil {
		call.Abandon()
		return nil, err
	}
	return call, nil
}

// Notify sends a notification.
func (c *Conn) Notify(method string, params json.RawMessage) error {
	return c.NotifyFor(ID{}, method, params)
}

// NotifyFor sends a notification that belongs with the incoming request
// related (see RoutedStream); a zero related is Notify.
func (c *Conn) NotifyFor(related ID, method string, params json.RawMessage) error {
	if err := c.Err(); err != nil {
		return err
	}
	trace.Emit(c.opts.Trace, trace.Event{Kind: trace.NotificationOut, Server: c.opts.Name, Method: method})
	return c.write(related, AppendRequest(nil, ID{}, method, params))
}

// ReplyStream is a Stream that routes responses by their id (Streamable
// HTTP: each goes to the POST that asked); given the id, it need not find
// it in the message.
type ReplyStream interface {
	WriteResponse(id ID, msg []byte) error
}

// Reply answers an incoming request with a result or an error.
func (c *Conn) Reply(id ID, result json.RawMessage, rerr *Error) error {
	msg := AppendResponse(make([]byte, 0, 48+len(result)), id, result, rerr)
	if rs, ok := c.s.(ReplyStream); ok && !id.IsZero() {
		return rs.WriteResponse(id, msg)
	}
	return c.s.Write(msg)
}

// Done is closed when the connection has ended (the stream failed or was
// closed); Err then says why.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err is why the connection ended, or nil while it is open.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close closes the stream and fails the calls in flight with kind Closed.
func (c *Conn) Close() error {
	// Fail first: closing the stream makes the reader see its end, which
	// must not be what calls in flight report.
	c.fail(errs.New(errs.Closed, "", "connection to "+c.name()+" closed"))
	return c.s.Close()
}

func (c *Conn) name() string {
	if c.opts.Name == "" {
		return "the server"
	}
	return strconv.Quote(c.opts.Name)
}

// fail ends the connection with err (the first reason wins) and resolves
// every pending call with it.
func (c *Conn) fail(err error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = err
	pending := c.pending
	c.pending = map[string]*Call{}
	c.mu.Unlock()
	close(c.done)
	for _, call := range pending {
		call.err = err
		call.finish()
	}
}

func (c *Conn) readLoop() {
	for {
		b, err := c.s.Read()
		if err != nil {
			var pe PrefixError
			if errors.As(err, &pe) {
				c.failByPrefix(pe)
				continue
			}
			c.fail(err)
			return
		}
		m, err := Decode(b)
		if err != nil {
			trace.Emit(c.opts.Trace, trace.Event{Kind: trace.JunkSkipped, Server: c.opts.Name, Message: err.Error()})
			if c.opts.Invalid != nil {
				c.opts.Invalid(b, err)
			}
			continue
		}
		c.Deliver(m)
	}
}

// Deliver handles an incoming message on the calling goroutine, as the
// reader does with what it reads: a response resolves its call, a request
// or notification goes to its handler. It is for messages that arrive some
// other way (Streamable HTTP: the body of a POST, which the HTTP handler
// decoded to route it): handing them over here, instead of through the
// stream's Read, spares a wake-up of the reader per message and a second
// decoding. Deliver may be called from several goroutines at once, so the
// handlers of such a Conn must be safe for that.
func (c *Conn) Deliver(m *Message) {
	switch {
	case m.IsResponse():
		c.resolve(m)
	case m.IsRequest():
		if c.opts.Request == nil {
			c.Reply(m.ID, nil, &Error{Code: CodeMethodNotFound, Message: "Method not found"})
			return
		}
		c.opts.Request(c, m)
	default:
		trace.Emit(c.opts.Trace, trace.Event{Kind: trace.NotificationIn, Server: c.opts.Name, Method: m.Method})
		if c.opts.Notification != nil {
			c.opts.Notification(m)
		}
	}
}

func (c *Conn) resolve(m *Message) {
	c.mu.Lock()
	call := c.pending[m.ID.raw]
	if call != nil {
		delete(c.pending, m.ID.raw)
	}
	c.mu.Unlock()
	if call == nil {
		trace.Emit(c.opts.Trace, trace.Event{Kind: trace.JunkSkipped, Server: c.opts.Name, ID: m.ID.raw,
			Message: "response to an unknown or abandoned request"})
		return
	}
	ev := trace.Event{Kind: trace.Response, Server: c.opts.Name, Method: call.Method, ID: m.ID.raw, Duration: time.Since(call.start)}
	if m.Error != nil {
		ev.Kind, ev.Code, ev.Message = trace.ErrorReply, m.Error.Code, m.Error.Message
	}
	trace.Emit(c.opts.Trace, ev)
	call.resp = m
	call.finish()
}

// failByPrefix fails the call a dropped oversized message answered, when its
// id can be read from the message's beginning.
func (c *Conn) failByPrefix(pe PrefixError) {
	trace.Emit(c.opts.Trace, trace.Event{Kind: trace.JunkSkipped, Server: c.opts.Name, Message: pe.Error()})
	id, ok := idFromPrefix(pe.MessagePrefix())
	if !ok {
		return
	}
	c.mu.Lock()
	call := c.pending[id.raw]
	delete(c.pending, id.raw)
	c.mu.Unlock()
	if call != nil {
		call.err = errs.Wrap(errs.Protocol, call.Method, pe)
		call.finish()
	}
}

// idFromPrefix finds a top-level "id" member in the beginning of a JSON
// object, reading tokens until the prefix ends.
func idFromPrefix(prefix []byte) (ID, bool) {
	dec := json.NewDecoder(bytes.NewReader(prefix))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return ID{}, false
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return ID{}, false
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return ID{}, false
		}
		if key == "id" {
			var id ID
			if id.UnmarshalJSON(raw) == nil && !id.IsZero() {
				return id, true
			}
			return ID{}, false
		}
	}
	return ID{}, false
}
