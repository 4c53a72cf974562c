package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/jsonrpc"
	"github.com/luagent/luagent/runtime/jsonscan"
	"github.com/luagent/luagent/runtime/secret"
	"github.com/luagent/luagent/runtime/trace"
	"github.com/luagent/luagent/runtime/transport"
)

// reqOpts tune one request.
type reqOpts struct {
	progress func(Progress) // wants progress notifications
	timeout  time.Duration  // overrides Options.Timeout
	mrtr     bool           // the method may answer input_required
	tasks    bool           // the method may answer with a task (tools/call)
	taskCaps bool           // declare the tasks extension (tools/call, tasks/*)
	noCancel bool           // never send notifications/cancelled (initialize)
	resent   bool           // the request was already sent again once (resend)
	// token, when set, is the progress token to use, and the caller's: the
	// request leaves progress on it going to progress when it returns
	// (a 2025-11-25 task reports on its call's token until it ends), and
	// the caller removes it (c.progress.Delete).
	token string
}

// ServerError returns the JSON-RPC error a server answered with, when err
// is one.
func ServerError(err error) (*jsonrpc.Error, bool) {
	var je *jsonrpc.Error
	ok := errors.As(err, &je)
	return je, ok
}

// request sends method with params (a JSON object of the method's own
// fields, or nil) to the live session, adding the modern envelope, and
// follows input_required rounds and tasks to the final result.
func (c *Client) request(ctx context.Context, method string, params json.RawMessage, o reqOpts) (json.RawMessage, error) {
	s, err := c.session(ctx)
	if err != nil {
		return nil, err
	}
	return c.follow(ctx, s, method, params, o, 0, nil, nil)
}

// follow runs the request's rounds from round on. res, when given, is the
// answer to the round already sent (the non-blocking path hands over here
// when a result needs more rounds); extra are that round's added members.
func (c *Client) follow(ctx context.Context, s *session, method string, params json.RawMessage, o reqOpts, round int, res json.RawMessage, extra [][]byte) (json.RawMessage, error) {
	resent := o.resent
	for ; ; round++ {
		if res == nil {
			tok := c.tokenFor(method, o)
			body := c.params(s, params, tok, o.tasks || o.taskCaps, extra...)
			var err error
			if res, err = c.roundTrip(ctx, s, method, body, tok, o); err != nil {
				if !resent {
					if ns, ok := c.resend(ctx, s, method, params, err); ok {
						s, resent = ns, true
						round--
						continue
					}
				}
				return nil, c.unanswered(method, err)
			}
		}
		if s.info.Era != EraModern {
			return res, nil
		}
		switch rt := resultType(res); rt {
		case "", ResultComplete:
			return res, nil
		case ResultInputRequired:
			if !o.mrtr {
				return nil, c.protocolError(method, "answered input_required, which only tools/call, prompts/get and resources/read may")
			}
			if round+1 >= c.opts.MaxInputRounds {
				return nil, errs.Errorf(errs.Protocol, method, "%q still asked for input after %d rounds; giving up (the server may be looping)", c.opts.Name, round+1)
			}
			var err error
			if extra, err = c.answerInputRequired(ctx, s, method, res); err != nil {
				return nil, err
			}
		case ResultTask:
			if !o.tasks {
				return nil, c.protocolError(method, "answered with a task, which only tools/call may")
			}
			return c.followModernTask(ctx, s, res, o)
		default:
			return nil, c.protocolError(method, fmt.Sprintf("answered resultType %q, which luagent does not know", rt))
		}
		res = nil
	}
}

