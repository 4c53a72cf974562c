package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/jsonscan"
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
// be failed, or the request it makes answered, rather than left to time
// out. When it also has a method MessageSize() (size int64, max int), the
// answer names the sizes.
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
	// Refuse, when set, answers input refused as a request: a message
	// that repeats a key it is routed by (Decode's *InvalidRequest), a
	// message over the size limit (a PrefixError) that is not a response
	// to a call of ours, and a batch (a line that is a JSON array, which a
	// JunkStream skips). id is the request's id when it could be read,
	// else zero; rerr is the -32600 to answer with. A server sets it: its
	// client would otherwise wait for an answer until its timeout. On a
	// client such input stays skipped (traced, and told to Invalid): a
	// server's stdout may carry log lines like "[INFO] ...".
	Refuse func(id ID, rerr *Error)
}

// JunkStream is a Stream that skips input lines it does not take for
// messages (stdio: lines that do not start with '{') and reports each to
// the function given to OnJunk, with at most its first bytes and its full
// size. A Conn with Options.Refuse takes the reports, to answer a batch.
type JunkStream interface {
	Stream
	OnJunk(f func(line []byte, size int64))
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
	c := &Conn{s: s, opts: opts, pending: make(map[string]*Call), done: make(chan struct{})}
	if js, ok := s.(JunkStream); ok && opts.Refuse != nil {
		js.OnJunk(c.junk)
	}
	return c
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
	span   string // the request's trace span, when traced
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
	if trace.Enabled(c.opts.Trace) {
		call.span = trace.NewSpan()
		trace.Emit(c.opts.Trace, trace.Event{Kind: trace.RequestSent, Span: call.span, Server: c.opts.Name, Method: method, ID: id.raw})
	}
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
	if err := c.write(related, AppendRequest(nil, ID{}, method, params)); err != nil {
		return err // not sent, so not traced as sent
	}
	trace.Emit(c.opts.Trace, trace.Event{Kind: trace.NotificationOut, Server: c.opts.Name, Method: method})
	return nil
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
				c.oversize(pe)
				continue
			}
			c.fail(err)
			return
		}
		m, err := Decode(b)
		if err != nil {
			var ir *InvalidRequest
			if errors.As(err, &ir) {
				sh := shapeRequest
				if ir.response {
					sh = shapeResponse
				}
				if c.refuse(ir.ID, sh, ir.RPCError(), fmt.Errorf("%s sent an invalid message: %w", c.name(), ir)) {
					continue
				}
			} else {
				trace.Emit(c.opts.Trace, trace.Event{Kind: trace.JunkSkipped, Server: c.opts.Name, Message: err.Error()})
			}
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
	ev := trace.Event{Kind: trace.Response, Span: call.span, Server: c.opts.Name, Method: call.Method, ID: m.ID.raw, Duration: time.Since(call.start)}
	if m.Error != nil {
		ev.Kind, ev.Code, ev.Message = trace.ErrorReply, m.Error.Code, m.Error.Message
		if bytes.Contains(m.Error.Data, []byte(`"httpStatus"`)) {
			// The HTTP transport's stand-in for an answer the server did
			// not give (a 401, a body that is not JSON-RPC): its code is
			// not the server's, and its message names the HTTP status.
			ev.Code = 0
		}
	}
	trace.Emit(c.opts.Trace, ev)
	call.resp = m
	call.finish()
}

// shape is what a refused message looked like, as far as it was read.
type shape uint8

const (
	shapeUnknown  shape = iota
	shapeRequest        // it has a method
	shapeResponse       // a result or an error, and no method
)

