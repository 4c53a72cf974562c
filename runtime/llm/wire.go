package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/origin"
	"github.com/luagent/luagent/runtime/secret"
)

// The two providers speak their APIs on net/http directly: the official
// SDKs cost `luagent serve` 42–44% of its cold start just by being
// linked (scripts/bench/BENCHMARKS.md, "runtime/llm without the SDKs").

// Backoff between retries when the server sends no retry-after:
// exponential with full jitter, a random wait in [0, 0.5 s], [0, 1 s],
// [0, 2 s], ... up to [0, 16 s] (and never over MaxRetryWait), so that
// clients refused together do not return together.
const (
	backoffBase = 500 * time.Millisecond
	backoffMax  = 16 * time.Second
	// unreachableRetries bounds the retries of tries that got no answer
	// at all (connection refused, no such host), among the others: the
	// endpoint is down, and a fallback model does better than a wait.
	unreachableRetries = 2
)

// wireModel is what the two providers share: the endpoint, the key and
// the retry policy.
type wireModel struct {
	name     string // the spec
	model    string // the provider's model name
	base     string // the base URL, without a trailing "/"
	key      string
	keyVar   string // the variable the key came from (for messages)
	retries  int
	maxWait  time.Duration
	maxTotal time.Duration
	client   *http.Client
	// header sets the provider's headers (auth, version) on a request.
	header func(http.Header)
	// wait sleeps d or until ctx ends; now reads the clock (Config.Sleep,
	// Config.Now); jitter picks in [0, n] (tests may fix it).
	wait   func(ctx context.Context, d time.Duration) error
	now    func() time.Time
	jitter func(n int64) int64
}

func newWireModel(spec string, mc ModelConfig, cfg *Config, base, key, keyVar string) wireModel {
	// The key goes only to the provider's origin, never where it redirects.
	c := origin.Client(cfg.HTTPClient, "the model provider "+spec)
	m := wireModel{
		name: spec, model: mc.Model, base: strings.TrimSuffix(base, "/"), key: key, keyVar: keyVar,
		retries: cfg.retries(), maxWait: cfg.retryWait(), maxTotal: cfg.retryTime(), client: c,
		wait: cfg.Sleep, now: cfg.Now, jitter: func(n int64) int64 { return rand.Int64N(n + 1) },
	}
	if m.wait == nil {
		m.wait = sleepCtx
	}
	if m.now == nil {
		m.now = time.Now
	}
	return m
}

func (m *wireModel) Name() string { return m.name }

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// backoff is the wait before retry n (0-based) when the server asks for
// none: full jitter over the exponential bound.
func (m *wireModel) backoff(n int) time.Duration {
	d := min(backoffBase<<min(n, 8), backoffMax, m.maxWait)
	return time.Duration(m.jitter(int64(d)))
}

// retryable says a status is worth another try: timeouts, conflicts,
// rate limits and the server's failures (Anthropic's 529 "overloaded"
// among them), as the official SDKs retry.
func retryable(status int) bool {
	return status == 408 || status == 409 || status == 429 || status >= 500
}

// attempt is how one try failed: its typed error, and what the retry
// policy needs to know of it.
type attempt struct {
	err         *errs.Error
	status      int           // the HTTP status (0: no answer, or a stream that failed)
	asked       time.Duration // the server's retry-after
	hasAsked    bool
	retry       bool // worth another try
	unreachable bool // no answer at all
}

