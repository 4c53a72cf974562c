package trace

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// collector is a local --log-http endpoint: it decodes each POST's JSON
// lines and hands the batch to the test.
type collector struct {
	srv     *httptest.Server
	batches chan []Event
	status  chan int // when not empty, the next POST answers with this status
	hold    chan struct{}
}

func newCollector(t *testing.T) *collector {
	c := &collector{batches: make(chan []Event, 1000), status: make(chan int, 10)}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c.hold != nil {
			select {
			case <-c.hold:
			case <-r.Context().Done():
				return
			}
		}
		if ct := r.Header.Get("Content-Type"); ct != "application/x-ndjson" {
			t.Errorf("Content-Type %q", ct)
		}
		select {
		case st := <-c.status:
			w.WriteHeader(st)
			return
		default:
		}
		var batch []Event
		sc := bufio.NewScanner(r.Body)
		for sc.Scan() {
			var e Event
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				t.Errorf("line %q: %v", sc.Text(), err)
			}
			batch = append(batch, e)
		}
		c.batches <- batch
	}))
	t.Cleanup(c.srv.Close)
	return c
}

func (c *collector) next(t *testing.T) []Event {
	t.Helper()
	select {
	case b := <-c.batches:
		return b
	case <-time.After(5 * time.Second):
		t.Fatal("no batch reached the collector in 5 s")
		return nil
	}
}

func closeWithin(t *testing.T, h *HTTP, d time.Duration) HTTPStats {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return h.Close(ctx)
}

func TestHTTPSinkDelivers(t *testing.T) {
	c := newCollector(t)
	h := NewHTTP(c.srv.URL, HTTPOptions{Batch: 10, Interval: time.Hour})
	for i := 0; i < 25; i++ {
		Emit(h, Event{Kind: ToolCallStart, Tool: "echo", Count: i})
	}
	// Two full batches go at once; the rest waits for the interval or Close.
	var got []Event
	got = append(got, c.next(t)...)
	got = append(got, c.next(t)...)
	st := closeWithin(t, h, 5*time.Second)
	got = append(got, c.next(t)...)
	if len(got) != 25 || st.Sent != 25 || st.Dropped != 0 {
		t.Fatalf("got %d events, stats %+v", len(got), st)
	}
	for i, e := range got {
		if e.Count != i || e.Kind != ToolCallStart || e.Time.IsZero() {
			t.Fatalf("event %d = %+v (order or fields lost)", i, e)
		}
	}
}

func TestHTTPSinkRetriesAFailedBatch(t *testing.T) {
	c := newCollector(t)
	c.status <- http.StatusServiceUnavailable
	h := NewHTTP(c.srv.URL, HTTPOptions{Batch: 3, Interval: time.Hour, Backoff: time.Millisecond})
	for i := 0; i < 3; i++ {
		h.Emit(Event{Kind: Response, Count: i})
	}
	b := c.next(t)
	if len(b) != 3 || b[0].Count != 0 {
		t.Fatalf("resent batch = %+v", b)
	}
	st := closeWithin(t, h, 5*time.Second)
	if st.FailedPosts != 1 || st.Sent != 3 || st.Dropped != 0 {
		t.Fatalf("stats %+v", st)
	}
}

// A collector that takes no connections: Emit still returns at once and
// the buffer stays bounded, the overflow counted.
func TestHTTPSinkDeadCollectorDropsOldest(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close()
	h := NewHTTP(url, HTTPOptions{Buffer: 100, Batch: 10, Backoff: time.Millisecond, MaxBackoff: time.Millisecond})
	for i := 0; i < 10000; i++ {
		h.Emit(Event{Kind: NotificationIn, Count: i})
	}
	st := h.Stats()
	if st.Queued > 100 || st.Dropped < 10000-100-10 {
		t.Fatalf("stats %+v: the buffer is not bounded", st)
	}
	start := time.Now()
	st = closeWithin(t, h, 50*time.Millisecond)
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("Close took %v on a dead collector with a 50 ms deadline", d)
	}
	if st.Sent != 0 {
		t.Fatalf("stats %+v", st)
	}
}

// A collector that hangs: events past the buffer are dropped, and when it
// recovers the next batch starts with how many were lost.
func TestHTTPSinkReportsDropsWhenTheCollectorRecovers(t *testing.T) {
	c := newCollector(t)
	c.hold = make(chan struct{})
	h := NewHTTP(c.srv.URL, HTTPOptions{Buffer: 20, Batch: 10, Interval: time.Hour, Backoff: time.Millisecond})
	for i := 0; i < 10; i++ {
		h.Emit(Event{Kind: Response, Count: i})
	}
	// The first batch of ten is now in flight (or about to be) and held.
	waitFor(t, func() bool { return h.Stats().Queued == 0 })
	for i := 10; i < 60; i++ {
		h.Emit(Event{Kind: Response, Count: i})
	}
	if st := h.Stats(); st.Dropped != 30 || st.Queued != 20 {
		t.Fatalf("stats %+v, want 30 dropped, 20 queued", st)
	}
	var once sync.Once
	once.Do(func() { close(c.hold) })
	first := c.next(t)
	if len(first) != 10 || first[0].Count != 0 {
		t.Fatalf("first batch %+v", first)
	}
	st := closeWithin(t, h, 5*time.Second)
	var rest []Event
	for len(c.batches) > 0 {
		rest = append(rest, <-c.batches...)
	}
	if len(rest) != 21 || rest[0].Kind != TraceDropped || rest[0].Count != 30 || rest[1].Count != 40 {
		t.Fatalf("after recovery got %d events, head %+v", len(rest), rest[:min(2, len(rest))])
	}
	if st.Sent != 30 || st.Dropped != 30 {
		t.Fatalf("stats %+v", st)
	}
}

// waitFor polls a condition the sink's goroutine will make true; bounded.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 5 s")
		}
		time.Sleep(time.Millisecond)
	}
}
