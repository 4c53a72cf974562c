package mcp

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/jsonrpc"
	"github.com/luagent/luagent/runtime/jsonscan"
	"github.com/luagent/luagent/runtime/trace"
)

// Request is one incoming request a ServerHandler serves. Its methods are
// safe from any goroutine.
type Request struct {
	Method          string
	Params          json.RawMessage // as received, _meta included
	ID              jsonrpc.ID
	Era             Era
	ProtocolVersion string
	ClientInfo      Implementation

	sc       *serverConn
	ctx      context.Context
	cancelFn context.CancelCauseFunc
	// The handler timeout (see deadlines): when it ends, and the
	// neighbours in the server's list, guarded by its lock.
	deadline       time.Time
	dlPrev, dlNext *Request
	dlLinked       bool
	clientCaps     clientCapabilities

	progressToken json.RawMessage
	logLevel      string // modern: the request's level; "" = no logs

	task atomic.Pointer[serverTask] // set once the call runs as a task (StartTask)

	done   atomic.Bool
	silent atomic.Bool // cancelled by the client: send nothing

	tr *requestTrace // set when the server traces

	// Modern input rounds (MRTR), set on the first ask or retry: most
	// calls never have one, and the fields kept inline put a Request in
	// a larger size class (scripts/bench/BENCHMARKS.md, W2 profile).
	inMu sync.Mutex
	in   *requestInputs
}

// requestTrace is a traced request's span, when it came and the tool it
// calls.
type requestTrace struct {
	span, tool string
	received   time.Time
}

// requestInputs is a request's input rounds, guarded by its inMu.
type requestInputs struct {
	answers map[string]json.RawMessage // from requestState and inputResponses
	used    map[string]json.RawMessage // the answers the handler has taken
	asks    int
	parked  any // what an earlier round parked (server_park.go)
}

// inputs returns r's input rounds, made on first use; r.inMu must be held.
func (r *Request) inputs() *requestInputs {
	if r.in == nil {
		r.in = &requestInputs{}
	}
	return r.in
}

// nextKey is the key of the handler's next ask without one; r.inMu must
// be held.
func (r *Request) nextKey() string {
	in := r.inputs()
	in.asks++
	return "input-" + strconv.Itoa(in.asks)
}

// Inline reports whether the request was delivered by a goroutine of its
// own that only waits for the answer (Streamable HTTP: the POST's), not by
// the reader of a connection: a handler may then run on that goroutine
// when that is cheaper than handing the request over. Over stdio it is
// false: the reader must go back to reading (cancellations, pings).
func (r *Request) Inline() bool { return r.sc.inline }

// Context ends when the client cancels, the handler times out, the request
// is answered, or the connection goes away.
func (r *Request) Context() context.Context { return r.ctx }

// ClientCapabilities returns the capabilities the client declared (on this
// request, modern; at initialize, legacy).
func (r *Request) ClientCapabilities() json.RawMessage {
	if len(r.clientCaps.Raw) == 0 {
		return json.RawMessage("{}")
	}
	return r.clientCaps.Raw
}

// Meta returns the request's params._meta (or nil).
func (r *Request) Meta() json.RawMessage { return jsonscan.Member(r.Params, "_meta") }

// Param returns the raw JSON of params' member name, or nil.
func (r *Request) Param(name string) json.RawMessage { return jsonscan.Member(r.Params, name) }

// StringParam returns params' member name as a string ("" when absent or
// not a string).
func (r *Request) StringParam(name string) string {
	raw := jsonscan.Member(r.Params, name)
	if s, ok := jsonscan.UnquoteSimple(raw); ok {
		return s
	}
	var s string
	json.Unmarshal(raw, &s)
	return s
}

// Cancel ends the request's context with cause: its handler stopped (a
// handler that runs under the request's own context says so through it).
// It does not answer the request.
func (r *Request) Cancel(cause error) { r.cancelFn(cause) }