// refuse deals with a message that cannot be taken (cause says why): one
// that may answer a call of ours fails that call; a request goes to
// Options.Refuse. It reports whether either happened; otherwise the
// message is only traced.
func (c *Conn) refuse(id ID, sh shape, rerr *Error, cause error) bool {
	trace.Emit(c.opts.Trace, trace.Event{Kind: trace.JunkSkipped, Server: c.opts.Name, ID: id.raw, Message: cause.Error()})
	if sh != shapeRequest && !id.IsZero() {
		c.mu.Lock()
		call := c.pending[id.raw]
		delete(c.pending, id.raw)
		c.mu.Unlock()
		if call != nil {
			call.err = errs.Wrap(errs.Protocol, call.Method, cause)
			call.finish()
			return true
		}
	}
	if c.opts.Refuse == nil || sh == shapeResponse {
		return false
	}
	c.opts.Refuse(id, rerr)
	return true
}

// oversize deals with a message dropped for its size (see refuse), by what
// its beginning shows: its id, and whether it is a request or a response.
func (c *Conn) oversize(pe PrefixError) {
	msg := "message over the size limit; it was discarded"
	if sz, ok := pe.(interface{ MessageSize() (int64, int) }); ok {
		size, max := sz.MessageSize()
		msg = fmt.Sprintf("message of %d bytes is over the size limit of %d bytes; it was discarded", size, max)
	}
	id, sh := envelopeFromPrefix(pe.MessagePrefix())
	c.refuse(id, sh, &Error{Code: CodeInvalidRequest, Message: msg}, pe)
}

// envelopeFromPrefix reads the top-level "id" of the beginning of a JSON
// object, and whether a "method" or a "result" or "error" shows what it
// is, reading tokens until the prefix ends.
func envelopeFromPrefix(prefix []byte) (ID, shape) {
	var id ID
	sh := shapeUnknown
	dec := json.NewDecoder(bytes.NewReader(prefix))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return id, sh
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			break
		}
		switch key {
		case "method":
			sh = shapeRequest
		case "result", "error":
			if sh == shapeUnknown {
				sh = shapeResponse
			}
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			break
		}
		if key == "id" && id.IsZero() {
			id.UnmarshalJSON(raw) // a bad id stays zero
		}
	}
	return id, sh
}

// junk is told about a line a JunkStream skipped. A batch (a JSON array)
// is refused, each request in it by its id; other lines (a blank line, a
// log line such as "[INFO] ...") stay skipped.
func (c *Conn) junk(line []byte, size int64) {
	ids, ok := batchIDs(line, size > int64(len(line)))
	if !ok {
		return
	}
	trace.Emit(c.opts.Trace, trace.Event{Kind: trace.JunkSkipped, Server: c.opts.Name, Count: int(size), Message: "a batch, refused"})
	rerr := &Error{Code: CodeInvalidRequest, Message: "batches are not supported: send each message on a line of its own"}
	for _, id := range ids {
		c.opts.Refuse(id, rerr)
	}
}

// batchIDs reports whether line is a JSON array (or, cut short, the
// beginning of one) and returns the ids of the requests in it, with a zero
// ID for the rest when there is no id or the line was cut before its end.
func batchIDs(line []byte, cut bool) ([]ID, bool) {
	if i := jsonscan.SkipSpace(line, 0); i >= len(line) || line[i] != '[' || (!cut && !json.Valid(line)) {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.Token() // [
	var ids []ID
	ended := false // the closing ] was read
	for {
		if !dec.More() {
			_, err := dec.Token()
			ended = err == nil
			break
		}
		var el json.RawMessage
		if err := dec.Decode(&el); err != nil {
			var se *json.SyntaxError
			if errors.As(err, &se) {
				return nil, false // not JSON after all
			}
			break // the line was cut off here
		}
		if jsonscan.Member(el, "method") == nil {
			continue // a response, or no message: nothing to answer by id
		}
		var id ID
		if raw := jsonscan.Member(el, "id"); raw != nil && id.UnmarshalJSON(raw) == nil && !id.IsZero() {
			ids = append(ids, id)
		}
	}
	if !ended || len(ids) == 0 {
		ids = append(ids, ID{})
	}
	return ids, true
}
