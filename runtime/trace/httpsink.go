package trace

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"time"
)

// HTTPOptions tune an HTTP sink; zero fields take the defaults.
type HTTPOptions struct {
	Buffer   int           // events kept while the collector is slow or down (10,000)
	Batch    int           // events per POST at most (500)
	Interval time.Duration // how long an event may wait for a batch (1 s)
	Timeout  time.Duration // one POST (5 s)
	// Backoff is the first wait after a failed POST; it doubles up to
	// MaxBackoff (250 ms, 30 s).
	Backoff, MaxBackoff time.Duration
	Client              *http.Client
}

// HTTP posts events as batches of JSON lines (application/x-ndjson) to a
// collector, for --log-http. Emit never waits on the network: events go
// into a bounded buffer that a goroutine drains, and when the buffer is
// full the oldest event is dropped and counted, so a slow or dead
// collector costs memory up to the bound and nothing else. A batch that
// fails goes back to the front of the buffer and is sent again after a
// backoff (delivery is at least once: a POST that times out after the
// collector took it is sent again). The count of dropped events is reported to the collector in a
// trace_dropped event at the head of the next batch that gets through.
type HTTP struct {
	url  string
	opt  HTTPOptions
	mu   sync.Mutex
	buf  []Event // oldest first
	wake chan struct{}
	stop chan struct{}
	done chan struct{}
	// runCtx ends the background POSTs when Close is called, so a hung
	// collector holds Close only as long as Close's own ctx allows.
	runCtx    context.Context
	runCancel context.CancelFunc

	dropped     int64 // dropped since the last report to the collector
	droppedAll  int64
	sent        int64
	failedPosts int64
}

// TraceDropped is the kind of the event that tells the collector how many
// events were dropped (Count) since the previous one.
const TraceDropped Kind = "trace_dropped"

// NewHTTP starts a sink posting to url. Close flushes and stops it.
func NewHTTP(url string, opt HTTPOptions) *HTTP {
	if opt.Buffer <= 0 {
		opt.Buffer = 10000
	}
	if opt.Batch <= 0 {
		opt.Batch = 500
	}
	if opt.Interval <= 0 {
		opt.Interval = time.Second
	}
	if opt.Timeout <= 0 {
		opt.Timeout = 5 * time.Second
	}
	if opt.Backoff <= 0 {
		opt.Backoff = 250 * time.Millisecond
	}
	if opt.MaxBackoff <= 0 {
		opt.MaxBackoff = 30 * time.Second
	}
	if opt.Client == nil {
		opt.Client = &http.Client{Timeout: opt.Timeout}
	}
	h := &HTTP{url: url, opt: opt, wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	h.runCtx, h.runCancel = context.WithCancel(context.Background())
	go h.run()
	return h
}

// Emit queues e; it drops the oldest queued event when the buffer is full.
func (h *HTTP) Emit(e Event) {
	h.mu.Lock()
	if len(h.buf) >= h.opt.Buffer {
		h.buf = h.buf[1:]
		h.dropped++
		h.droppedAll++
	}
	h.buf = append(h.buf, e)
	full := len(h.buf) >= h.opt.Batch
	h.mu.Unlock()
	if full {
		select {
		case h.wake <- struct{}{}:
		default:
		}
	}
}

// HTTPStats are a sink's counters.
type HTTPStats struct {
	Sent, Dropped, FailedPosts int64
	Queued                     int
}

// Stats returns the counters so far.
func (h *HTTP) Stats() HTTPStats {
	h.mu.Lock()
	defer h.mu.Unlock()
	return HTTPStats{Sent: h.sent, Dropped: h.droppedAll, FailedPosts: h.failedPosts, Queued: len(h.buf)}
}

// Close sends what is queued, trying until ctx ends (a dead collector
// must not hold up the program's exit: give ctx a short deadline), then
// stops the sink. It returns the counters at the end.
func (h *HTTP) Close(ctx context.Context) HTTPStats {
	select {
	case <-h.stop:
	default:
		close(h.stop)
	}
	// A POST in flight may finish (cancelling one the collector already
	// took would send its batch twice), as long as ctx allows.
	select {
	case <-h.done:
	case <-ctx.Done():
		h.runCancel()
		<-h.done
	}
	defer h.runCancel()
	for {
		h.mu.Lock()
		empty := len(h.buf) == 0 && h.dropped == 0
		h.mu.Unlock()
		if empty || ctx.Err() != nil {
			break
		}
		if !h.flush(ctx) {
			select {
			case <-ctx.Done():
			case <-time.After(h.opt.Backoff):
			}
		}
	}
	return h.Stats()
}

func (h *HTTP) run() {
	defer close(h.done)
	tick := time.NewTicker(h.opt.Interval)
	defer tick.Stop()
	for {
		select {
		case <-h.stop:
			return
		case <-tick.C:
		case <-h.wake:
		}
		// Send until less than a batch is left; after a failure, try again
		// after a growing wait rather than at the next tick.
		backoff := time.Duration(0)
		for {
			ctx, cancel := context.WithTimeout(h.runCtx, h.opt.Timeout)
			ok := h.flush(ctx)
			cancel()
			if ok {
				backoff = 0
				h.mu.Lock()
				more := len(h.buf) >= h.opt.Batch
				h.mu.Unlock()
				if !more {
					break
				}
				continue
			}
			backoff = min(max(2*backoff, h.opt.Backoff), h.opt.MaxBackoff)
			select {
			case <-h.stop:
				return
			case <-time.After(backoff):
			}
		}
	}
}

// flush posts one batch; false when the POST failed (the batch is queued
// again, in front, as far as the buffer allows).
func (h *HTTP) flush(ctx context.Context) bool {
	h.mu.Lock()
	n := min(len(h.buf), h.opt.Batch)
	batch := append([]Event(nil), h.buf[:n]...)
	h.buf = h.buf[n:]
	dropped := h.dropped
	h.dropped = 0
	h.mu.Unlock()
	if n == 0 && dropped == 0 {
		return true
	}
	var body bytes.Buffer
	if dropped > 0 {
		b, _ := json.Marshal(Event{Time: time.Now(), Kind: TraceDropped, Count: int(dropped)})
		body.Write(b)
		body.WriteByte('\n')
	}
	for _, e := range batch {
		b, err := json.Marshal(e)
		if err != nil {
			continue
		}
		body.Write(b)
		body.WriteByte('\n')
	}
	if h.post(ctx, body.Bytes()) {
		h.mu.Lock()
		h.sent += int64(n)
		h.mu.Unlock()
		return true
	}
	h.mu.Lock()
	h.failedPosts++
	h.dropped += dropped
	// Put the batch back in front; what no longer fits is the oldest, so
	// it goes first.
	room := h.opt.Buffer - len(h.buf)
	if room < len(batch) {
		lost := len(batch) - max(room, 0)
		h.dropped += int64(lost)
		h.droppedAll += int64(lost)
		batch = batch[lost:]
	}
	h.buf = append(batch, h.buf...)
	h.mu.Unlock()
	return false
}

func (h *HTTP) post(ctx context.Context, body []byte) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url, bytes.NewReader(body))
	if err != nil {
		return false
	}
	req.Header.Set("Content-Type", "application/x-ndjson")
	resp, err := h.opt.Client.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode >= 200 && resp.StatusCode < 300
}
