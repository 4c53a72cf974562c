package httpserver_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/mcp"
	"github.com/luagent/luagent/runtime/transport/httpserver"
)

// A retry that continues parked work reaches the worker that parked it,
// though another is idler: parked work lives in one worker's state.
func TestParkedRetryReachesItsWorker(t *testing.T) {
	var parkedOn, resumedOn atomic.Int32
	block := [2]chan struct{}{make(chan struct{}), make(chan struct{})}
	entered := make(chan int, 4)
	var srvs []*mcp.Server
	for i := range 2 {
		srv := mcp.NewServer(mcp.ServerOptions{Info: mcp.Implementation{Name: "pool", Version: "1"}})
		t.Cleanup(srv.Close)
		srv.AddTool(mcp.Tool{Name: "block"}, func(c *mcp.ToolCall) {
			entered <- i
			go func() { <-block[i]; c.ReturnText("unblocked") }()
		})
		srv.AddTool(mcp.Tool{Name: "ask"}, func(c *mcp.ToolCall) {
			if c.Parked() != nil {
				resumedOn.Store(int32(i + 1))
				c.ReturnText("resumed")
				return
			}
			parkedOn.Store(int32(i + 1))
			if _, err := c.Park(i, []mcp.Input{{Method: "elicitation/create",
				Params: json.RawMessage(`{"message":"ok?","requestedSchema":{"type":"object","properties":{}}}`)}}); err != nil {
				c.Return(nil, err)
			}
		})
		srvs = append(srvs, srv)
	}
	h := httpserver.NewPool(srvs, httpserver.Options{})
	web := httptest.NewServer(h)
	t.Cleanup(func() { web.Close(); h.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var c *mcp.Client
	first := make(chan error, 1)
	// While the client holds the answer, worker 2 gets busy and worker 1
	// idle: by load alone the retry would go to worker 1.
	elicit := func(ctx context.Context, p json.RawMessage) (json.RawMessage, error) {
		go c.CallTool(ctx, "block", json.RawMessage(`{}`), mcp.CallOptions{})
		if w := <-entered; w != 1 {
			t.Errorf("the second block went to worker %d, want 2", w+1)
		}
		close(block[0])
		if err := <-first; err != nil {
			t.Error(err)
		}
		return json.RawMessage(`{"action":"accept","content":{}}`), nil
	}
	c, err := mcp.Connect(ctx, mcp.Options{URL: web.URL, Protocol: "modern", Elicit: elicit})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Worker 1 busy: ask goes to worker 2 and parks there.
	go func() {
		_, err := c.CallTool(ctx, "block", json.RawMessage(`{}`), mcp.CallOptions{})
		first <- err
	}()
	if w := <-entered; w != 0 {
		t.Fatalf("the first block went to worker %d", w+1)
	}
	r, err := c.CallTool(ctx, "ask", json.RawMessage(`{}`), mcp.CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Text() != "resumed" || parkedOn.Load() != 2 || resumedOn.Load() != 2 {
		t.Errorf("%q: parked on worker %d, resumed on %d; want both 2", r.Text(), parkedOn.Load(), resumedOn.Load())
	}
	close(block[1])
}