// AfterCancel calls f (on a goroutine of its own) when the request ends
// otherwise than by its answer: cancelled by the client, timed out, its
// connection gone. Work the handler started beyond its own task (a parked
// agent run) stops with it.
func (r *Request) AfterCancel(f func(cause error)) {
	context.AfterFunc(r.ctx, func() {
		if cause := context.Cause(r.ctx); cause != errAnswered {
			f(cause)
		}
	})
}

// Answered reports whether the request has been answered (or silenced by
// the client's cancellation): nothing more may be sent for it.
func (r *Request) Answered() bool { return r.done.Load() }

func (r *Request) silence() {
	r.silent.Store(true)
	r.done.Store(true)
	r.cleanup()
}

func (r *Request) cleanup() {
	r.sc.srv.deadlines.remove(r)
	r.sc.mu.Lock()
	if r.sc.inflight[r.ID.String()] == r {
		delete(r.sc.inflight, r.ID.String())
	}
	r.sc.mu.Unlock()
}

// Reply answers the request with result, a JSON object. Modern results get
// resultType, serverInfo and cache hints added. Later answers are ignored.
func (r *Request) Reply(result json.RawMessage) { r.finish(result, nil) }

// Fail answers the request with an error: a *jsonrpc.Error as it is, any
// other error mapped from its kind.
func (r *Request) Fail(err error) {
	var je *jsonrpc.Error
	if !errors.As(err, &je) {
		code := jsonrpc.CodeInternalError
		switch errs.KindOf(err) {
		case errs.Invalid:
			code = jsonrpc.CodeInvalidParams
		case errs.NotFound:
			code = jsonrpc.CodeInvalidParams
		}
		je = &jsonrpc.Error{Code: code, Message: errs.Message(err)}
	}
	r.finish(nil, je)
}

// NotFound fails a resources/read of a missing resource with each era's
// code: -32602 (2026-07-28) or -32002 (legacy), data {uri}.
func (r *Request) NotFound(uri string) {
	code := jsonrpc.CodeInvalidParams
	if r.Era == EraLegacy {
		code = CodeResourceNotFound
	}
	r.finish(nil, rpcError(code, "Resource not found: "+uri, map[string]string{"uri": uri}))
}

func (r *Request) finish(result json.RawMessage, rerr *jsonrpc.Error) {
	r.finishCause(result, rerr, errAnswered)
}

// finishCause answers the request and then ends its context with cause.
func (r *Request) finishCause(result json.RawMessage, rerr *jsonrpc.Error, cause error) {
	if !r.done.CompareAndSwap(false, true) {
		return
	}
	r.cleanup()
	defer r.Cancel(cause)
	if t := r.task.Load(); t != nil {
		t.finish(result, rerr)
		return
	}
	if r.tr != nil {
		r.traceReply(result, rerr)
	}
	if rerr != nil {
		r.sc.conn.Reply(r.ID, nil, rerr)
		return
	}
	if r.Era == EraModern {
		result = r.sc.srv.modernResult(r.Method, result)
	}
	r.sc.conn.Reply(r.ID, result, nil)
}

func (r *Request) traceIn() {
	tr := &requestTrace{span: trace.NewSpan(), received: time.Now()}
	r.tr = tr
	// What the handler does (a served agent's run) traces under the request.
	r.ctx = trace.WithSpan(r.ctx, tr.span)
	if r.Method == "tools/call" {
		json.Unmarshal(jsonscan.Member(r.Params, "name"), &tr.tool)
	}
	trace.Emit(r.sc.srv.opts.Trace, trace.Event{Kind: trace.RequestIn, Span: tr.span, Method: r.Method, ID: r.ID.String(), Tool: tr.tool,
		Message: r.Era.String() + " " + r.ProtocolVersion})
}

func (r *Request) traceReply(result json.RawMessage, rerr *jsonrpc.Error) {
	tr := r.tr
	e := trace.Event{Kind: trace.ReplySent, Span: tr.span, Method: r.Method, ID: r.ID.String(), Tool: tr.tool, Duration: time.Since(tr.received)}
	switch {
	case rerr != nil:
		e.Code, e.Error = rerr.Code, rerr.Message
	case tr.tool != "" && string(jsonscan.Member(result, "isError")) == "true":
		e.Error = "the tool answered isError"
	}
	trace.Emit(r.sc.srv.opts.Trace, e)
}