// resend says whether a request that failed with err goes out once more,
// and on which session, after doing what makes that succeed. Only what
// cannot run twice by being sent twice is sent again:
//
//   - a request the server refused without handling it: a 2025-11-25
//     session it no longer knows (404: it initializes a new one first), or
//     a 2026-07-28 -32020 about an Mcp-Param-* header (our tools/list is
//     stale: it is fetched again first);
//   - a 2026-07-28 request whose reply stream broke before the answer
//     (that era cannot resume a stream), when it is safe to run again
//     (safeToResend). Whatever else may have run: its error says so
//     (unanswered), and the caller decides.
//
// A 2025-11-25 reply stream is resumed by the transport (Last-Event-ID),
// which sends nothing again.
func (c *Client) resend(ctx context.Context, s *session, method string, params json.RawMessage, err error) (*session, bool) {
	je, ok := ServerError(err)
	if !ok {
		return nil, false
	}
	switch {
	case s.info.Era == EraModern && isStreamBroken(je):
		if !c.safeToResend(method, params) {
			return nil, false
		}
		trace.Emit(c.opts.Trace, trace.Event{Kind: trace.Retry, Server: c.opts.Name, Method: method, Message: "re-issued after the reply stream broke: " + je.Message})
		return s, true
	case s.info.Era == EraModern && je.Code == CodeHeaderMismatch && method == "tools/call" && strings.Contains(strings.ToLower(je.Message+string(je.Data)), "mcp-param-"):
		c.lists.drop("tools/list")
		if _, lerr := c.list(ctx, "tools/list", "tools"); lerr != nil {
			return nil, false
		}
		trace.Emit(c.opts.Trace, trace.Event{Kind: trace.Retry, Server: c.opts.Name, Method: method, Message: "retried after refreshing tools/list: " + je.Message})
		return s, true
	case s.info.Era == EraLegacy && isSessionExpired(je):
		// The old stream ends right after this answer.
		select {
		case <-s.conn.Done():
		case <-time.After(2 * time.Second):
		}
		ns, serr := c.session(ctx)
		if serr != nil {
			return nil, false
		}
		trace.Emit(c.opts.Trace, trace.Event{Kind: trace.Retry, Server: c.opts.Name, Method: method, Message: "sent again in a new session: " + je.Message})
		return ns, true
	}
	return nil, false
}

// mayResend is resend's test without its work (no I/O): whether err is
// one resend might act on.
func mayResend(err error) bool {
	je, ok := ServerError(err)
	return ok && (isStreamBroken(je) || isSessionExpired(je) || je.Code == CodeHeaderMismatch)
}

// safeMethods change nothing on the server, or leave it the same however
// often they are sent: their answer lost, they are sent again.
var safeMethods = map[string]bool{
	"server/discover": true, "initialize": true, "ping": true,
	"tools/list": true, "resources/list": true, "resources/templates/list": true, "prompts/list": true,
	"resources/read": true, "prompts/get": true, "completion/complete": true,
	"resources/subscribe": true, "resources/unsubscribe": true, "logging/setLevel": true,
	"tasks/get": true, "tasks/result": true, "tasks/list": true, "tasks/cancel": true,
	"skills/list": true, "skills/get": true,
}

// safeToResend: running the request twice does no more than running it
// once. A tool call is, only when its listing says so (readOnlyHint or
// idempotentHint); a tool the client has not seen listed is not.
func (c *Client) safeToResend(method string, params json.RawMessage) bool {
	if method != "tools/call" {
		return safeMethods[method]
	}
	var p struct {
		Name string `json:"name"`
	}
	json.Unmarshal(params, &p)
	t := c.cachedTool(p.Name)
	if t == nil || t.Annotations == nil {
		return false
	}
	a := t.Annotations
	return (a.ReadOnlyHint != nil && *a.ReadOnlyHint) || (a.IdempotentHint != nil && *a.IdempotentHint)
}

// unanswered is the error of a request that was not sent again: a tool
// call whose reply stream broke may have run, and says so.
func (c *Client) unanswered(method string, err error) error {
	if je, ok := ServerError(err); ok && isStreamBroken(je) {
		return c.lostAnswer(method, je.Message, err)
	}
	return err
}

// lostAnswer is the error of a tool call that was sent and whose answer
// never came (why): kind unknown_outcome. Other requests keep err.
func (c *Client) lostAnswer(method, why string, err error) error {
	if method != "tools/call" {
		return err
	}
	return &errs.Error{Kind: errs.UnknownOutcome, Op: method, Err: err,
		Msg: fmt.Sprintf("the answer from %q was lost (%s): the tool call may have run; check its effect before calling it again", c.opts.Name, why)}
}

// connectionLost is the error of a request that was written and whose
// connection then failed (the server died or hung up): a tool call's
// outcome is unknown. A connection the caller closed stays kind closed,
// and one that could not even be made (nothing listens) kind process.
func (c *Client) connectionLost(method string, err error) error {
	err = c.transportError(method, err)
	if errs.KindOf(err) == errs.Process && !errors.Is(err, transport.ErrNotDelivered) {
		return c.lostAnswer(method, errs.Message(err), err)
	}
	return err
}

