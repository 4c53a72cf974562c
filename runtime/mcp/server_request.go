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
	"sync"
	"sync/atomic"
	"time"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/jsonrpc"
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

	sc         *serverConn
	ctx        context.Context
	cancelFn   context.CancelCauseFunc
	timer      *time.Timer
	clientCaps clientCapabilities

	progressToken json.RawMessage
	logLevel      string // modern: the request's level; "" = no logs

	done   atomic.Bool
	silent atomic.Bool // cancelled by the client: send nothing

	// Modern input rounds (MRTR): answers known so far, by key, and how many
	// asks the handler has made in this run.
	inMu    sync.Mutex
	answers map[string]json.RawMessage
	asks    int
}

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
func (r *Request) Meta() json.RawMessage { return member(r.Params, "_meta") }

// Param returns the raw JSON of params' member name, or nil.
func (r *Request) Param(name string) json.RawMessage { return member(r.Params, name) }

// StringParam returns params' member name as a string ("" when absent or
// not a string).
func (r *Request) StringParam(name string) string {
	raw := member(r.Params, name)
	if s, ok := unquoteSimple(raw); ok {
		return s
	}
	var s string
	json.Unmarshal(raw, &s)
	return s
}

func (r *Request) cancel(cause error) {
	r.cancelFn(cause)
}

func (r *Request) silence() {
	r.silent.Store(true)
	r.done.Store(true)
	r.cleanup()
}

func (r *Request) cleanup() {
	if r.timer != nil {
		r.timer.Stop()
	}
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
		je = &jsonrpc.Error{Code: code, Message: errMsg(err)}
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
	if !r.done.CompareAndSwap(false, true) {
		return
	}
	r.cleanup()
	defer r.cancel(errs.New(errs.Cancelled, "", "the request has been answered"))
	if rerr != nil {
		r.sc.conn.Reply(r.ID, nil, rerr)
		return
	}
	if r.Era == EraModern {
		result = r.sc.srv.modernResult(r.Method, result)
	}
	r.sc.conn.Reply(r.ID, result, nil)
}

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
	r.sc.conn.Notify("notifications/progress", b)
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
	return r.sc.conn.Notify("notifications/message", b)
}

// ErrInputRequired is what Ask delivers when a modern request has been
// answered with input_required: the handler should stop (its context is
// cancelled too); the client will call again with the answer.
var ErrInputRequired = errors.New("the client was asked for input; the request will be retried")

// capabilityFor names the client capability an input method needs.
func capabilityFor(method string, params json.RawMessage) (string, json.RawMessage) {
	switch method {
	case "elicitation/create":
		var p struct {
			Mode string `json:"mode"`
		}
		json.Unmarshal(params, &p)
		if p.Mode == "url" {
			return "elicitation.url", json.RawMessage(`{"elicitation":{"url":{}}}`)
		}
		return "elicitation", json.RawMessage(`{"elicitation":{}}`)
	case "sampling/createMessage":
		return "sampling", json.RawMessage(`{"sampling":{}}`)
	case "roots/list":
		return "roots", json.RawMessage(`{"roots":{}}`)
	}
	return "", nil
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

// Ask asks the client for input — elicitation/create,
// sampling/createMessage or roots/list — and calls cb with the answer. It
// reads as one call for the handler in both eras. Legacy: a request to the
// client. Modern: the answer from this round's inputResponses or the signed
// requestState; when there is none, the request is answered with
// input_required (and a requestState carrying every answer so far), and cb
// gets ErrInputRequired. A capability the client did not declare fails:
// modern with -32021 for the whole request, legacy with an error for cb.
func (r *Request) Ask(method string, params json.RawMessage, cb func(json.RawMessage, error)) {
	capName, capJSON := capabilityFor(method, params)
	if capName == "" {
		cb(nil, errs.Errorf(errs.Invalid, "ask", "cannot ask the client for %s", method))
		return
	}
	if !r.clientCaps.has(capName) {
		err := errs.Errorf(errs.Protocol, method, "the client did not declare the %s capability, which this needs", capName)
		if r.Era == EraModern {
			r.finish(nil, rpcError(CodeMissingClientCapability, "Missing required client capability: "+capName,
				map[string]any{"requiredCapabilities": capJSON}))
			cb(nil, ErrInputRequired)
			return
		}
		cb(nil, err)
		return
	}
	if r.Era == EraLegacy {
		r.askLegacy(method, params, cb)
		return
	}
	r.inMu.Lock()
	r.asks++
	key := "input-" + strconv.Itoa(r.asks)
	answer, ok := r.answers[key]
	r.inMu.Unlock()
	if ok {
		cb(answer, nil)
		return
	}
	state, err := r.sc.srv.signState(r, r.answers)
	if err != nil {
		r.Fail(err)
		cb(nil, err)
		return
	}
	req, _ := json.Marshal(map[string]any{key: map[string]any{"method": method, "params": params}})
	res := []byte(`{"resultType":"input_required","inputRequests":`)
	res = append(res, req...)
	res = append(res, `,"requestState":`...)
	res = strconv.AppendQuote(res, state)
	res = append(res, '}')
	r.finish(res, nil)
	cb(nil, ErrInputRequired)
}

// askLegacy sends a server→client request on the session and waits for the
// answer without blocking anyone.
func (r *Request) askLegacy(method string, params json.RawMessage, cb func(json.RawMessage, error)) {
	var once sync.Once
	call, err := r.sc.conn.StartThen(method, params, func(call *jsonrpc.Call) {
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
			r.sc.conn.Notify("notifications/cancelled", json.RawMessage(`{"requestId":`+call.ID.String()+`,"reason":"the request that asked was cancelled"}`))
			cb(nil, context.Cause(r.ctx))
		})
	})
}

// --- requestState: answers of earlier rounds, signed so nobody can forge them

type statePayload struct {
	Method  string                     `json:"m"`
	Target  string                     `json:"t"` // tool or prompt name, or resource uri
	Answers map[string]json.RawMessage `json:"a"`
	Expires int64                      `json:"x"` // unix seconds
}

// target is what the state is bound to besides the method.
func (r *Request) target() string {
	for _, k := range []string{"name", "uri"} {
		if v := member(r.Params, k); v != nil {
			var s string
			json.Unmarshal(v, &s)
			return s
		}
	}
	return ""
}

func (s *Server) mac(b []byte) []byte {
	h := hmac.New(sha256.New, s.opts.StateKey)
	h.Write([]byte("luagent requestState v1\x00"))
	h.Write(b)
	return h.Sum(nil)
}

func (s *Server) signState(r *Request, answers map[string]json.RawMessage) (string, error) {
	if answers == nil {
		answers = map[string]json.RawMessage{}
	}
	b, err := json.Marshal(statePayload{Method: r.Method, Target: r.target(), Answers: answers, Expires: time.Now().Add(s.opts.StateTTL).Unix()})
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
	state := member(r.Params, "requestState")
	responses := member(r.Params, "inputResponses")
	if state == nil && responses == nil {
		return nil
	}
	answers := map[string]json.RawMessage{}
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
	}
	if responses != nil {
		var rs map[string]json.RawMessage
		if json.Unmarshal(responses, &rs) != nil {
			return rpcError(jsonrpc.CodeInvalidParams, "inputResponses must be an object of answers by key", nil)
		}
		for k, v := range rs {
			answers[k] = v
		}
	}
	r.answers = answers
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