var errAnswered = errs.New(errs.Cancelled, "", "the request has been answered")

// Progress sends notifications/progress when the client asked for it
// (a progressToken in _meta).
func (r *Request) Progress(progress float64, total *float64, message string) {
	if len(r.progressToken) == 0 || r.done.Load() {
		return
	}
	p := map[string]any{"progressToken": r.progressToken, "progress": progress}
	if total != nil {
		p["total"] = *total
	}
	if message != "" {
		p["message"] = message
	}
	b, _ := json.Marshal(p)
	r.sc.conn.NotifyFor(r.route(), "notifications/progress", b)
}

// Log sends notifications/message at level when the client wants it: modern,
// at or above the request's logLevel (none without one); legacy, at or
// above the session's level (every level until the client sets one).
func (r *Request) Log(level, logger string, data json.RawMessage) error {
	li := slices.Index(LogLevels, level)
	if li < 0 {
		return errs.Errorf(errs.Invalid, "log", "unknown log level %q (one of debug, info, notice, warning, error, critical, alert, emergency)", level)
	}
	if r.silent.Load() {
		return nil
	}
	min := r.logLevel
	if r.Era == EraLegacy {
		r.sc.mu.Lock()
		min = r.sc.logLevel
		r.sc.mu.Unlock()
		if min == "" {
			min = "debug"
		}
	}
	if min == "" || li < slices.Index(LogLevels, min) {
		return nil
	}
	p := map[string]any{"level": level, "data": data}
	if logger != "" {
		p["logger"] = logger
	}
	b, _ := json.Marshal(p)
	return r.sc.conn.NotifyFor(r.route(), "notifications/message", b)
}

// ErrInputRequired is what Ask delivers when a modern request has been
// answered with input_required: the handler should stop (its context is
// cancelled too); the client will call again with the answer.
// Its kind is Cancelled: for the handler's run it is a cancellation.
var ErrInputRequired error = &errs.Error{Kind: errs.Cancelled, Msg: "the request has been answered (the client was asked for input, or lacks a capability); the handler stops here"}

// capabilityFor names the client capability an input method needs ("" for
// a method the client cannot be asked).
func capabilityFor(method string, params json.RawMessage) string {
	switch method {
	case "elicitation/create":
		var p struct {
			Mode string `json:"mode"`
		}
		json.Unmarshal(params, &p)
		if p.Mode == "url" {
			return "elicitation.url"
		}
		return "elicitation"
	case "sampling/createMessage":
		return "sampling"
	case "roots/list":
		return "roots"
	}
	return ""
}

func (c clientCapabilities) has(name string) bool {
	switch name {
	case "elicitation":
		return c.Elicitation != nil
	case "elicitation.url":
		return c.Elicitation != nil && c.Elicitation.URL != nil
	case "sampling":
		return c.Sampling != nil
	case "roots":
		return c.Roots != nil
	}
	return false
}

// Input is one thing a handler asks the client for: elicitation/create,
// sampling/createMessage or roots/list. Key names it in a modern round's
// inputRequests (and the client's inputResponses); "" means input-N, N
// counting the asks of the handler's run.
type Input struct {
	Key    string
	Method string
	Params json.RawMessage
}

// Ask asks the client for one input and calls cb with the answer; see AskAll.
func (r *Request) Ask(method string, params json.RawMessage, cb func(json.RawMessage, error)) {
	r.AskKey("", method, params, cb)
}

// AskKey is Ask with the input's key chosen by the handler.
func (r *Request) AskKey(key, method string, params json.RawMessage, cb func(json.RawMessage, error)) {
	r.AskAll([]Input{{Key: key, Method: method, Params: params}}, func(answers map[string]json.RawMessage, keys []string, err error) {
		if err != nil {
			cb(nil, err)
			return
		}
		cb(answers[keys[0]], nil)
	})
}

