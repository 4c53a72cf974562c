package hub

import "sync"

// Subscribe calls fn with every later Event, in order, on a goroutine of
// its own: a slow fn delays only its own events, never the hub. cancel
// stops the deliveries (events queued but not yet delivered are dropped).
func (h *Hub) Subscribe(fn func(Event)) (cancel func()) {
	sub := &subscriber{fn: fn, wake: make(chan struct{}, 1), done: make(chan struct{})}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return func() {}
	}
	h.subs[sub] = true
	h.mu.Unlock()
	go sub.run()
	return func() {
		h.mu.Lock()
		delete(h.subs, sub)
		h.mu.Unlock()
		sub.cancel()
	}
}

// emitLocked queues ev for every subscriber (never blocks).
func (h *Hub) emitLocked(ev Event) {
	for sub := range h.subs {
		sub.push(ev)
	}
}

// subscriber is an unbounded queue drained by its own goroutine.
type subscriber struct {
	fn   func(Event)
	mu   sync.Mutex
	q    []Event
	last bool // end after the queue drains
	wake chan struct{}
	done chan struct{}
	once sync.Once
}

func (s *subscriber) push(ev Event) {
	s.mu.Lock()
	s.q = append(s.q, ev)
	s.mu.Unlock()
	s.signal()
}

func (s *subscriber) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// end delivers what is queued, then stops.
func (s *subscriber) end() {
	s.mu.Lock()
	s.last = true
	s.mu.Unlock()
	s.signal()
}

func (s *subscriber) cancel() { s.once.Do(func() { close(s.done) }) }

func (s *subscriber) run() {
	for {
		select {
		case <-s.done:
			return
		case <-s.wake:
		}
		for {
			s.mu.Lock()
			if len(s.q) == 0 {
				last := s.last
				s.mu.Unlock()
				if last {
					return
				}
				break
			}
			ev := s.q[0]
			s.q = s.q[1:]
			s.mu.Unlock()
			select {
			case <-s.done:
				return
			default:
			}
			s.fn(ev)
		}
	}
}
