package llm

import (
	"context"
	"errors"

	"github.com/luagent/luagent/runtime/errs"
)

// WithFallback returns a model that asks models[0], and when it fails in
// a way another model may not (its retries spent on rate limits or
// server errors, its endpoint down, or the request longer than its
// context window) asks the next with the same request, and so on. A
// failure after output began (errs.Incomplete: it was shown) and the
// request's own faults (auth, bad_request other than context length,
// cancelled, timeout) end the call as they are. The Response of a
// fallback names it (Response.Model); each move is told to the observer
// of ctx (WithObserver) as a NoticeFallback. Its Name is the first
// model's. With one model it returns that model.
func WithFallback(models ...Model) Model {
	if len(models) == 1 {
		return models[0]
	}
	return &fallback{models: models}
}

type fallback struct{ models []Model }

func (f *fallback) Name() string { return f.models[0].Name() }

// FallsBack says whether a model's error moves a WithFallback call to
// the next model.
func FallsBack(err error) bool {
	switch errs.KindOf(err) {
	case errs.RateLimit, errs.Server, errs.Closed, errs.ContextLength:
		return true
	}
	return false
}

func (f *fallback) Stream(ctx context.Context, req *Request, on func(Event)) (*Response, error) {
	for i, m := range f.models {
		r := req
		if i > 0 && req.Model != "" {
			// Request.Model names the first model's provider model; the
			// next asks its own.
			c := *req
			c.Model = ""
			r = &c
		}
		resp, err := m.Stream(ctx, r, on)
		if err == nil {
			if i > 0 && resp.Model == "" {
				resp.Model = m.Name()
			}
			return resp, nil
		}
		if i == len(f.models)-1 || !FallsBack(err) || ctx.Err() != nil {
			return resp, err
		}
		var e *errs.Error
		msg := err.Error()
		if errors.As(err, &e) {
			msg = e.Msg
		}
		observe(ctx, Notice{Type: NoticeFallback, Model: m.Name(), Kind: errs.KindOf(err), Status: statusOf(msg), Message: msg, To: f.models[i+1].Name()})
	}
	panic("unreachable")
}

// statusOf reads the HTTP status an error's message begins with
// ("529: Overloaded", "429 Too Many Requests: ..."), 0 when none.
func statusOf(msg string) int {
	if len(msg) >= 4 && (msg[3] == ' ' || msg[3] == ':') {
		n := 0
		for _, c := range msg[:3] {
			if c < '0' || c > '9' {
				return 0
			}
			n = n*10 + int(c-'0')
		}
		return n
	}
	return 0
}