// AskAll asks the client for every input and calls cb with the answers by
// key (keys in the order of inputs). It reads as one call for the handler in
// both eras. Legacy: requests to the client, one after another. Modern: the
// answers from this round's inputResponses or the signed requestState; when
// some are missing, the request is answered with one input_required listing
// them (and a requestState carrying every answer used so far), and cb gets
// ErrInputRequired. An answer of the wrong shape fails the request with
// -32602. A capability the client did not declare fails: modern with -32021
// for the whole request, legacy with an error for cb.
func (r *Request) AskAll(inputs []Input, cb func(answers map[string]json.RawMessage, keys []string, err error)) {
	if len(inputs) == 0 {
		cb(map[string]json.RawMessage{}, nil, nil)
		return
	}
	var missing []string
	for _, in := range inputs {
		capName := capabilityFor(in.Method, in.Params)
		if capName == "" {
			cb(nil, nil, errs.Errorf(errs.Invalid, "ask", "cannot ask the client for %q (elicitation/create, sampling/createMessage or roots/list)", in.Method))
			return
		}
		if !r.clientCaps.has(capName) && !slices.Contains(missing, capName) {
			missing = append(missing, capName)
		}
	}
	if len(missing) > 0 {
		r.missingCapabilities(missing, func(err error) { cb(nil, nil, err) })
		return
	}
	keys := make([]string, len(inputs))
	r.inMu.Lock()
	for i, in := range inputs {
		if in.Key == "" {
			in.Key = r.nextKey()
		}
		keys[i] = in.Key
		inputs[i] = in
	}
	r.inMu.Unlock()
	if t := r.task.Load(); t != nil {
		t.ask(r, inputs, keys, cb)
		return
	}
	if r.Era == EraLegacy {
		r.askLegacyAll(inputs, keys, map[string]json.RawMessage{}, cb)
		return
	}
	answers := make(map[string]json.RawMessage, len(inputs))
	var ask []Input
	r.inMu.Lock()
	rin := r.inputs()
	for _, in := range inputs {
		a, ok := rin.answers[in.Key]
		if !ok {
			ask = append(ask, in)
			continue
		}
		if problem := answerProblem(in.Method, a); problem != "" {
			r.inMu.Unlock()
			r.finish(nil, rpcError(jsonrpc.CodeInvalidParams,
				"inputResponses."+in.Key+" is not an answer to "+in.Method+": "+problem+"; answer with the result the request asked for", nil))
			cb(nil, nil, ErrInputRequired)
			return
		}
		answers[in.Key] = a
		if rin.used == nil {
			rin.used = map[string]json.RawMessage{}
		}
		rin.used[in.Key] = a
	}
	used := rin.used
	r.inMu.Unlock()
	if len(ask) == 0 {
		cb(answers, keys, nil)
		return
	}
	state, err := r.sc.srv.signState(r, used)
	if err != nil {
		r.Fail(err)
		cb(nil, nil, err)
		return
	}
	reqs := make(map[string]any, len(ask))
	for _, in := range ask {
		reqs[in.Key] = map[string]any{"method": in.Method, "params": in.Params}
	}
	req, _ := json.Marshal(reqs)
	res := []byte(`{"resultType":"input_required","inputRequests":`)
	res = append(res, req...)
	res = append(res, `,"requestState":`...)
	res = jsonscan.AppendString(res, state)
	res = append(res, '}')
	r.finish(res, nil)
	cb(nil, nil, ErrInputRequired)
}

// RequireCapabilities checks that the client declared every named capability
// ("sampling", "elicitation", "elicitation.url", "roots"). When one is
// missing, a modern request is answered with -32021 (naming them all in
// data.requiredCapabilities) and cb gets ErrInputRequired; a legacy handler
// gets an error saying what is missing. Otherwise cb gets nil.
func (r *Request) RequireCapabilities(names []string, cb func(error)) {
	var missing []string
	for _, n := range names {
		if _, ok := capabilityJSON[n]; !ok {
			cb(errs.Errorf(errs.Invalid, "require", "unknown client capability %q (sampling, elicitation, elicitation.url or roots)", n))
			return
		}
		if !r.clientCaps.has(n) && !slices.Contains(missing, n) {
			missing = append(missing, n)
		}
	}
	if len(missing) == 0 {
		cb(nil)
		return
	}
	r.missingCapabilities(missing, cb)
}

