package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/luagent/luagent/runtime/errs"
)

// maxErrorBody bounds the error body kept for the message.
const maxErrorBody = 64 << 10

// recorder is a per-call SDK middleware: it keeps the last error
// response's status and body (so errors are typed from the wire, not from
// the SDK's text) and refuses a retry whose retry-after exceeds the bound.
type recorder struct {
	maxWait time.Duration

	mu     sync.Mutex
	status int
	body   []byte
	asked  time.Duration // the retry-after of the last 429/5xx, if any
	// answered says a response under 400 arrived: a later failure broke
	// its body (a stream cut), not the connection.
	answered bool
}

func (r *recorder) middleware(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	res, err := next(req)
	if err != nil || res == nil {
		return res, err
	}
	if res.StatusCode < 400 {
		r.mu.Lock()
		r.answered = true
		r.mu.Unlock()
		return res, err
	}
	body, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
	res.Body.Close()
	res.Body = io.NopCloser(bytes.NewReader(body))
	wait, ok := retryAfter(res.Header)
	if ok && wait > r.maxWait {
		// The SDKs honour x-should-retry over the status code.
		res.Header.Set("x-should-retry", "false")
	}
	r.mu.Lock()
	r.status, r.body, r.asked = res.StatusCode, body, 0
	if ok {
		r.asked = wait
	}
	r.mu.Unlock()
	return res, nil
}

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

// failure turns whatever a call ended with into one typed line: the
// context's end first, then the recorded HTTP error, then the rest.
// key is scrubbed from the text whatever its origin.
func (m *sdkModel) failure(ctx context.Context, rec *recorder, err error) error {
	var e *errs.Error
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded):
		e = errs.New(errs.Timeout, m.name, "no answer before the deadline")
	case ctx.Err() != nil || errors.Is(err, context.Canceled):
		e = errs.New(errs.Cancelled, m.name, "cancelled")
	case errors.As(err, &e):
		// already typed (a stream cut, a stream error event)
		e = &errs.Error{Kind: e.Kind, Op: m.name, Msg: e.Msg}
	default:
		rec.mu.Lock()
		status, body, asked, answered := rec.status, rec.body, rec.asked, rec.answered
		rec.mu.Unlock()
		if status >= 400 {
			msg, _ := providerMessage(body)
			text := strconv.Itoa(status) + " " + http.StatusText(status)
			if msg != "" {
				text += ": " + msg
			}
			k := kindOfStatus(status)
			if k == errs.RateLimit || k == errs.Server {
				if asked > rec.maxWait {
					text += fmt.Sprintf(" (the server asked to wait %s, more than the %s allowed)", asked.Round(time.Second), rec.maxWait)
				} else if m.retries > 0 {
					text += fmt.Sprintf(" (after %d retries)", m.retries)
				}
			}
			if k == errs.Auth && m.keyVar != "" {
				text += " (check " + m.keyVar + ")"
			}
			e = errs.New(k, m.name, text)
		} else if answered {
			e = errs.New(errs.Server, m.name, "the answer broke off: "+err.Error()+": it is incomplete")
		} else {
			e = errs.New(errs.Server, m.name, "cannot reach "+m.base+": "+err.Error())
		}
	}
	e.Msg = m.scrub(e.Msg)
	return e
}

// scrub makes msg one line and removes the key from it.
func (m *sdkModel) scrub(msg string) string {
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

// sdkModel is what the two SDK providers share.
type sdkModel struct {
	name    string // the spec
	model   string // the provider's model name
	base    string
	key     string
	keyVar  string // the variable the key came from (for messages)
	retries int
	maxWait time.Duration
}

func (m *sdkModel) Name() string { return m.name }

func (m *sdkModel) recorder() *recorder { return &recorder{maxWait: m.maxWait} }

// ctxError is the typed error of an ended context.
func ctxError(op string, err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return errs.New(errs.Timeout, op, "no answer before the deadline")
	}
	return errs.New(errs.Cancelled, op, "cancelled")
}
