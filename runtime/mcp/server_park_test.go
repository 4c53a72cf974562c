package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/luagent/luagent/runtime/mcp"
	"github.com/luagent/luagent/runtime/transport"
)

// work is what the park tests keep across rounds: it counts the rounds it
// has seen, which a rerun handler could not.
type work struct{ rounds int }

// parkingTool asks twice through Park, keeping one *work, and answers
// with what it heard: the handler runs per round, the work does not.
func parkingTool(started *atomic.Int32) mcp.ToolHandler {
	return func(c *mcp.ToolCall) {
		w, _ := c.Parked().(*work)
		if w == nil {
			started.Add(1)
			w = &work{}
		} else {
			var a struct {
				Content struct{ Name string } `json:"content"`
			}
			json.Unmarshal(c.Answers()[fmt.Sprintf("q%d", w.rounds)], &a)
			if a.Content.Name == "" {
				c.Return(nil, fmt.Errorf("round %d: no answer in %v", w.rounds, c.Answers()))
				return
			}
		}
		w.rounds++
		if w.rounds <= 2 {
			_, err := c.Park(w, []mcp.Input{{Key: fmt.Sprintf("q%d", w.rounds), Method: "elicitation/create",
				Params: json.RawMessage(`{"message":"name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}`)}})
			if err != nil {
				c.Return(nil, err)
			}
			return
		}
		c.ReturnText(fmt.Sprintf("rounds %d", w.rounds))
	}
}

func TestParkKeepsWorkAcrossRounds(t *testing.T) {
	srv, url := registryServer(t, mcp.ServerOptions{})
	var started atomic.Int32
	must(t, srv.AddTool(mcp.Tool{Name: "ask"}, parkingTool(&started)))
	asked := 0
	c := dial(t, url, "modern", mcp.Options{Elicit: func(ctx context.Context, p json.RawMessage) (json.RawMessage, error) {
		asked++
		return json.RawMessage(`{"action":"accept","content":{"name":"Ada"}}`), nil
	}})
	r, err := c.CallTool(context.Background(), "ask", json.RawMessage(`{}`), mcp.CallOptions{})
	must(t, err)
	if r.Text() != "rounds 3" || r.IsError || started.Load() != 1 || asked != 2 {
		t.Fatalf("got %q (isError %v), work started %d times, client asked %d times; want rounds 3, 1, 2", r.Text(), r.IsError, started.Load(), asked)
	}

	// Legacy requests ask directly; they cannot park.
	lc := dial(t, url, "legacy", mcp.Options{Elicit: func(ctx context.Context, p json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(`{"action":"accept","content":{"name":"Ada"}}`), nil
	}})
	if r := call(t, lc, "ask", `{}`); !r.IsError || !strings.Contains(r.Text(), "only a 2026-07-28 request") {
		t.Errorf("legacy: %q, want the park refused", r.Text())
	}
}

// A requestState that continues parked work is good for one retry; a
// second one (a replay, or after the park's time) is refused, with no
// handler run.
func TestParkTakenOnce(t *testing.T) {
	srv := mcp.NewServer(mcp.ServerOptions{MaxParked: 1})
	t.Cleanup(srv.Close)
	var started atomic.Int32
	must(t, srv.AddTool(mcp.Tool{Name: "ask"}, parkingTool(&started)))
	clientOut, serverIn := io.Pipe()
	serverOut, clientIn := io.Pipe()
	go srv.ServeStream(context.Background(), transport.NewStdio(clientOut, clientIn, 0))
	t.Cleanup(func() { serverIn.Close() })
	lines := bufio.NewReader(serverOut)
	caps := `{"elicitation":{}}`
	send := func(id int, extra string) map[string]any {
		t.Helper()
		fmt.Fprintf(serverIn, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"ask","arguments":{}%s,`+
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":%s}}}`+"\n", id, extra, caps)
		line, err := lines.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		json.Unmarshal([]byte(line), &m)
		return m
	}
	first := send(1, "")
	res, _ := first["result"].(map[string]any)
	state, _ := res["requestState"].(string)
	if res["resultType"] != "input_required" || state == "" || res["inputRequests"].(map[string]any)["q1"] == nil {
		t.Fatalf("first round: %v", first)
	}
	if !srv.HoldsState([]byte(`{"requestState":"` + state + `"}`)) {
		t.Error("HoldsState: the server does not say it holds the park")
	}
	// The bound: a second call cannot park while the first waits.
	if second := send(2, ""); !strings.Contains(fmt.Sprint(second), "1 calls already wait") {
		t.Errorf("past MaxParked: %v", second)
	}
	answer := `,"requestState":"` + state + `","inputResponses":{"q1":{"action":"accept","content":{"name":"Ada"}}}`
	// A malformed retry fails without taking the park.
	if bad := send(3, `,"requestState":"`+state+`","inputResponses":[]`); !strings.Contains(fmt.Sprint(bad), "inputResponses must be an object") {
		t.Errorf("malformed retry: %v", bad)
	}
	next := send(4, answer)
	if r := next["result"].(map[string]any); r["resultType"] != "input_required" || r["inputRequests"].(map[string]any)["q2"] == nil {
		t.Fatalf("second round: %v", next)
	}
	again := send(5, answer)
	e, _ := again["error"].(map[string]any)
	if e == nil || e["code"] != float64(-32602) || !strings.Contains(e["message"].(string), "is over") {
		t.Errorf("replayed state: %v", again)
	}
	if srv.HoldsState([]byte(`{"requestState":"` + state + `"}`)) {
		t.Error("HoldsState after the park was taken")
	}
	if started.Load() != 2 { // the first call, and the refused second one
		t.Errorf("work started %d times", started.Load())
	}
}