var capabilityJSON = map[string]map[string]any{
	"elicitation":     {"elicitation": map[string]any{}},
	"elicitation.url": {"elicitation": map[string]any{"url": map[string]any{}}},
	"sampling":        {"sampling": map[string]any{}},
	"roots":           {"roots": map[string]any{}},
}

func (r *Request) missingCapabilities(missing []string, cb func(error)) {
	list := strings.Join(missing, ", ")
	if r.Era == EraLegacy || r.task.Load() != nil { // a task has been answered: its handler hears it
		what := "the " + list + " capability"
		if len(missing) > 1 {
			what = "the " + strings.Join(missing[:len(missing)-1], ", ") + " and " + missing[len(missing)-1] + " capabilities"
		}
		cb(errs.Errorf(errs.Protocol, r.Method, "the client did not declare %s, which this needs", what))
		return
	}
	need := map[string]any{}
	for _, n := range missing {
		for k, v := range capabilityJSON[n] {
			if old, ok := need[k].(map[string]any); ok && len(old) > 0 {
				continue // elicitation.url already asked for more
			}
			need[k] = v
		}
	}
	r.finish(nil, rpcError(CodeMissingClientCapability, "Missing required client capability: "+list,
		map[string]any{"requiredCapabilities": need}))
	cb(ErrInputRequired)
}

// answerProblem says what is wrong with an answer to method ("" if nothing).
func answerProblem(method string, a json.RawMessage) string {
	var obj map[string]json.RawMessage
	if json.Unmarshal(a, &obj) != nil || obj == nil {
		return "it must be a JSON object"
	}
	switch method {
	case "elicitation/create":
		var action string
		if json.Unmarshal(obj["action"], &action) != nil || (action != "accept" && action != "decline" && action != "cancel") {
			return `action must be "accept", "decline" or "cancel"`
		}
		if c, ok := obj["content"]; ok && string(c) != "null" && (len(c) == 0 || c[0] != '{') {
			return "content must be an object"
		}
	case "sampling/createMessage":
		if c := obj["content"]; len(c) == 0 || (c[0] != '{' && c[0] != '[') {
			return "content must be a content block or a list of them"
		}
	case "roots/list":
		if r := obj["roots"]; len(r) == 0 || r[0] != '[' {
			return "roots must be a list"
		}
	}
	return ""
}

// askLegacyAll asks for inputs[i:] one after another.
func (r *Request) askLegacyAll(inputs []Input, keys []string, got map[string]json.RawMessage, cb func(map[string]json.RawMessage, []string, error)) {
	if len(inputs) == 0 {
		cb(got, keys, nil)
		return
	}
	in := inputs[0]
	r.askLegacy(in.Method, in.Params, func(a json.RawMessage, err error) {
		if err == nil {
			if problem := answerProblem(in.Method, a); problem != "" {
				err = errs.Errorf(errs.Protocol, in.Method, "the client's answer to %s is malformed: %s", in.Method, problem)
			}
		}
		if err != nil {
			cb(nil, nil, err)
			return
		}
		got[in.Key] = a
		r.askLegacyAll(inputs[1:], keys, got, cb)
	})
}

// askLegacy sends a server→client request on the session and waits for the
// answer without blocking anyone.
func (r *Request) askLegacy(method string, params json.RawMessage, cb func(json.RawMessage, error)) {
	var once sync.Once
	call, err := r.sc.conn.StartThenFor(r.route(), method, params, func(call *jsonrpc.Call) {
		once.Do(func() {
			resp, err := call.Result()
			switch {
			case err != nil:
				cb(nil, err)
			case resp.Error != nil:
				cb(nil, &errs.Error{Kind: errs.Tool, Op: method, Msg: "the client answered " + method + " with error " + strconv.Itoa(resp.Error.Code) + ": " + resp.Error.Message, Err: resp.Error})
			default:
				cb(resp.Result, nil)
			}
		})
	})
	if err != nil {
		cb(nil, err)
		return
	}
	context.AfterFunc(r.ctx, func() {
		once.Do(func() {
			call.Abandon()
			r.sc.conn.NotifyFor(r.route(), "notifications/cancelled", json.RawMessage(`{"requestId":`+call.ID.String()+`,"reason":"the request that asked was cancelled"}`))
			cb(nil, context.Cause(r.ctx))
		})
	})
}

