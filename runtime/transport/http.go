package transport

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/jsonscan"
	"github.com/luagent/luagent/runtime/origin"
	"github.com/luagent/luagent/runtime/secret"
	"github.com/luagent/luagent/runtime/sse"
	"github.com/luagent/luagent/runtime/trace"
)

// HTTP is the client side of Streamable HTTP as a message stream (the same
// Read/Write/Close as Process), for both protocol eras:
//
//   - every message is POSTed; a reply comes as JSON or as an SSE stream of
//     messages, all of which Read returns in order;
//   - a request carrying the 2026-07-28 _meta envelope gets the headers
//     that era requires (MCP-Protocol-Version, Mcp-Method, Mcp-Name,
//     Mcp-Param-*); cancelling it (notifications/cancelled) closes its
//     stream instead of being sent;
//   - 2025-11-25: the session id from the initialize answer and the
//     negotiated version go on every later POST; after
//     notifications/initialized a GET stream brings what the server sends
//     unprompted; an SSE reply that breaks before its answer is resumed
//     with Last-Event-ID after the server's retry: delay; a 404 for the
//     session ends the stream (the client initializes again); Close sends
//     DELETE;
//   - every request (POST, GET, DELETE) follows redirects only within
//     the endpoint's origin (runtime/origin): a redirect elsewhere ends the
//     stream with an error of kind protocol naming both origins, and
//     nothing — headers, token, DPoP proof, cookies, the request — is sent
//     there;
//   - error answers whose id is null (legacy servers refusing a sessionless
//     request do that) are given the id of the request they answer, and a
//     reply that is not JSON-RPC at all becomes an error answer for it, so
//     era detection can read them.
type HTTP struct {
	url  string
	opts HTTPOptions

	in     chan []byte
	ctx    context.Context
	cancel context.CancelCauseFunc

	mu        sync.Mutex
	session   string // Mcp-Session-Id (2025-11-25)
	version   string // negotiated 2025-11-25 version
	inflight  map[string]inflight
	getOpen   bool
	lastEvent string // of the GET stream
	token     string // the bearer token the last request carried (for DELETE)
	closed    bool
	endpoint  string // the deprecated HTTP+SSE transport's POST URL, once fallen back
}

// HTTPOptions configure an HTTP stream.
type HTTPOptions struct {
	Name   string // the server's name, for errors
	Client *http.Client
	// Header is added to every request (custom headers).
	Header http.Header
	// Token, if set, returns a bearer token for each request.
	Token func(ctx context.Context) (string, error)
	// Authorize, if set, is called when a request is refused with 401 or
	// 403: status, the WWW-Authenticate challenge and the token the request
	// carried ("" for none). It returns whether to send the request once
	// more (Token then gives the new token), or an error (kind auth) that
	// becomes the request's answer. It may take long (a browser step) and
	// is called concurrently: the caller serializes.
	Authorize func(ctx context.Context, status int, challenge, used string) (retry bool, err error)
	// ParamHeaders, if set, maps a tool's x-mcp-header names to argument
	// names, so 2026-07-28 tools/call requests mirror them as Mcp-Param-*.
	ParamHeaders func(tool string) map[string]string
	// MaxMessage caps one message (default 16 MiB).
	MaxMessage int
	Trace      trace.Sink
}

// NewHTTP returns a stream to the MCP endpoint url. Nothing is sent until
// the first Write.
func NewHTTP(url string, opts HTTPOptions) *HTTP {
	if opts.Client == nil {
		opts.Client = http.DefaultClient
	}
	if opts.MaxMessage <= 0 {
		opts.MaxMessage = 16 << 20
	}
	who := "the MCP server"
	if opts.Name == "" {
		opts.Name = secret.URL(url) // a name shows in errors and traces
	} else {
		who = fmt.Sprintf("MCP server %q", opts.Name)
	}
	opts.Client = origin.Client(opts.Client, who)
	ctx, cancel := context.WithCancelCause(context.Background())
	return &HTTP{url: url, opts: opts, in: make(chan []byte, 256), ctx: ctx, cancel: cancel, inflight: map[string]inflight{}}
}

