package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/luagent/luagent/runtime/errs"
)

// maxErrorBody bounds the error body kept for the message.
const maxErrorBody = 64 << 10

// retryAfter reads retry-after-ms, then retry-after (seconds or a date).
func retryAfter(h http.Header) (time.Duration, bool) {
	if v := h.Get("retry-after-ms"); v != "" {
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return time.Duration(f * float64(time.Millisecond)), true
		}
	}
	if v := h.Get("retry-after"); v != "" {
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return time.Duration(f * float64(time.Second)), true
		}
		if t, err := http.ParseTime(v); err == nil {
			return time.Until(t), true
		}
	}
	return 0, false
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

// providerMessage is the message of an error body: error.message (both
// APIs), error as a string (some compatible servers), message, detail, or
// the body's first line.
func providerMessage(body []byte) (msg, typ string) {
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
			return e.Message, e.Type
		case json.Unmarshal(b.Error, &s) == nil && s != "":
			return s, ""
		case b.Message != "":
			return b.Message, ""
		case b.Detail != "":
			return b.Detail, ""
		}
	}
	line, _, _ := bytes.Cut(bytes.TrimSpace(body), []byte("\n"))
	return string(line), ""
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
		e = errs.New(errs.Server, m.name, "the answer broke off: "+err.Error()+": it is incomplete")
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
	return errs.New(errs.Server, "", "the stream ended before "+what+": the answer is incomplete")
}

// streamError types an error a provider sent inside a 200 stream
// ({"error": {"message", "type"}} in both APIs).
func streamError(data []byte) error {
	msg, typ := providerMessage(data)
	if msg == "" {
		msg = "the stream reported an error"
	}
	return errs.New(kindOfType(typ), "", msg)
}

// httpError types an HTTP error status with the provider's message.
// retries is how many retries were made; asked is the retry-after the
// server sent when it exceeded maxWait (0 otherwise).
func (m *wireModel) httpError(status int, body []byte, retries int, asked time.Duration) error {
	msg, _ := providerMessage(body)
	text := strconv.Itoa(status) + " " + http.StatusText(status)
	if msg != "" {
		text += ": " + msg
	}
	k := kindOfStatus(status)
	if k == errs.RateLimit || k == errs.Server {
		if asked > 0 {
			text += fmt.Sprintf(" (the server asked to wait %s, more than the %s allowed)", asked.Round(time.Second), m.maxWait)
		} else if retries > 0 {
			text += fmt.Sprintf(" (after %d retries)", retries)
		}
	}
	if k == errs.Auth && m.keyVar != "" {
		text += " (check " + m.keyVar + ")"
	}
	return errs.New(k, m.name, text)
}

// ctxError is the typed error of an ended context.
func ctxError(op string, err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return errs.New(errs.Timeout, op, "no answer before the deadline")
	}
	return errs.New(errs.Cancelled, op, "cancelled")
}
