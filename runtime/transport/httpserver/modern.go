package httpserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/luagent/luagent/runtime/jsonrpc"
	"github.com/luagent/luagent/runtime/jsonscan"
	"github.com/luagent/luagent/runtime/mcp"
)

// A 2026-07-28 POST: one request served on its own, its headers checked
// against the body first.

func (h *Handler) postModern(w http.ResponseWriter, r *http.Request, m *jsonrpc.Message, meta []byte, version string) {
	if m.Method == "" {
		writeError(w, http.StatusBadRequest, m.ID, jsonrpc.CodeInvalidRequest, "a 2026-07-28 client sends requests only, never responses", nil)
		return
	}
	if m.ID.IsZero() {
		// No client notifications are defined over 2026-07-28 HTTP.
		w.WriteHeader(http.StatusAccepted)
		return
	}
	metaVersion := jsonscan.Member(meta, mcp.MetaProtocolVersion)
	if metaVersion != nil && jsonscan.Member(meta, mcp.MetaClientCapabilities) != nil {
		// With the envelope complete, the headers must agree with the body
		// (a missing key is the server's -32602, answered below).
		if msg := headerMismatch(h.srvs[0], r, m, metaVersion, version); msg != "" {
			writeError(w, http.StatusBadRequest, m.ID, mcp.CodeHeaderMismatch, msg, nil)
			return
		}
	}
	ps := newPostStream(w, r, m.ID, true, h.limits.WriteTimeout)
	listen := m.Method == "subscriptions/listen"
	worker := h.idlest()
	if strings.HasPrefix(m.Method, "tasks/") {
		worker = h.taskWorker(m.Params, worker)
	} else if len(h.srvs) > 1 && jsonscan.Member(m.Params, "requestState") != nil {
		worker = h.parkWorker(m.Params, worker)
	}
	if !listen { // an idle stream is no load
		h.busy[worker].Add(1)
		defer h.busy[worker].Add(-1)
	}
	// The message is delivered on this goroutine (no reader goroutine per
	// POST); what the server sends back is queued on ps and written here.
	sess := h.srvs[worker].Open(ps)
	defer ps.close()
	defer sess.Close() // an unanswered request is cancelled: its stream closed
	// The handler may run on this goroutine inside Deliver (Request.Inline):
	// a client that goes away meanwhile cancels it all the same.
	stop := context.AfterFunc(r.Context(), sess.Close)
	defer stop()
	sess.Deliver(m)
	var drain <-chan struct{}
	if listen {
		drain = h.drain.Done() // a listen stream never ends by itself
	}
	ps.pump(h.opts.KeepAlive, r.Context().Done(), h.ctx.Done(), drain)
}

// headerMismatch compares the 2026-07-28 request headers with the body.
func headerMismatch(srv *mcp.Server, r *http.Request, m *jsonrpc.Message, metaVersion []byte, version string) string {
	var mv string
	json.Unmarshal(metaVersion, &mv)
	if version == "" {
		return "missing " + hdrVersion + " header (it must equal _meta " + mcp.MetaProtocolVersion + ", " + mv + ")"
	}
	if version != mv {
		return hdrVersion + " header " + version + " does not match _meta " + mcp.MetaProtocolVersion + " " + mv
	}
	method, ok := r.Header[http.CanonicalHeaderKey(hdrMethod)]
	if !ok {
		return "missing " + hdrMethod + " header (it must equal the body's method, " + m.Method + ")"
	}
	if got := decodeHeader(method[0]); got != m.Method {
		return hdrMethod + " header " + got + " does not match the body's method " + m.Method
	}
	var key string
	switch m.Method {
	case "tools/call", "prompts/get":
		key = "name"
	case "resources/read":
		key = "uri"
	case "tasks/get", "tasks/update", "tasks/cancel": // routed by task (the tasks extension)
		key = "taskId"
	default:
		return ""
	}
	want := ""
	if raw := jsonscan.Member(m.Params, key); raw != nil {
		json.Unmarshal(raw, &want)
	}
	name, ok := r.Header[http.CanonicalHeaderKey(hdrName)]
	if !ok {
		return "missing " + hdrName + " header (it must equal params." + key + ", " + want + ")"
	}
	if got := decodeHeader(name[0]); got != want {
		return hdrName + " header " + got + " does not match params." + key + " " + want
	}
	if m.Method == "tools/call" {
		return paramMismatch(r, jsonscan.Member(m.Params, "arguments"), srv.ParamHeaders(want))
	}
	return ""
}

// paramMismatch checks the Mcp-Param-* headers of a tool whose arguments
// are mirrored (x-mcp-header): each argument present must come with its
// header, equal after decoding (integers compared as numbers).
func paramMismatch(r *http.Request, args []byte, headers map[string]string) string {
	for hname, arg := range headers {
		h := "Mcp-Param-" + hname
		vals := r.Header.Values(h)
		raw := jsonscan.Member(args, arg)
		if raw == nil || string(raw) == "null" {
			continue // nothing to mirror; a header sent anyway is ignored
		}
		if len(vals) == 0 {
			return "missing " + h + " header: argument " + arg + " is sent in the body, so it must be mirrored"
		}
		got := decodeHeader(vals[0])
		var want string
		switch raw[0] {
		case '"':
			json.Unmarshal(raw, &want)
		case 't', 'f':
			want = string(raw)
		default:
			var a, b json.Number
			if json.Unmarshal(raw, &a) == nil && json.Unmarshal([]byte(got), &b) == nil && a.String() != "" {
				af, e1 := a.Float64()
				bf, e2 := b.Float64()
				if e1 == nil && e2 == nil && af == bf {
					continue
				}
			}
			return h + " header " + jsonQuote(got) + " does not match argument " + arg + " " + string(raw)
		}
		if got != want {
			return h + " header " + jsonQuote(got) + " does not match argument " + arg
		}
	}
	return ""
}

// jsonQuote quotes a header value as JSON does (the argument beside it is
// JSON), so the two compare by eye in the error.
func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// decodeHeader trims optional whitespace and decodes the =?base64?…?=
// sentinel form (a value with only one half of the sentinel is literal).
func decodeHeader(v string) string {
	v = strings.Trim(v, " \t")
	if strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?=") && len(v) >= len("=?base64??=") {
		if b, err := base64.StdEncoding.DecodeString(v[len("=?base64?") : len(v)-2]); err == nil {
			return string(b)
		}
		return "\x00invalid base64"
	}
	return v
}
