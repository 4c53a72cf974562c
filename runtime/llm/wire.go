package llm

import (
	"bytes"
	"context"
	"encoding/json"
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

// Backoff between retries when the server sends no retry-after: 0.5 s,
// 1 s, 2 s, ... up to 8 s (and never over MaxRetryWait), each less a
// random quarter so that clients refused together do not return together.
const (
	backoffBase = 500 * time.Millisecond
	backoffMax  = 8 * time.Second
)

// wireModel is what the two providers share: the endpoint, the key and
// the retry policy.
type wireModel struct {
	name    string // the spec
	model   string // the provider's model name
	base    string // the base URL, without a trailing "/"
	key     string
	keyVar  string // the variable the key came from (for messages)
	retries int
	maxWait time.Duration
	client  *http.Client
	// header sets the provider's headers (auth, version) on a request.
	header func(http.Header)
	// wait sleeps d or until ctx ends (nil: sleepCtx); tests may shorten it.
	wait func(ctx context.Context, d time.Duration) error
}

func newWireModel(spec string, mc ModelConfig, cfg *Config, base, key, keyVar string) wireModel {
	// The key goes only to the provider's origin, never where it redirects.
	c := origin.Client(cfg.HTTPClient, "the model provider "+spec)
	return wireModel{
		name: spec, model: mc.Model, base: strings.TrimSuffix(base, "/"), key: key, keyVar: keyVar,
		retries: cfg.retries(), maxWait: cfg.retryWait(), client: c, wait: sleepCtx,
	}
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
// none.
func (m *wireModel) backoff(n int) time.Duration {
	d := min(backoffBase<<min(n, 8), backoffMax, m.maxWait)
	return d - time.Duration(rand.Int64N(int64(d)/4+1))
}

// retryable says a status is worth another try: timeouts, conflicts,
// rate limits and the server's failures (Anthropic's 529 "overloaded"
// among them), as the official SDKs retry.
func retryable(status int) bool {
	return status == 408 || status == 409 || status == 429 || status >= 500
}

// post sends body to path and returns the response of a status under
// 400, retrying failed connections and retryable statuses up to
// m.retries times: after the server's retry-after-ms or retry-after when
// it sends one (a wait over maxWait is not retried: the error says how
// long it asked for), else after backoff. Errors are typed; the caller
// closes the body.
func (m *wireModel) post(ctx context.Context, path string, body any, stream bool) (*http.Response, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, errs.Errorf(errs.Invalid, m.name, "the request: %v", err)
	}
	accept := "application/json"
	if stream {
		accept = "text/event-stream"
	}
	for n := 0; ; n++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.base+path, bytes.NewReader(b))
		if err != nil {
			return nil, errs.Errorf(errs.Invalid, m.name, "the base URL %s: %v", secret.URL(m.base), secret.URLError(err))
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", accept)
		m.header(req.Header)
		res, err := m.client.Do(req)
		var wait time.Duration
		switch {
		case err != nil:
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if e, ok := origin.Refused(err); ok {
				return nil, e // every retry would be refused alike
			}
			if n >= m.retries {
				return nil, errs.New(errs.Server, m.name, "cannot reach "+secret.URL(m.base)+": "+secret.URLError(err).Error())
			}
			wait = m.backoff(n)
		case res.StatusCode < 400:
			return res, nil
		default:
			errBody, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
			res.Body.Close()
			asked, ok := retryAfter(res.Header)
			if !retryable(res.StatusCode) || n >= m.retries {
				return nil, m.httpError(res.StatusCode, errBody, n, 0)
			}
			if ok && asked > m.maxWait {
				return nil, m.httpError(res.StatusCode, errBody, n, asked)
			}
			wait = asked
			if !ok {
				wait = m.backoff(n)
			}
		}
		if err := m.wait(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// exchange posts body and reads the answer with read (the whole answer,
// or the stream): every error, typed, names the model; a context ended
// while reading is the context's error, never a shorter answer.
func (m *wireModel) exchange(ctx context.Context, path string, body any, stream bool, read func(io.Reader) (*Response, error)) (*Response, error) {
	res, err := m.post(ctx, path, body, stream)
	if err != nil {
		return nil, m.failure(ctx, err)
	}
	defer res.Body.Close()
	resp, err := read(res.Body)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return nil, m.failure(ctx, err)
	}
	return resp, nil
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