// --- requestState: answers of earlier rounds, signed so nobody can forge them

type statePayload struct {
	Method  string                     `json:"m"`
	Target  string                     `json:"t"` // tool or prompt name, or resource uri
	Answers map[string]json.RawMessage `json:"a"`
	Expires int64                      `json:"x"`           // unix seconds
	Park    string                     `json:"p,omitempty"` // parked work it continues (server_park.go)
}

// target is what the state is bound to besides the method.
func (r *Request) target() string {
	for _, k := range []string{"name", "uri"} {
		if v := jsonscan.Member(r.Params, k); v != nil {
			var s string
			json.Unmarshal(v, &s)
			return s
		}
	}
	return ""
}

func (s *Server) mac(b []byte) []byte {
	h := hmac.New(sha256.New, s.stateKey())
	h.Write([]byte("luagent requestState v1\x00"))
	h.Write(b)
	return h.Sum(nil)
}

func (s *Server) signState(r *Request, answers map[string]json.RawMessage) (string, error) {
	if answers == nil {
		answers = map[string]json.RawMessage{}
	}
	return s.signPayload(statePayload{Method: r.Method, Target: r.target(), Answers: answers})
}

// signPayload signs p, expiring StateTTL from now.
func (s *Server) signPayload(p statePayload) (string, error) {
	p.Expires = time.Now().Add(s.opts.StateTTL).Unix()
	b, err := json.Marshal(p)
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b) + "." + base64.RawURLEncoding.EncodeToString(s.mac(b)), nil
}

var errBadState = rpcError(jsonrpc.CodeInvalidParams,
	"requestState is not valid: it was altered, has expired, or was made by another server (replicas must share LUAGENT_STATE_KEY); call again without it", nil)

// loadInputs reads the retry's requestState (verifying it) and
// inputResponses into the request's answers.
func (r *Request) loadInputs() *jsonrpc.Error {
	state := jsonscan.Member(r.Params, "requestState")
	responses := jsonscan.Member(r.Params, "inputResponses")
	if state == nil && responses == nil {
		return nil
	}
	answers := map[string]json.RawMessage{}
	park := ""
	var parked any
	if state != nil {
		var tok string
		if json.Unmarshal(state, &tok) != nil {
			return errBadState
		}
		p, ok := r.sc.srv.verifyState(tok)
		if !ok || p.Method != r.Method || p.Target != r.target() || time.Now().Unix() > p.Expires {
			return errBadState
		}
		for k, v := range p.Answers {
			answers[k] = v
		}
		park = p.Park
	}
	if responses != nil {
		var rs map[string]json.RawMessage
		if json.Unmarshal(responses, &rs) != nil || rs == nil {
			return rpcError(jsonrpc.CodeInvalidParams, "inputResponses must be an object of answers by key", nil)
		}
		for k, v := range rs {
			answers[k] = v
		}
	}
	if park != "" { // taken only by a retry that is otherwise well formed
		v, ok := r.sc.srv.parks.take(park)
		if !ok {
			return errParkGone
		}
		parked = v
	}
	r.inMu.Lock()
	rin := r.inputs()
	rin.answers, rin.parked = answers, parked
	r.inMu.Unlock()
	return nil
}

func (s *Server) verifyState(tok string) (*statePayload, bool) {
	i := len(tok) - 1
	for i >= 0 && tok[i] != '.' {
		i--
	}
	if i <= 0 {
		return nil, false
	}
	body, err1 := base64.RawURLEncoding.DecodeString(tok[:i])
	sig, err2 := base64.RawURLEncoding.DecodeString(tok[i+1:])
	if err1 != nil || err2 != nil || !hmac.Equal(sig, s.mac(body)) {
		return nil, false
	}
	var p statePayload
	if json.Unmarshal(body, &p) != nil {
		return nil, false
	}
	return &p, true
}
