package mcp

import (
	"sync"
	"time"
)

// deadlines stops handlers that run past the handler timeout, with one
// timer for the whole server rather than one per request.
//
// Every request gets the same timeout, so requests expire in the order
// they arrived: a list in arrival order, and a timer set for its head,
// suffice. The timer is set again only when it fires (or when the list was
// empty and unarmed), not per request: arming a runtime timer per request
// woke the network poller's thread each time (a futex wake-up, a quarter
// of a small stdio server's CPU).
type deadlines struct {
	timeout time.Duration
	expire  func(*Request) // answers a request that ran out of time

	mu         sync.Mutex
	head, tail *Request
	timer      *time.Timer
	armed      bool // the timer is set to fire
	stopped    bool // the server closed: the timer is never set again
}

// add starts r's time.
func (d *deadlines) add(r *Request) {
	r.deadline = time.Now().Add(d.timeout)
	d.mu.Lock()
	r.dlPrev, r.dlNext, r.dlLinked = d.tail, nil, true
	if d.tail != nil {
		d.tail.dlNext = r
	} else {
		d.head = r
	}
	d.tail = r
	if !d.armed && !d.stopped {
		d.arm(d.timeout)
	}
	d.mu.Unlock()
}

// remove forgets r (answered or silenced); the timer stays as it is.
func (d *deadlines) remove(r *Request) {
	d.mu.Lock()
	if r.dlLinked {
		d.unlink(r)
	}
	d.mu.Unlock()
}

func (d *deadlines) unlink(r *Request) {
	if r.dlPrev != nil {
		r.dlPrev.dlNext = r.dlNext
	} else {
		d.head = r.dlNext
	}
	if r.dlNext != nil {
		r.dlNext.dlPrev = r.dlPrev
	} else {
		d.tail = r.dlPrev
	}
	r.dlPrev, r.dlNext, r.dlLinked = nil, nil, false
}

// arm sets the timer to fire after wait; d.mu is held.
func (d *deadlines) arm(wait time.Duration) {
	d.armed = true
	if d.timer == nil {
		d.timer = time.AfterFunc(wait, d.fire)
		return
	}
	d.timer.Reset(wait)
}

// fire expires the requests whose time is up and sets the timer for the
// next one.
func (d *deadlines) fire() {
	now := time.Now()
	var expired []*Request
	d.mu.Lock()
	for r := d.head; r != nil && !r.deadline.After(now); r = d.head {
		d.unlink(r)
		expired = append(expired, r)
	}
	d.armed = false
	if d.head != nil && !d.stopped {
		d.arm(d.head.deadline.Sub(now))
	}
	d.mu.Unlock()
	for _, r := range expired {
		d.expire(r)
	}
}

// stop stops the timer (the server is closing).
func (d *deadlines) stop() {
	d.mu.Lock()
	if d.timer != nil {
		d.timer.Stop()
	}
	d.stopped, d.armed = true, false
	d.mu.Unlock()
}