// isSessionExpired: the HTTP transport's answer for a 2025-11-25 request
// the server refused with 404 because it no longer knows the session (it
// did not handle the request).
func isSessionExpired(je *jsonrpc.Error) bool {
	return bytes.Contains(je.Data, []byte(`"sessionExpired":true`))
}

// isStreamBroken: the HTTP transport's answer for a request whose reply
// stream ended before the answer.
func isStreamBroken(je *jsonrpc.Error) bool {
	return bytes.Contains(je.Data, []byte(`"streamBroken":true`))
}

// httpStatus is the HTTP status the transport put in an error's data.
func httpStatus(je *jsonrpc.Error) int {
	var d struct {
		HTTPStatus int `json:"httpStatus"`
	}
	if len(je.Data) > 0 && je.Data[0] == '{' {
		json.Unmarshal(je.Data, &d)
	}
	return d.HTTPStatus
}

// tokenFor returns a progress token when the request wants one. Every tool
// call carries one, so progress can keep its inactivity timeout alive even
// when nobody watches.
func (c *Client) tokenFor(method string, o reqOpts) string {
	if o.token != "" {
		return o.token
	}
	if o.progress != nil || method == "tools/call" {
		return c.nextToken()
	}
	return ""
}

func (c *Client) protocolError(method, what string) error {
	return errs.Errorf(errs.Protocol, method, "server %q %s", c.opts.Name, what)
}

// resultType reads a modern result's resultType without decoding the rest
// when the member is absent (every legacy result).
func resultType(raw json.RawMessage) string {
	if !bytes.Contains(raw, []byte(`"resultType"`)) {
		return ""
	}
	var v struct {
		ResultType string `json:"resultType"`
	}
	json.Unmarshal(raw, &v)
	return v.ResultType
}

// params builds the request params: the modern _meta envelope (or, legacy,
// just the progress token), the method's own fields, and extra members
// (inputResponses, requestState) given as `"key":value` fragments.
func (c *Client) params(s *session, fields json.RawMessage, tok string, tasks bool, extra ...[]byte) json.RawMessage {
	b := make([]byte, 0, 128+len(fields))
	b = append(b, '{')
	n := 0
	sep := func() {
		if n > 0 {
			b = append(b, ',')
		}
		n++
	}
	if s.info.Era == EraModern {
		sep()
		b = append(b, `"_meta":{`...)
		b = append(b, s.envelope...)
		b = append(b, `,"`+MetaClientCapabilities+`":`...)
		b = append(b, c.capabilities(EraModern, tasks && s.info.Capabilities.Extensions[TasksExtension] != nil)...)
		if lvl := c.requestLogLevel(); lvl != "" {
			b = append(b, `,"`+MetaLogLevel+`":`...)
			b = jsonscan.AppendString(b, lvl)
		}
		if tok != "" {
			b = append(b, `,"progressToken":`...)
			b = jsonscan.AppendString(b, tok)
		}
		b = append(b, '}')
	} else if tok != "" {
		sep()
		b = append(b, `"_meta":{"progressToken":`...)
		b = jsonscan.AppendString(b, tok)
		b = append(b, '}')
	}
	if inner := bytes.TrimSpace(fields); len(inner) > 2 {
		inner = bytes.TrimSpace(inner[1 : len(inner)-1])
		if len(inner) > 0 {
			sep()
			b = append(b, inner...)
		}
	}
	for _, e := range extra {
		sep()
		b = append(b, e...)
	}
	return append(b, '}')
}

// envelope is the constant part of the modern _meta: version and client info.
func (c *Client) envelope(version string) []byte {
	info, _ := json.Marshal(c.opts.ClientInfo)
	return []byte(`"` + MetaProtocolVersion + `":` + jsonscan.Quote(version) + `,"` + MetaClientInfo + `":` + string(info))
}

