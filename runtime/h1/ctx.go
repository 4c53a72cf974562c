package h1

import (
	"context"
	"slices"
	"sync"
	"time"
)

// reqCtx is a request's context. It ends when the handler returns, the
// client goes away while it runs, or the server closes. Its Done channel
// is made on first use, and only then is the connection watched for the
// client going away: a handler that answers without waiting on its
// context (most do, here) pays for neither the channel nor the watch.
type reqCtx struct {
	c      *conn
	mu     sync.Mutex
	done   chan struct{}
	err    error
	afters []*func() // context.AfterFunc and WithCancel children
}

func (x *reqCtx) Deadline() (time.Time, bool) { return time.Time{}, false }
func (x *reqCtx) Value(any) any               { return nil }
func (x *reqCtx) String() string              { return "h1.requestContext" }

func (x *reqCtx) Err() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.err
}

func (x *reqCtx) Done() <-chan struct{} {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.done == nil {
		x.done = make(chan struct{})
		if x.err != nil {
			close(x.done)
		} else {
			x.c.wantWatch()
		}
	}
	return x.done
}

// AfterFunc makes context.AfterFunc and context.WithCancel on a request's
// context register here rather than start a goroutine each to wait on
// Done (the context package's afterFuncer).
func (x *reqCtx) AfterFunc(f func()) (stop func() bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.err != nil {
		go f()
		return func() bool { return false }
	}
	if x.done == nil {
		x.c.wantWatch()
	}
	p := &f
	x.afters = append(x.afters, p)
	return func() bool {
		x.mu.Lock()
		defer x.mu.Unlock()
		i := slices.Index(x.afters, p)
		if i < 0 {
			return false
		}
		x.afters = slices.Delete(x.afters, i, i+1)
		return true
	}
}

func (x *reqCtx) cancel() {
	x.mu.Lock()
	if x.err != nil {
		x.mu.Unlock()
		return
	}
	x.err = context.Canceled
	if x.done != nil {
		close(x.done)
	}
	afters := x.afters
	x.afters = nil
	x.mu.Unlock()
	for _, f := range afters {
		go (*f)()
	}
}