// send makes one request: the response of a status under 400, or how
// it failed (a final error for the context's end and refused redirects).
func (m *wireModel) send(ctx context.Context, path string, b []byte, stream bool) (*http.Response, *attempt, error) {
	accept := "application/json"
	if stream {
		accept = "text/event-stream"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.base+path, bytes.NewReader(b))
	if err != nil {
		return nil, nil, errs.Errorf(errs.Invalid, m.name, "the base URL %s: %v", secret.URL(m.base), secret.URLError(err))
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	m.header(req.Header)
	res, err := m.client.Do(req)
	switch {
	case err != nil:
		if ctx.Err() != nil {
			return nil, nil, m.failure(ctx, ctx.Err())
		}
		if e, ok := origin.Refused(err); ok {
			return nil, nil, e // every retry would be refused alike
		}
		e := errs.New(errs.Server, m.name, m.scrub("cannot reach "+secret.URL(m.base)+": "+secret.URLError(err).Error()))
		return nil, &attempt{err: e, retry: true, unreachable: true}, nil
	case res.StatusCode < 400:
		return res, nil, nil
	}
	errBody, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
	res.Body.Close()
	e := m.httpError(res.StatusCode, errBody)
	a := &attempt{err: e, status: res.StatusCode, retry: retryable(res.StatusCode) && e.Kind != errs.ContextLength}
	a.asked, a.hasAsked = retryAfter(res.Header, m.now())
	return nil, a, nil
}

// exchange posts body and reads the answer with read (the whole answer,
// or the stream, its events to on), retrying what is worth it: 429,
// 408, 409, 5xx (Anthropic's 529 "overloaded" too), a request that got
// no answer (twice only: unreachableRetries), and a stream that failed
// before any of its output was sent on (an "overloaded_error" event,
// a cut). A retry waits
// the server's retry-after-ms or retry-after, else the backoff; retries
// are bounded by m.retries and, in time, by m.maxTotal: a server asking
// for more than MaxRetryWait or than the time left ends them at once,
// the error saying what it asked. Each retry is told to the observer of
// ctx (WithObserver). A stream that fails after its output began is
// never sent again: it is errs.Incomplete, with the Response of what
// came. Every error, typed, names the model; a context ended is the
// context's error, never a shorter answer.
func (m *wireModel) exchange(ctx context.Context, path string, body any, stream bool, on func(Event), read func(io.Reader, func(Event)) (*Response, error)) (*Response, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, errs.Errorf(errs.Invalid, m.name, "the request: %v", err)
	}
	start, down := m.now(), 0
	for n := 0; ; n++ {
		res, a, err := m.send(ctx, path, b, stream)
		if err != nil {
			return nil, err
		}
		if a == nil {
			var sent partial
			resp, err := read(res.Body, sent.wrap(on))
			res.Body.Close()
			if err == nil {
				err = ctx.Err()
			}
			if err == nil {
				return resp, nil
			}
			if ctx.Err() != nil {
				return nil, m.failure(ctx, err)
			}
			var fe *errs.Error
			errors.As(m.failure(ctx, err), &fe)
			if sent.began {
				return sent.response(), errs.New(errs.Incomplete, m.name, m.scrub(
					"the answer broke off after it began ("+fe.Msg+"): what came is kept, and the request was not sent again"))
			}
			a = &attempt{err: fe, retry: fe.Kind == errs.Server || fe.Kind == errs.RateLimit}
		}
		if a.unreachable {
			down++
		}
		if !a.retry || n >= m.retries || down > unreachableRetries {
			if n > 0 {
				return nil, note(a.err, fmt.Sprintf("after %d retries", n))
			}
			return nil, a.err
		}
		wait := a.asked
		if !a.hasAsked {
			wait = m.backoff(n)
		}
		if a.hasAsked && a.asked > m.maxWait {
			return nil, note(a.err, fmt.Sprintf("the server asked to wait %s, more than the %s allowed", roundWait(a.asked), m.maxWait))
		}
		if left := m.maxTotal - m.now().Sub(start); wait > left {
			if a.hasAsked {
				return nil, note(a.err, fmt.Sprintf("the server asked to wait %s, more than the %s left of the %s given to retries", roundWait(a.asked), roundWait(max(left, 0)), m.maxTotal))
			}
			return nil, note(a.err, fmt.Sprintf("after %d retries: the next would pass the %s given to retries", n, m.maxTotal))
		}
		observe(ctx, Notice{Type: NoticeRetry, Model: m.name, Attempt: n + 1, MaxRetries: m.retries, Wait: wait,
			Status: a.status, Kind: a.err.Kind, Message: a.err.Msg})
		if err := m.wait(ctx, wait); err != nil {
			return nil, m.failure(ctx, err)
		}
	}
}

// note adds a parenthesis to an error's message.
func note(e *errs.Error, s string) error {
	return &errs.Error{Kind: e.Kind, Op: e.Op, Msg: e.Msg + " (" + s + ")", Err: e.Err}
}

// partial is what a stream sent on before it failed.
type partial struct {
	began bool
	text  strings.Builder
}

func (p *partial) wrap(on func(Event)) func(Event) {
	if on == nil {
		return nil
	}
	return func(e Event) {
		p.began = true
		p.text.WriteString(e.Text)
		on(e)
	}
}

// response is the text that came (its tool calls are not kept: they
// may be cut).
func (p *partial) response() *Response {
	resp := &Response{Message: Message{Role: RoleAssistant}}
	if p.text.Len() > 0 {
		resp.Message.Parts = []Part{Text(p.text.String())}
	}
	return resp
}

// decodeJSON reads a whole (not streamed) answer.
func decodeJSON(r io.Reader, v any) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return errs.New(errs.Server, "", "the answer is not the API's JSON: "+err.Error())
	}
	return nil
}
