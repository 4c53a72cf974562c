package approval

import (
	"sync"
	"time"
)

// A tool call's duration (in events, transcripts and traces) is the
// call's own time, not the time a person spent answering a question it
// raised: a server's elicitation form, or the approval of a server's
// sampling request, asked while its tool call runs. A person is one per
// process (one terminal), so the questions asked are marked here, by the
// server that raised them, and each call running on that server takes
// the overlap off its time. A call's own approval comes before StartCall
// and never counts.

var clock = struct {
	mu    sync.Mutex
	calls map[*Stopwatch]struct{}
}{calls: map[*Stopwatch]struct{}{}}

// Stopwatch measures one running call.
type Stopwatch struct {
	server string
	start  time.Time
	waited time.Duration // guarded by clock.mu
}

// StartCall starts measuring a call to a tool of server ("" for a tool no
// server's question can belong to: a local or meta tool).
func StartCall(server string) *Stopwatch {
	sw := &Stopwatch{server: server, start: time.Now()}
	if server != "" {
		clock.mu.Lock()
		clock.calls[sw] = struct{}{}
		clock.mu.Unlock()
	}
	return sw
}

// Stop ends the measure and returns the call's time without the person's.
func (sw *Stopwatch) Stop() time.Duration {
	d := time.Since(sw.start)
	clock.mu.Lock()
	delete(clock.calls, sw)
	d -= sw.waited
	clock.mu.Unlock()
	return max(d, 0)
}

// Asking marks a question to a person on behalf of server (an elicitation,
// a sampling approval) until the returned function is called; the calls
// running on that server meanwhile do not count the wait.
func Asking(server string) (done func()) {
	start := time.Now()
	return func() {
		end := time.Now()
		clock.mu.Lock()
		defer clock.mu.Unlock()
		for sw := range clock.calls {
			if sw.server != server {
				continue
			}
			from := start
			if sw.start.After(from) {
				from = sw.start
			}
			if w := end.Sub(from); w > 0 {
				sw.waited += w
			}
		}
	}
}