// Read returns the next message from the server.
func (h *HTTP) Read() ([]byte, error) {
	select {
	case m := <-h.in:
		return m, nil
	case <-h.ctx.Done():
		// Deliver what arrived before the end.
		select {
		case m := <-h.in:
			return m, nil
		default:
		}
		return nil, context.Cause(h.ctx)
	}
}

func (h *HTTP) deliver(msg []byte) {
	select {
	case h.in <- msg:
	case <-h.ctx.Done():
	}
}

// fail ends the stream with err.
func (h *HTTP) fail(err error) { h.cancel(err) }

// Write sends one message.
func (h *HTTP) Write(msg []byte) error {
	if err := h.ctx.Err(); err != nil {
		return context.Cause(h.ctx)
	}
	var method string
	var id, params []byte
	isResponse := false
	jsonscan.Members(msg, func(k, v []byte) bool {
		switch string(k) {
		case `"method"`:
			json.Unmarshal(v, &method)
		case `"id"`:
			id = v
		case `"params"`:
			params = v
		case `"result"`, `"error"`:
			isResponse = true
		}
		return true
	})
	meta := jsonscan.Member(params, "_meta")
	modernVersion := ""
	if v := jsonscan.Member(meta, "io.modelcontextprotocol/protocolVersion"); v != nil {
		json.Unmarshal(v, &modernVersion)
	}
	if method == "notifications/cancelled" && h.cancelInflight(jsonscan.Member(params, "requestId")) {
		return nil
	}
	if method != "" && id != nil {
		go h.post(msg, method, id, params, modernVersion, isResponse)
		return nil
	}
	// Notifications and answers are sent before Write returns, so that
	// what the caller writes next cannot overtake them (initialized must
	// reach a session before its first request).
	h.post(msg, method, id, params, modernVersion, isResponse)
	return nil
}

// inflight is a request whose reply is being read.
type inflight struct {
	cancel context.CancelFunc
	modern bool
}

// CancelInflight cancels a 2026-07-28 request in flight the way that era
// does, by closing its reply stream; it reports whether it did (nothing is
// then to be sent). A 2025-11-25 request, or one already answered, is
// left alone: the caller sends notifications/cancelled.
func (h *HTTP) CancelInflight(reqID []byte) bool { return h.cancelInflight(reqID) }

// cancelInflight closes the stream of a cancelled 2026-07-28 request (how
// that era cancels); it reports whether it did, so nothing is sent.
func (h *HTTP) cancelInflight(reqID []byte) bool {
	if reqID == nil {
		return false
	}
	h.mu.Lock()
	f, ok := h.inflight[string(reqID)]
	h.mu.Unlock()
	if !ok || !f.modern {
		return false
	}
	f.cancel()
	return true
}

func (h *HTTP) newRequest(ctx context.Context, method string, body []byte) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, h.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, vs := range h.opts.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	if h.opts.Token != nil {
		tok, err := h.opts.Token(ctx)
		if err != nil {
			return nil, err
		}
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		h.mu.Lock()
		h.token = tok
		h.mu.Unlock()
	}
	return req, nil
}

