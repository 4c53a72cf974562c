package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/luagent/luagent/runtime/errs"
)

// maxErrorBody bounds the error body kept for the message.
const maxErrorBody = 64 << 10

// retryAfter reads retry-after-ms, then retry-after (seconds or a date):
// a wait of zero or more (a negative one is 0, a huge one the longest
// Duration), or none when neither is there or readable.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if v := h.Get("retry-after-ms"); v != "" {
		if d, ok := waitOf(v, time.Millisecond); ok {
			return d, true
		}
	}
	if v := h.Get("retry-after"); v != "" {
		if d, ok := waitOf(v, time.Second); ok {
			return d, true
		}
		if t, err := http.ParseTime(v); err == nil {
			return max(t.Sub(now), 0), true
		}
	}
	return 0, false
}

// waitOf reads a number of units.
func waitOf(v string, unit time.Duration) (time.Duration, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	switch {
	case err != nil && !errors.Is(err, strconv.ErrRange) || math.IsNaN(f):
		return 0, false
	case f <= 0:
		return 0, true
	case f*float64(unit) >= math.MaxInt64:
		return math.MaxInt64, true
	}
	return time.Duration(f * float64(unit)), true
}

// kindOfStatus types an HTTP error status.
func kindOfStatus(status int) errs.Kind {
	switch {
	case status == 401 || status == 403:
		return errs.Auth
	case status == 429:
		return errs.RateLimit
	case status == 408:
		return errs.Timeout
	case status >= 500:
		return errs.Server
	}
	return errs.BadRequest
}

// kindOfType types a provider's error type ("rate_limit_error",
// "invalid_request_error", ...), as sent in bodies and stream events.
func kindOfType(t string) errs.Kind {
	switch t {
	case "authentication_error", "permission_error", "invalid_api_key", "insufficient_quota_error":
		return errs.Auth
	case "rate_limit_error", "rate_limit_exceeded", "tokens", "requests":
		return errs.RateLimit
	case "invalid_request_error", "not_found_error", "request_too_large", "invalid_request":
		return errs.BadRequest
	}
	return errs.Server
}

// contextTooLong says a provider's error is a prompt longer than the
// model's window: Anthropic's 400 "prompt is too long: N tokens > M
// maximum", OpenAI's code "context_length_exceeded", and what the
// compatible servers say (vLLM's "maximum context length", llama.cpp's
// "exceed_context_size_error").
func contextTooLong(msg, typ, code string) bool {
	switch typ {
	case "context_length_exceeded", "exceed_context_size_error", "model_context_window_exceeded":
		return true
	}
	switch code {
	case "context_length_exceeded", "exceed_context_size_error", "model_context_window_exceeded":
		return true
	}
	for _, s := range []string{"prompt is too long", "maximum context length", "context length exceeded",
		"context_length_exceeded", "exceeds the context window", "exceeds the available context size"} {
		if containsFold(msg, s) {
			return true
		}
	}
	return false
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), sub)
}

// providerError is the message of an error body (error.message in both
// APIs, error as a string (some compatible servers), message, detail, or
// the body's first line), its type, and its code apart (OpenAI sends type
// "invalid_request_error" and code "context_length_exceeded").
func providerError(body []byte) (msg, typ, code string) {
	var b struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  string          `json:"detail"`
	}
	if json.Unmarshal(body, &b) == nil {
		var e struct{ Message, Type, Code string }
		var s string
		switch {
		case json.Unmarshal(b.Error, &e) == nil && e.Message != "":
			if e.Type == "" {
				e.Type = e.Code
			}
			return e.Message, e.Type, e.Code
		case json.Unmarshal(b.Error, &s) == nil && s != "":
			return s, "", ""
		case b.Message != "":
			return b.Message, "", ""
		case b.Detail != "":
			return b.Detail, "", ""
		}
	}
	line, _, _ := bytes.Cut(bytes.TrimSpace(body), []byte("\n"))
	return string(line), "", ""
}

// failure turns whatever a call ended with into one typed line naming
// the model: the context's end first, then an error already typed (an
// HTTP status, a stream error event, a stream cut short), and any other
// error is a read that failed after the answer began. The key is
// scrubbed from the text whatever its origin.
func (m *wireModel) failure(ctx context.Context, err error) error {
	var e *errs.Error
	var ne net.Error
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded):
		e = errs.New(errs.Timeout, m.name, "no answer before the deadline")
	case ctx.Err() != nil || errors.Is(err, context.Canceled):
		e = errs.New(errs.Cancelled, m.name, "cancelled")
	case errors.As(err, &e):
		e = &errs.Error{Kind: e.Kind, Op: m.name, Msg: e.Msg}
	case errors.As(err, &ne) && ne.Timeout():
		// the HTTP client's own timeout (Config.HTTPClient)
		e = errs.New(errs.Timeout, m.name, "no answer in time: "+err.Error())
	default:
		e = errs.New(errs.Server, m.name, "the answer broke off: "+err.Error())
	}
	e.Msg = m.scrub(e.Msg)
	return e
}

// scrub makes msg one line and removes the key from it.
func (m *wireModel) scrub(msg string) string {
	if m.key != "" {
		msg = strings.ReplaceAll(msg, m.key, "[key]")
	}
	msg = strings.Join(strings.Fields(msg), " ")
	if len(msg) > 500 {
		msg = msg[:500] + "…"
	}
	return msg
}

// streamCut is the error of a stream that ended before its end event.
func streamCut(what string) error {
	return errs.New(errs.Server, "", "the stream ended before "+what)
}

// streamError types an error a provider sent inside a 200 stream
// ({"error": {"message", "type"}} in both APIs).
func streamError(data []byte) error {
	msg, typ, code := providerError(data)
	if msg == "" {
		msg = "the stream reported an error"
	}
	k := kindOfType(typ)
	if contextTooLong(msg, typ, code) {
		k = errs.ContextLength
	}
	return errs.New(k, "", msg)
}

// httpError types an HTTP error status with the provider's message: a
// prompt longer than the model's window is errs.ContextLength.
func (m *wireModel) httpError(status int, body []byte) *errs.Error {
	msg, typ, code := providerError(body)
	text := strconv.Itoa(status)
	if st := http.StatusText(status); st != "" {
		text += " " + st
	}
	if msg != "" {
		text += ": " + msg
	}
	k := kindOfStatus(status)
	if (status == 400 || status == 413 || status == 422) && contextTooLong(msg, typ, code) {
		k = errs.ContextLength
		text += " (the conversation is longer than " + m.name + "'s context window)"
	}
	if k == errs.Auth && m.keyVar != "" {
		text += " (check " + m.keyVar + ")"
	}
	return errs.New(k, m.name, m.scrub(text))
}

// ctxError is the typed error of an ended context.
func ctxError(op string, err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return errs.New(errs.Timeout, op, "no answer before the deadline")
	}
	return errs.New(errs.Cancelled, op, "cancelled")
}