// roundTrip sends one request and waits for its answer. The wait is an
// inactivity timeout: progress restarts it, up to ten times the timeout in
// all. On timeout or cancellation the server is told
// (notifications/cancelled) and a late answer is dropped.
func (c *Client) roundTrip(ctx context.Context, s *session, method string, params json.RawMessage, tok string, o reqOpts) (json.RawMessage, error) {
	var activity chan struct{}
	if tok != "" {
		activity = make(chan struct{}, 1)
		key := jsonscan.Quote(tok)
		c.progress.Store(key, func(p Progress) {
			if o.progress != nil {
				o.progress(p)
			}
			select {
			case activity <- struct{}{}:
			default:
			}
		})
		if o.token != "" && o.progress != nil {
			defer c.progress.Store(key, o.progress) // the caller's token: keep it delivering
		} else {
			defer c.progress.Delete(key)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, ctxError(ctx, method, c.opts.Name)
	}
	call, err := s.conn.Call(method, params)
	if err != nil {
		return nil, c.transportError(method, err)
	}
	timeout := o.timeout
	if timeout <= 0 {
		timeout = c.opts.Timeout
	}
	start := time.Now()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		select {
		case <-call.Done():
			resp, err := call.Result()
			if err != nil {
				return nil, c.connectionLost(method, err)
			}
			if resp.Error != nil {
				return nil, c.serverError(method, resp.Error)
			}
			return resp.Result, nil
		case <-activity:
			left := 10*timeout - time.Since(start)
			if !timer.Stop() {
				select {
				case <-timer.C:
				default:
				}
			}
			timer.Reset(max(min(timeout, left), 0))
		case <-timer.C:
			call.Abandon()
			if !o.noCancel {
				c.cancelRequest(s, call.ID, method, "timed out")
			}
			return nil, c.timeoutError(method, time.Since(start), timeout)
		case <-ctx.Done():
			call.Abandon()
			if !o.noCancel {
				c.cancelRequest(s, call.ID, method, "cancelled by the caller")
			}
			return nil, ctxError(ctx, method, c.opts.Name)
		}
	}
}

// timeoutError says which timeout fired after how long: the inactivity
// timeout, or the cap of ten times it that progress cannot extend.
func (c *Client) timeoutError(method string, total, timeout time.Duration) error {
	if total >= 10*timeout-timeout/100 && total > timeout+timeout/100 {
		return errs.Errorf(errs.Timeout, method, "%s to %q timed out: still running after %s, ten times the timeout of %s (progress does not extend it further)",
			method, c.opts.Name, roundDur(total), roundDur(timeout))
	}
	return errs.Errorf(errs.Timeout, method, "%s to %q timed out: no answer or progress for %s (timeout = %s)",
		method, c.opts.Name, roundDur(timeout), roundDur(timeout))
}

func roundDur(d time.Duration) string {
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(10 * time.Millisecond).String()
}

// cancelRequest tells the server to stop working on id: a 2026-07-28 HTTP
// request by closing its stream (traced as stream_cancelled, since nothing
// is sent), any other by notifications/cancelled.
func (c *Client) cancelRequest(s *session, id jsonrpc.ID, method, reason string) {
	if h, ok := s.stream.(interface{ CancelInflight([]byte) bool }); ok && h.CancelInflight([]byte(id.String())) {
		trace.Emit(c.opts.Trace, trace.Event{Kind: trace.StreamCancelled, Server: c.opts.Name, Method: method, ID: id.String(), Message: reason})
		return
	}
	params := []byte(`{"requestId":` + id.String() + `,"reason":` + jsonscan.Quote(reason) + `}`)
	s.conn.Notify("notifications/cancelled", params)
}

// transportError describes a failure of the connection during method.
func (c *Client) transportError(method string, err error) error {
	k := errs.KindOf(err)
	if k == errs.Unknown {
		k = errs.Closed
	}
	return &errs.Error{Kind: k, Op: method, Msg: err.Error(), Err: err}
}

// serverError turns a JSON-RPC error answer into an error with a kind; the
// *jsonrpc.Error stays reachable with errors.As (code and data).
func (c *Client) serverError(method string, e *jsonrpc.Error) error {
	k := errs.Tool
	switch e.Code {
	case jsonrpc.CodeMethodNotFound, CodeResourceNotFound:
		k = errs.NotFound
	case jsonrpc.CodeInvalidParams:
		k = errs.Invalid
		if method == "resources/read" {
			k = errs.NotFound // the modern spelling of "resource not found"
		}
	case jsonrpc.CodeParseError, jsonrpc.CodeInvalidRequest, CodeHeaderMismatch, CodeMissingClientCapability, CodeUnsupportedProtocolVersion:
		k = errs.Protocol
	}
	switch st := httpStatus(e); {
	case isStreamBroken(e):
		k = errs.Closed
	case st == 401 || st == 403:
		return c.authError(method, e)
	}
	return &errs.Error{Kind: k, Op: method, Msg: fmt.Sprintf("%q answered error %d: %s", c.opts.Name, e.Code, e.Message), Err: e}
}