func (h *HTTP) post(msg []byte, method string, id, params []byte, modernVersion string, isResponse bool) {
	ctx, cancel := context.WithCancel(h.ctx)
	defer cancel()
	isRequest := method != "" && id != nil
	h.mu.Lock()
	endpoint := h.endpoint
	h.mu.Unlock()
	if endpoint != "" {
		h.postSSE(endpoint, msg, method, id, isRequest)
		return
	}
	if isRequest {
		h.mu.Lock()
		h.inflight[string(id)] = inflight{cancel: cancel, modern: modernVersion != ""}
		h.mu.Unlock()
		defer func() {
			h.mu.Lock()
			delete(h.inflight, string(id))
			h.mu.Unlock()
		}()
	}
	var req *http.Request
	var resp *http.Response
	for attempt := 0; ; attempt++ {
		var err error
		req, err = h.newRequest(ctx, http.MethodPost, msg)
		if err != nil {
			h.failRequest(id, isRequest, err)
			return
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if modernVersion != "" {
			req.Header.Set("MCP-Protocol-Version", modernVersion)
			if method != "" {
				req.Header.Set("Mcp-Method", method)
			}
			h.modernHeaders(req, method, params)
		} else {
			h.mu.Lock()
			if h.session != "" {
				req.Header.Set("Mcp-Session-Id", h.session)
			}
			if h.version != "" {
				req.Header.Set("MCP-Protocol-Version", h.version)
			}
			h.mu.Unlock()
		}
		resp, err = h.opts.Client.Do(req)
		if err != nil {
			if ctx.Err() != nil && h.ctx.Err() == nil {
				return // cancelled by the client (2026-07-28 cancellation)
			}
			h.failRequest(id, isRequest, err)
			return
		}
		if attempt > 0 || h.opts.Authorize == nil || (resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden) {
			break
		}
		// Refused: the auth layer may get a token (or a wider one) and the
		// request is sent once more.
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		resp.Body.Close()
		used := strings.TrimPrefix(req.Header.Get("Authorization"), "Bearer ")
		retry, aerr := h.opts.Authorize(ctx, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), used)
		if aerr != nil {
			if isRequest {
				h.deliver(errorReply(id, -32600, errs.Message(aerr), resp.StatusCode))
			}
			return
		}
		if !retry {
			break // answered below as the server refused (its body is gone)
		}
	}
	defer resp.Body.Close()
	if method == "initialize" && modernVersion == "" {
		if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
			h.mu.Lock()
			h.session = sid
			h.mu.Unlock()
		}
	}
	if resp.StatusCode == http.StatusNotFound && modernVersion == "" && req.Header.Get("Mcp-Session-Id") != "" {
		// The session is gone: this request was not handled (marked so the
		// client may send it again in a new session); the stream ends.
		if isRequest {
			e, _ := json.Marshal(map[string]any{"code": -32001, "message": "the HTTP session with " + h.opts.Name + " ended (404)", "data": map[string]any{"sessionExpired": true, "httpStatus": 404}})
			h.deliver(append(append(append(append([]byte(`{"jsonrpc":"2.0","id":`), id...), `,"error":`...), e...), '}'))
		}
		h.fail(errs.Errorf(errs.Process, "", "the HTTP session with %s ended (404); it will be initialized again on the next call", h.opts.Name))
		return
	}
	if !isRequest {
		// Notifications and answers: 202 expected; anything else is the
		// server's business (logged by trace only).
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		if method == "notifications/initialized" && modernVersion == "" && resp.StatusCode < 300 {
			// The GET stream is open (or refused) before the first request
			// goes out, so a server never has to choose between a stream
			// that is coming and one that is there.
			ready := make(chan struct{})
			go h.getStream(ready)
			select {
			case <-ready:
			case <-time.After(2 * time.Second):
			case <-h.ctx.Done():
			}
		}
		return
	}
	if method == "initialize" && modernVersion == "" && (resp.StatusCode == 400 || resp.StatusCode == 404 || resp.StatusCode == 405) {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
		if !modernError(body) {
			// Maybe a server of the deprecated HTTP+SSE transport: only a
			// 4xx leads there, never a network error or a 5xx.
			err := h.fallBackToSSE(msg)
			if err == nil {
				return
			}
			if _, ok := origin.Refused(err); ok {
				h.fail(err)
				return
			}
			snippet := strings.TrimSpace(string(body))
			if len(snippet) > 200 {
				snippet = snippet[:200] + "…"
			}
			h.deliver(errorReply(id, -32600, fmt.Sprintf("HTTP %d for initialize: %s (nor is it an HTTP+SSE server: %v); check the URL", resp.StatusCode, snippet, err), resp.StatusCode))
			return
		}
		h.deliverReply(id, method, resp.StatusCode, body)
		return
	}
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		h.deliver(errorReply(id, -32600, authProblem(resp, method), resp.StatusCode))
		return
	}
	ct := resp.Header.Get("Content-Type")
	switch {
	case strings.HasPrefix(ct, "text/event-stream"):
		h.readSSE(ctx, resp.Body, id, method, modernVersion == "")
	default:
		body, err := io.ReadAll(io.LimitReader(resp.Body, int64(h.opts.MaxMessage)+1))
		if err != nil && ctx.Err() != nil {
			return
		}
		h.deliverReply(id, method, resp.StatusCode, body)
	}
}

