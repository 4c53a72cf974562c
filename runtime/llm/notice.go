package llm

import (
	"context"
	"fmt"
	"time"

	"github.com/luagent/luagent/runtime/errs"
)

// Types of a Notice.
const (
	// NoticeRetry: a request failed in a way worth another try; it is
	// sent again after Wait.
	NoticeRetry = "retry"
	// NoticeFallback: a model gave up (Kind says why); To answers the
	// same request.
	NoticeFallback = "fallback"
)

// Notice tells an observer what a model call is doing while it has not
// answered: a retry coming, or a fallback taking over.
type Notice struct {
	Type  string // NoticeRetry or NoticeFallback
	Model string // the model that failed (its spec)
	// Attempt is the retry's number (1 is the first retry) of at most
	// MaxRetries; Wait is how long until it is sent.
	Attempt    int
	MaxRetries int
	Wait       time.Duration
	// Status is the HTTP status that failed (0: no answer, the endpoint
	// did not answer or a stream failed before its output began).
	Status int
	// Kind is the failure's: rate_limit, server, context_length, ...
	Kind errs.Kind
	// Message is the provider's message or the failure, one line, no key.
	Message string
	// To is the model taking over (NoticeFallback).
	To string
}

// Reason says the failure in a few words: "rate limited (429)",
// "provider overloaded (529)", "endpoint unreachable".
func (n Notice) Reason() string {
	status := ""
	if n.Status > 0 {
		status = fmt.Sprintf(" (%d)", n.Status)
	}
	switch {
	case n.Kind == errs.RateLimit:
		return "rate limited" + status
	case n.Status == 529 || n.Kind == errs.Server && containsFold(n.Message, "overloaded"):
		return "provider overloaded" + status
	case n.Kind == errs.ContextLength:
		return "conversation too long for its context window"
	case n.Status == 0 && n.Kind == errs.Server && containsFold(n.Message, "cannot reach"):
		return "endpoint unreachable"
	case n.Kind == errs.Server:
		return "provider error" + status
	}
	return n.Kind.String() + status
}

// String is the notice as a status line: "↻ provider overloaded (529),
// retry 2/5 in 3.2s", "↪ anthropic:x: rate limited (429): falling back
// to openai:y".
func (n Notice) String() string {
	if n.Type == NoticeFallback {
		return fmt.Sprintf("↪ %s: %s: falling back to %s", n.Model, n.Reason(), n.To)
	}
	return fmt.Sprintf("↻ %s, retry %d/%d in %s", n.Reason(), n.Attempt, n.MaxRetries, roundWait(n.Wait))
}

func roundWait(d time.Duration) time.Duration {
	if d < time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(100 * time.Millisecond)
}

type observerKey struct{}

// WithObserver returns ctx carrying fn: the models a call runs under ctx
// tell fn each retry and fallback (from the goroutine that called
// Stream, before the wait).
func WithObserver(ctx context.Context, fn func(Notice)) context.Context {
	return context.WithValue(ctx, observerKey{}, fn)
}

func observe(ctx context.Context, n Notice) {
	if fn, _ := ctx.Value(observerKey{}).(func(Notice)); fn != nil {
		fn(n)
	}
}