// authError is the error of a request the HTTP server refused with 401 or
// 403 (e is the transport's answer for it, or the OAuth layer's failure):
// kind auth, saying authorization was refused and what to do.
func (c *Client) authError(op string, e *jsonrpc.Error) error {
	msg := fmt.Sprintf("server %q refused authorization: %s", c.opts.Name, e.Message)
	if !strings.Contains(e.Message, "luagent mcp login") {
		u := "URL"
		if c.opts.URL != "" {
			u = secret.URL(c.opts.URL)
		}
		msg += "; run `luagent mcp login " + u + "`, or fix the token it is sent"
	}
	return &errs.Error{Kind: errs.Auth, Op: op, Msg: msg, Err: e}
}

// answerInputRequired answers a modern input_required result's requests
// through the callbacks and returns the retry's extra members:
// inputResponses, and requestState echoed byte for byte.
func (c *Client) answerInputRequired(ctx context.Context, s *session, method string, res json.RawMessage) ([][]byte, error) {
	var ir struct {
		InputRequests map[string]inputRequest `json:"inputRequests"`
		RequestState  json.RawMessage         `json:"requestState"`
	}
	if err := json.Unmarshal(res, &ir); err != nil {
		return nil, c.protocolError(method, "sent a malformed input_required result: "+err.Error())
	}
	var extra [][]byte
	if len(ir.InputRequests) > 0 {
		responses, err := c.answerAll(ctx, EraModern, ir.InputRequests)
		if err != nil {
			return nil, err
		}
		b, _ := json.Marshal(responses)
		extra = append(extra, append([]byte(`"inputResponses":`), b...))
	}
	if len(ir.RequestState) > 0 && string(ir.RequestState) != "null" {
		extra = append(extra, append([]byte(`"requestState":`), ir.RequestState...))
	}
	return extra, nil
}

// answerAll answers input requests in key order.
func (c *Client) answerAll(ctx context.Context, era Era, reqs map[string]inputRequest) (map[string]json.RawMessage, error) {
	keys := make([]string, 0, len(reqs))
	for k := range reqs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(map[string]json.RawMessage, len(reqs))
	for _, k := range keys {
		r, err := c.answer(ctx, era, reqs[k].Method, reqs[k].Params)
		if err != nil {
			return nil, err
		}
		out[k] = r
	}
	return out, nil
}

// answer runs the callback for one thing the server asks of the client.
func (c *Client) answer(ctx context.Context, era Era, method string, params json.RawMessage) (json.RawMessage, error) {
	missing := func(cb string) error {
		return errs.Errorf(errs.Protocol, method, "server %q sent %s, but no %s callback was given (luagent did not advertise the capability)", c.opts.Name, method, cb)
	}
	switch method {
	case "ping":
		return json.RawMessage("{}"), nil
	case "elicitation/create":
		if c.opts.Elicit == nil {
			return nil, missing("on_elicit")
		}
		return c.opts.Elicit(ctx, params)
	case "sampling/createMessage":
		if c.opts.Sample == nil {
			return nil, missing("on_sample")
		}
		return c.opts.Sample(ctx, params)
	case "roots/list":
		if c.opts.Roots == nil {
			return nil, missing("roots")
		}
		roots, err := c.opts.Roots(ctx)
		if err != nil {
			return nil, err
		}
		if roots == nil {
			roots = []Root{}
		}
		b, err := json.Marshal(struct {
			Roots []Root `json:"roots"`
		}{roots})
		return b, err
	}
	return nil, errs.Errorf(errs.NotFound, method, "server %q asked for %s, which luagent does not answer", c.opts.Name, method)
}

// serverRequest answers a legacy server→client request on its own
// goroutine (the reader must not block).
func (c *Client) serverRequest(s *session, m *jsonrpc.Message) {
	ctx, cancel := context.WithCancel(context.Background())
	s.serverReqs.Store(m.ID.String(), cancel)
	go func() {
		defer cancel()
		defer s.serverReqs.Delete(m.ID.String())
		res, err := c.answer(ctx, EraLegacy, m.Method, m.Params)
		if err != nil {
			code := jsonrpc.CodeInternalError
			if errs.KindOf(err) == errs.NotFound || errs.KindOf(err) == errs.Protocol {
				code = jsonrpc.CodeMethodNotFound
			}
			s.conn.Reply(m.ID, nil, &jsonrpc.Error{Code: code, Message: err.Error()})
			return
		}
		s.conn.Reply(m.ID, res, nil)
	}()
}