// modernHeaders sets Mcp-Name and Mcp-Param-* for a 2026-07-28 request.
func (h *HTTP) modernHeaders(req *http.Request, method string, params []byte) {
	key := ""
	switch method {
	case "tools/call", "prompts/get":
		key = "name"
	case "resources/read":
		key = "uri"
	case "tasks/get", "tasks/update", "tasks/cancel": // the tasks extension routes by task
		key = "taskId"
	default:
		return
	}
	var name string
	json.Unmarshal(jsonscan.Member(params, key), &name)
	req.Header.Set("Mcp-Name", EncodeHeader(name))
	if method != "tools/call" || h.opts.ParamHeaders == nil {
		return
	}
	args := jsonscan.Member(params, "arguments")
	for hname, arg := range h.opts.ParamHeaders(name) {
		raw := jsonscan.Member(args, arg)
		if raw == nil || string(raw) == "null" {
			continue
		}
		v := string(raw)
		if raw[0] == '"' {
			json.Unmarshal(raw, &v)
		}
		req.Header.Set("Mcp-Param-"+hname, EncodeHeader(v))
	}
}

// EncodeHeader writes a header value as 2026-07-28 requires: as is when it
// is plain visible ASCII without edge whitespace, else =?base64?…?=.
func EncodeHeader(v string) string {
	plain := v == strings.TrimSpace(v)
	for i := 0; plain && i < len(v); i++ {
		if c := v[i]; (c < 0x20 && c != '\t') || c > 0x7e {
			plain = false
		}
	}
	if plain && !(strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?=")) {
		return v
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?="
}

// failRequest answers a request whose POST failed with an error the client
// reads like any other (network errors end the stream: the server is gone).
func (h *HTTP) failRequest(id []byte, isRequest bool, err error) {
	if e, ok := origin.Refused(err); ok {
		// The endpoint sends requests elsewhere: every one would be
		// refused the same way, so the stream ends saying why.
		h.fail(e)
		return
	}
	if !isRequest {
		return
	}
	err = unwrapURLError(err)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) {
		h.fail(errs.Errorf(errs.Process, "", "MCP server %s at %s closed the connection before answering (%v): it may have crashed or restarted", h.opts.Name, secret.URL(h.url), err))
		return
	}
	e := errs.Errorf(errs.Process, "", "cannot reach MCP server %s at %s: %v", h.opts.Name, secret.URL(h.url), err)
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Op == "dial" {
		e.Err = ErrNotDelivered
	}
	h.fail(e)
}

// ErrNotDelivered is in the chain of a stream's end when the request that
// ended it could not even connect: it was not delivered (unlike a request
// whose connection broke after it was sent, which may have run).
var ErrNotDelivered = errors.New("the request was not delivered")

func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// deliverReply hands a JSON reply to Read, fixing what era detection needs.
func (h *HTTP) deliverReply(id []byte, method string, status int, body []byte) {
	body = bytes.TrimSpace(body)
	if len(body) > h.opts.MaxMessage {
		h.deliver(errorReply(id, -32603, fmt.Sprintf("the reply to %s is larger than %d bytes", method, h.opts.MaxMessage), status))
		return
	}
	if json.Valid(body) && isReply(body) {
		if e := jsonscan.Member(body, "error"); e != nil {
			if rid := jsonscan.Member(body, "id"); rid == nil || string(rid) == "null" {
				// An error for this POST without its id.
				body = append(append([]byte(`{"jsonrpc":"2.0","id":`), id...), `,"error":`...)
				body = append(append(body, e...), '}')
			}
		}
		if status >= 300 && jsonscan.Member(body, "error") == nil {
			body = errorReply(id, -32603, fmt.Sprintf("HTTP %d for %s", status, method), status)
		}
		if method == "initialize" {
			h.noteVersion(body)
		}
		h.deliver(body)
		return
	}
	snippet := string(body)
	if len(snippet) > 200 {
		snippet = snippet[:200] + "…"
	}
	msg := fmt.Sprintf("HTTP %d for %s", status, method)
	if snippet != "" {
		msg += ": " + snippet
	}
	h.deliver(errorReply(id, -32600, msg, status))
}

// isReply: body is a JSON-RPC answer (a result, or an error object), not
// some other JSON a proxy or an auth layer sent.
func isReply(body []byte) bool {
	if !jsonscan.Members(body, func([]byte, []byte) bool { return true }) {
		return false
	}
	if jsonscan.Member(body, "result") != nil {
		return true
	}
	e := jsonscan.Member(body, "error")
	return len(e) > 0 && e[0] == '{'
}

// authProblem says what a 401 or 403 means; the challenge's
// resource_metadata (a URL, never a secret) names where to find out how.
// What to do is the client's to say (mcp: log in, or fix the token).
func authProblem(resp *http.Response, method string) string {
	msg := fmt.Sprintf("HTTP %d for %s: the server requires authorization", resp.StatusCode, method)
	if resp.StatusCode == http.StatusForbidden {
		msg = fmt.Sprintf("HTTP 403 for %s: the server refused this client's authorization", method)
	}
	challenge := resp.Header.Get("WWW-Authenticate")
	if _, rest, ok := strings.Cut(challenge, `resource_metadata="`); ok {
		if url, _, ok := strings.Cut(rest, `"`); ok {
			msg += " (resource metadata: " + secret.URL(url) + ")"
		}
	}
	if e, _, _ := strings.Cut(challenge, ","); strings.Contains(e, `error="`) {
		_, v, _ := strings.Cut(e, `error="`)
		msg += " [" + strings.TrimSuffix(v, `"`) + "]"
	}
	return msg
}

// noteVersion keeps the negotiated 2025-11-25 version for later headers.
func (h *HTTP) noteVersion(body []byte) {
	var r struct {
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	if json.Unmarshal(body, &r) == nil && r.Result.ProtocolVersion != "" {
		h.mu.Lock()
		h.version = r.Result.ProtocolVersion
		h.mu.Unlock()
	}
}

func errorReply(id []byte, code int, msg string, status int) []byte {
	e, _ := json.Marshal(map[string]any{"code": code, "message": msg, "data": map[string]int{"httpStatus": status}})
	b := append([]byte(`{"jsonrpc":"2.0","id":`), id...)
	b = append(append(b, `,"error":`...), e...)
	return append(b, '}')
}

// readSSE reads a reply stream until it ends; a 2025-11-25 stream that
// breaks before the answer to id is resumed.
func (h *HTTP) readSSE(ctx context.Context, body io.Reader, id []byte, method string, legacy bool) {
	got := false
	lastID, retry := "", time.Second
	for attempt := 0; ; attempt++ {
		err := h.events(body, func(ev sseEvent) {
			if ev.id != "" {
				lastID = ev.id
			}
			if ev.retry > 0 {
				retry = ev.retry
			}
			if len(ev.data) == 0 {
				return
			}
			if rid, ok := responseID(ev.data); ok && bytes.Equal(rid, id) {
				got = true
				if method == "initialize" {
					h.noteVersion(ev.data)
				}
			}
			h.deliver(ev.data)
		})
		if got || ctx.Err() != nil {
			return
		}
		if !legacy || lastID == "" || attempt >= 5 {
			why := "the server closed the reply stream before answering"
			if err != nil {
				why = "the reply stream broke before the answer: " + err.Error()
			}
			h.deliver(streamBroken(id, why))
			return
		}
		// Resume: GET with Last-Event-ID after the server's retry delay.
		select {
		case <-time.After(retry):
		case <-ctx.Done():
			return
		}
		resp, err := h.get(ctx, lastID)
		if err != nil {
			h.deliver(streamBroken(id, "resuming the reply stream failed: "+errs.Message(unwrapURLError(err))))
			return
		}
		defer resp.Body.Close()
		body = resp.Body
	}
}

// streamBroken is the error answer for a request whose stream ended early;
// data.retryable tells the client that re-issuing it is how to recover.
func streamBroken(id []byte, why string) []byte {
	e, _ := json.Marshal(map[string]any{"code": -32603, "message": why, "data": map[string]bool{"streamBroken": true}})
	b := append([]byte(`{"jsonrpc":"2.0","id":`), id...)
	b = append(append(b, `,"error":`...), e...)
	return append(b, '}')
}

// get opens a GET stream of the 2025-11-25 session.
func (h *HTTP) get(ctx context.Context, lastEventID string) (*http.Response, error) {
	req, err := h.newRequest(ctx, http.MethodGet, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	h.mu.Lock()
	if h.session != "" {
		req.Header.Set("Mcp-Session-Id", h.session)
	}
	if h.version != "" {
		req.Header.Set("MCP-Protocol-Version", h.version)
	}
	h.mu.Unlock()
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	resp, err := h.opts.Client.Do(req)
	if err != nil {
		return nil, secret.URLError(err) // it quotes the URL
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		resp.Body.Close()
		return nil, fmt.Errorf("GET answered HTTP %d", resp.StatusCode)
	}
	return resp, nil
}

// getStream keeps the session's GET stream open (reconnecting with
// Last-Event-ID) until the stream closes or the server refuses it.
func (h *HTTP) getStream(ready chan struct{}) {
	var once sync.Once
	signal := func() {
		if ready != nil {
			once.Do(func() { close(ready) })
		}
	}
	defer signal()
	h.mu.Lock()
	if h.getOpen || h.closed {
		h.mu.Unlock()
		return
	}
	h.getOpen = true
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		h.getOpen = false
		h.mu.Unlock()
	}()
	retry := time.Second
	for failures := 0; failures < 5 && h.ctx.Err() == nil; {
		h.mu.Lock()
		last := h.lastEvent
		h.mu.Unlock()
		resp, err := h.get(h.ctx, last)
		if e, ok := origin.Refused(err); ok {
			h.fail(e) // before the first request goes out: it would fail alike
			return
		}
		signal()
		if err != nil {
			if strings.Contains(err.Error(), "HTTP 405") {
				return // the server has no GET stream: fine
			}
			failures++
		} else {
			failures = 0
			h.events(resp.Body, func(ev sseEvent) {
				if ev.id != "" {
					h.mu.Lock()
					h.lastEvent = ev.id
					h.mu.Unlock()
				}
				if ev.retry > 0 {
					retry = ev.retry
				}
				if len(ev.data) > 0 {
					h.deliver(ev.data)
				}
			})
			resp.Body.Close()
		}
		select {
		case <-time.After(retry):
		case <-h.ctx.Done():
		}
	}
}

type sseEvent struct {
	event string
	id    string
	data  []byte
	retry time.Duration
}

// events parses an SSE body, calling f per event; it returns why the body
// ended (nil at a clean EOF). One event is bounded by MaxMessage: a server
// that never ends one costs that, not the client's memory.
func (h *HTTP) events(body io.Reader, f func(sseEvent)) error {
	r := sse.NewReader(body, h.opts.MaxMessage)
	for {
		e, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		ev := sseEvent{event: e.Type, id: e.ID, retry: e.Retry, data: append([]byte(nil), e.Data...)}
		if bytes.IndexByte(ev.data, '\n') >= 0 {
			// One message spread over several data: lines.
			var c bytes.Buffer
			if json.Compact(&c, ev.data) == nil {
				ev.data = c.Bytes()
			}
		}
		f(ev)
	}
}

// responseID returns the id of a response message.
func responseID(msg []byte) ([]byte, bool) {
	var id []byte
	resp := false
	jsonscan.Members(msg, func(k, v []byte) bool {
		switch string(k) {
		case `"id"`:
			id = v
		case `"result"`, `"error"`:
			resp = true
		}
		return true
	})
	return id, resp && id != nil
}

// Close ends the stream; a 2025-11-25 session is ended with DELETE.
func (h *HTTP) Close() error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	sid, version, tok := h.session, h.version, h.token
	h.mu.Unlock()
	h.fail(errs.Errorf(errs.Closed, "", "connection to %s closed", h.opts.Name))
	if sid != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if req, err := http.NewRequestWithContext(ctx, http.MethodDelete, h.url, nil); err == nil {
			// The DELETE carries what the session's requests carried (an
			// authorizing server refuses it otherwise): the headers and
			// the last token, not a new one (getting one may wait on a
			// browser step).
			for k, vs := range h.opts.Header {
				req.Header[k] = vs
			}
			if tok != "" {
				req.Header.Set("Authorization", "Bearer "+tok)
			}
			req.Header.Set("Mcp-Session-Id", sid)
			if version != "" {
				req.Header.Set("MCP-Protocol-Version", version)
			}
			if resp, err := h.opts.Client.Do(req); err == nil {
				resp.Body.Close()
			}
		}
	}
	return nil
}
