package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/jsonrpc"
	"github.com/luagent/luagent/runtime/mcp"
	"github.com/luagent/luagent/runtime/transport"
)

// wireConn drives a server over stdio with raw JSON lines: requests go in,
// every message that comes out is read, notifications and server requests
// kept aside for the test to look at.
type wireConn struct {
	t    *testing.T
	in   io.Writer
	out  chan map[string]json.RawMessage
	era  string
	next int
}

func wireServer(t *testing.T, srv *mcp.Server, era string) *wireConn {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.ServeStream(ctx, transport.NewStdio(inR, outW, 0))
		outW.Close()
	}()
	w := &wireConn{t: t, in: inW, out: make(chan map[string]json.RawMessage, 256), era: era}
	go func() {
		defer close(w.out)
		br := bufio.NewReader(outR)
		for {
			line, err := br.ReadBytes('\n')
			if err != nil {
				return
			}
			var m map[string]json.RawMessage
			if json.Unmarshal(line, &m) != nil {
				t.Errorf("not JSON: %q", line)
				continue
			}
			w.out <- m
		}
	}()
	t.Cleanup(func() {
		inW.Close()
		cancel()
		<-done
		srv.Close()
		outR.Close()
	})
	if era == "legacy" {
		w.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{},"tasks":{}},"clientInfo":{"name":"t","version":"1"}}}`)
		w.wait("0")
	}
	return w
}

func (w *wireConn) send(line string) {
	w.t.Helper()
	if _, err := io.WriteString(w.in, line+"\n"); err != nil {
		w.t.Fatal(err)
	}
}

// recv is the next message; other is called for each message that is not
// the answer to id (notifications, requests of the server).
func (w *wireConn) wait(id string, other ...func(map[string]json.RawMessage)) map[string]json.RawMessage {
	w.t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case m, ok := <-w.out:
			if !ok {
				w.t.Fatal("the server closed its output")
			}
			if _, isReq := m["method"]; !isReq && string(m["id"]) == id {
				return m
			}
			for _, f := range other {
				f(m)
			}
		case <-timeout:
			w.t.Fatalf("no answer to %s", id)
		}
	}
}

// caps are the modern client capabilities each request of that kind
// declares.
const (
	capsTasks   = `{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}`
	capsNoTasks = `{"elicitation":{}}`
)

// call sends method with params (a JSON object's members) and returns the
// answer; modern requests carry the envelope with caps.
func (w *wireConn) call(method, params, caps string, other ...func(map[string]json.RawMessage)) (json.RawMessage, *jsonrpc.Error) {
	w.t.Helper()
	w.next++
	id := "\"r" + string(rune('a'+w.next%26)) + strings.Repeat("x", w.next/26) + "\""
	if w.era == "modern" {
		if params != "" {
			params += ","
		}
		params += `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}`
	}
	w.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":{` + params + `}}`)
	m := w.wait(id, other...)
	if e := m["error"]; e != nil {
		var je jsonrpc.Error
		json.Unmarshal(e, &je)
		return nil, &je
	}
	return m["result"], nil
}

func field(raw json.RawMessage, path ...string) string {
	for _, p := range path {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil {
			return ""
		}
		raw = m[p]
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// taskServer has a sync tool, an optional task tool that waits for release
// (or its context), one that runs until cancelled, one that fails with a tool error, one with a
// JSON-RPC error, one that asks for a name, and a required one.
func taskServer(t *testing.T, opts mcp.ServerOptions) (*mcp.Server, chan struct{}) {
	t.Helper()
	srv := mcp.NewServer(opts)
	release := make(chan struct{})
	opt := &mcp.ToolExecution{TaskSupport: mcp.TaskOptional}
	must(t, srv.AddTool(mcp.Tool{Name: "sync"}, func(c *mcp.ToolCall) { c.ReturnText("sync done") }))
	must(t, srv.AddTool(mcp.Tool{Name: "slow", Execution: opt}, func(c *mcp.ToolCall) {
		go func() {
			select {
			case <-release:
				c.ReturnText("slow done")
			case <-c.Context().Done():
			}
		}()
	}))
	must(t, srv.AddTool(mcp.Tool{Name: "forever", Execution: opt}, func(c *mcp.ToolCall) {
		context.AfterFunc(c.Context(), func() { c.ReturnText("stopped") })
	}))
	must(t, srv.AddTool(mcp.Tool{Name: "toolerr", Execution: opt}, func(c *mcp.ToolCall) {
		c.Return(nil, errors.New("it broke"))
	}))
	must(t, srv.AddTool(mcp.Tool{Name: "rpcerr", Execution: opt}, func(c *mcp.ToolCall) {
		c.Fail(&jsonrpc.Error{Code: -32603, Message: "internal"})
	}))
	must(t, srv.AddTool(mcp.Tool{Name: "ask", Execution: opt}, func(c *mcp.ToolCall) {
		c.AskKey("name", "elicitation/create", json.RawMessage(`{"message":"Name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}`),
			func(a json.RawMessage, err error) {
				if err != nil {
					c.Return(nil, err)
					return
				}
				c.ReturnText("Hello, " + field(a, "content", "name"))
			})
	}))
	must(t, srv.AddTool(mcp.Tool{Name: "only", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskRequired}}, func(c *mcp.ToolCall) { c.ReturnText("only done") }))
	return srv, release
}

// taskID reads the id of a created task in either era's shape.
func taskID(era string, res json.RawMessage) string {
	if era == "legacy" {
		return field(res, "task", "taskId")
	}
	return field(res, "taskId")
}

// untilStatus polls tasks/get until the task's status is want.
func untilStatus(t *testing.T, w *wireConn, id, want string) json.RawMessage {
	t.Helper()
	for range 500 {
		res, rerr := w.call("tasks/get", `"taskId":"`+id+`"`, capsTasks)
		if rerr != nil {
			t.Fatalf("tasks/get %s: %v", id, rerr)
		}
		if field(res, "status") == want {
			return res
		}
		time.Sleep(10 * time.Millisecond) // polling, as a client does
	}
	t.Fatalf("task %s never became %s", id, want)
	return nil
}

func TestServerTaskLifecycle(t *testing.T) {
	eras(t, func(t *testing.T, era string) {
		srv, release := taskServer(t, mcp.ServerOptions{})
		w := wireServer(t, srv, era)
		task := ""
		if era == "legacy" {
			task = `,"task":{"ttl":60000}`
		}
		callTool := func(name string) (json.RawMessage, *jsonrpc.Error) {
			return w.call("tools/call", `"name":"`+name+`","arguments":{}`+task, capsTasks)
		}

		// The tools list says which tools run as tasks.
		list, _ := w.call("tools/list", "", capsTasks)
		if !strings.Contains(string(list), `"name":"slow","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}`) {
			t.Errorf("tools/list: %s", list)
		}

		res, rerr := callTool("slow")
		id := taskID(era, res)
		if rerr != nil || id == "" || len(id) < 32 {
			t.Fatalf("slow: %s %v", res, rerr)
		}
		for _, k := range map[string][]string{"modern": {`"resultType":"task"`, `"ttlMs":`, `"pollIntervalMs":`}, "legacy": {`"ttl":60000`, `"pollInterval":`}}[era] {
			if !strings.Contains(string(res), k) {
				t.Errorf("created: %s lacks %s", res, k)
			}
		}
		got, _ := w.call("tasks/get", `"taskId":"`+id+`"`, capsTasks)
		if field(got, "status") != "working" || field(got, "result") != "" {
			t.Errorf("tasks/get while working: %s", got)
		}
		close(release)
		done := untilStatus(t, w, id, "completed")
		if era == "modern" && !strings.Contains(field(done, "result"), "slow done") {
			t.Errorf("completed task: %s", done)
		}
		if era == "legacy" {
			out, rerr := w.call("tasks/result", `"taskId":"`+id+`"`, "")
			if rerr != nil || !strings.Contains(string(out), "slow done") || field(out, "_meta", "io.modelcontextprotocol/related-task", "taskId") != id {
				t.Errorf("tasks/result: %s %v", out, rerr)
			}
			listed, _ := w.call("tasks/list", "", "")
			if !strings.Contains(string(listed), id) {
				t.Errorf("tasks/list: %s", listed)
			}
		}

		// Errors: a tool error completes (modern) or fails (legacy) with
		// the result; a JSON-RPC error fails with it.
		res, _ = callTool("toolerr")
		want := map[string]string{"modern": "completed", "legacy": "failed"}[era]
		untilStatus(t, w, taskID(era, res), want)
		res, _ = callTool("rpcerr")
		failed := untilStatus(t, w, taskID(era, res), "failed")
		if era == "modern" && field(failed, "error", "code") != "-32603" {
			t.Errorf("failed task: %s", failed)
		}

		for _, tc := range []struct {
			name, method, params, caps string
			code                       int
			eras                       string
		}{
			{"unknown task", "tasks/get", `"taskId":"nope"`, capsTasks, -32602, "modern legacy"},
			{"cancel unknown", "tasks/cancel", `"taskId":"nope"`, capsTasks, -32602, "modern legacy"},
			{"undeclared", "tasks/get", `"taskId":"` + id + `"`, capsNoTasks, -32021, "modern"},
			{"tasks/result removed", "tasks/result", `"taskId":"` + id + `"`, capsTasks, -32601, "modern"},
			{"tasks/list removed", "tasks/list", ``, capsTasks, -32601, "modern"},
			{"cancel ended (legacy)", "tasks/cancel", `"taskId":"` + id + `"`, "", -32602, "legacy"},
			{"required, no task", "tools/call", `"name":"only","arguments":{}`, capsNoTasks, map[string]int{"modern": -32021, "legacy": -32601}[era], "modern legacy"},
		} {
			if !strings.Contains(tc.eras, era) {
				continue
			}
			params := tc.params
			if era == "legacy" && tc.method == "tools/call" {
				params = strings.Replace(params, task, "", 1)
			}
			_, rerr := w.call(tc.method, params, tc.caps)
			if rerr == nil || rerr.Code != tc.code {
				t.Errorf("%s: %v, want code %d", tc.name, rerr, tc.code)
			}
		}
		// Without the extension (modern) or params.task (legacy), an
		// optional task tool answers at once.
		var plain json.RawMessage
		if era == "modern" {
			plain, _ = w.call("tools/call", `"name":"toolerr","arguments":{}`, capsNoTasks)
		} else {
			plain, _ = w.call("tools/call", `"name":"toolerr","arguments":{}`, "")
		}
		if !strings.Contains(string(plain), "it broke") || strings.Contains(string(plain), "taskId") {
			t.Errorf("plain call: %s", plain)
		}
		// A cancelled task stays cancelled; modern acknowledges a second
		// cancel.
		res, _ = callTool("forever")
		id = taskID(era, res)
		if ack, rerr := w.call("tasks/cancel", `"taskId":"`+id+`"`, capsTasks); rerr != nil || (era == "modern" && field(ack, "taskId") != "") {
			t.Errorf("tasks/cancel: %s %v", ack, rerr)
		}
		untilStatus(t, w, id, "cancelled")
		if era == "modern" {
			if ack, rerr := w.call("tasks/cancel", `"taskId":"`+id+`"`, capsTasks); rerr != nil || field(ack, "resultType") != "complete" {
				t.Errorf("second tasks/cancel: %s %v", ack, rerr)
			}
		}
	})
}

// A task that asks for input: modern, the task waits input_required with
// the request in inputRequests for tasks/update; legacy, the server asks
// the client on the session with the related-task _meta.
func TestServerTaskInput(t *testing.T) {
	eras(t, func(t *testing.T, era string) {
		srv, _ := taskServer(t, mcp.ServerOptions{})
		w := wireServer(t, srv, era)
		if era == "modern" {
			res, _ := w.call("tools/call", `"name":"ask","arguments":{}`, capsTasks)
			id := taskID(era, res)
			got := untilStatus(t, w, id, "input_required")
			if field(got, "inputRequests", "name", "method") != "elicitation/create" {
				t.Fatalf("input_required: %s", got)
			}
			for _, tc := range []struct {
				name, responses string
				code            int
			}{
				{"malformed", `{"name":{"action":"maybe"}}`, -32602},
				{"unknown key ignored", `{"other":{"action":"accept","content":{}}}`, 0},
				{"answer", `{"name":{"action":"accept","content":{"name":"Ada"}}}`, 0},
			} {
				ack, rerr := w.call("tasks/update", `"taskId":"`+id+`","inputResponses":`+tc.responses, capsTasks)
				if (rerr == nil) != (tc.code == 0) || (rerr != nil && rerr.Code != tc.code) || (rerr == nil && field(ack, "resultType") != "complete") {
					t.Errorf("%s: %s %v", tc.name, ack, rerr)
				}
			}
			done := untilStatus(t, w, id, "completed")
			if !strings.Contains(field(done, "result"), "Hello, Ada") {
				t.Errorf("completed: %s", done)
			}
			return
		}
		res, _ := w.call("tools/call", `"name":"ask","arguments":{},"task":{}`, "")
		id := taskID(era, res)
		var statuses []string
		answered := false
		out, rerr := w.call("tasks/result", `"taskId":"`+id+`"`, "", func(m map[string]json.RawMessage) {
			switch string(m["method"]) {
			case `"notifications/tasks/status"`:
				statuses = append(statuses, field(m["params"], "status"))
			case `"elicitation/create"`:
				if field(m["params"], "_meta", "io.modelcontextprotocol/related-task", "taskId") != id {
					t.Errorf("elicitation without the related task: %s", m["params"])
				}
				answered = true
				w.send(`{"jsonrpc":"2.0","id":` + string(m["id"]) + `,"result":{"action":"accept","content":{"name":"Ada"}}}`)
			}
		})
		if rerr != nil || !answered || !strings.Contains(string(out), "Hello, Ada") {
			t.Fatalf("tasks/result: %s %v (asked: %v)", out, rerr, answered)
		}
		if !strings.Contains(strings.Join(statuses, " "), "input_required") {
			t.Errorf("statuses notified: %v", statuses)
		}
	})
}

// The bounds: past MaxTasks (server) or MaxSessionTasks (a legacy session)
// a call fails; a task is gone TTL after it was made, running or not, and
// then makes room for another.
func TestServerTaskBounds(t *testing.T) {
	for _, tc := range []struct {
		name, era string
		opts      mcp.TaskOptions
		limit     string
	}{
		{"server", "modern", mcp.TaskOptions{MaxTasks: 2, TTL: time.Hour}, "the server runs 2 tasks"},
		{"session", "legacy", mcp.TaskOptions{MaxSessionTasks: 2, TTL: time.Hour}, "this session has 2 tasks"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := taskServer(t, mcp.ServerOptions{Tasks: tc.opts})
			w := wireServer(t, srv, tc.era)
			params := `"name":"slow","arguments":{}`
			if tc.era == "legacy" {
				params += `,"task":{}`
			}
			for i := range 2 {
				if res, rerr := w.call("tools/call", params, capsTasks); rerr != nil || taskID(tc.era, res) == "" {
					t.Fatalf("task %d: %s %v", i, res, rerr)
				}
			}
			_, rerr := w.call("tools/call", params, capsTasks)
			if rerr == nil || !strings.Contains(rerr.Message, tc.limit) {
				t.Fatalf("past the limit: %v", rerr)
			}
		})
	}
	t.Run("result waiters", func(t *testing.T) {
		srv, _ := taskServer(t, mcp.ServerOptions{})
		w := wireServer(t, srv, "legacy")
		res, _ := w.call("tools/call", `"name":"forever","arguments":{},"task":{}`, "")
		id := taskID("legacy", res)
		// Nine tasks/result at once on a task that runs on: the ninth is
		// refused; closing the server ends the eight with the task.
		for i := range 9 {
			w.send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(100+i) + `,"method":"tasks/result","params":{"taskId":"` + id + `"}}`)
		}
		if m := w.wait("108"); !strings.Contains(string(m["error"]), "already has 8 tasks/result requests waiting") {
			t.Errorf("the ninth tasks/result: %s", m["error"])
		}
		srv.Close()
		ended := map[string]bool{}
		for len(ended) < 8 {
			select {
			case m, ok := <-w.out:
				if !ok {
					t.Fatalf("the server closed its output; answered %v", ended)
				}
				if _, isReq := m["method"]; !isReq && m["error"] != nil {
					ended[string(m["id"])] = true
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("after the server closed, tasks/result answered: %v", ended)
			}
		}
	})
	t.Run("ttl", func(t *testing.T) {
		srv, _ := taskServer(t, mcp.ServerOptions{Tasks: mcp.TaskOptions{MaxTasks: 1, TTL: 50 * time.Millisecond}})
		w := wireServer(t, srv, "modern")
		res, _ := w.call("tools/call", `"name":"slow","arguments":{}`, capsTasks)
		id := taskID("modern", res)
		gone := false
		for range 500 {
			if _, rerr := w.call("tasks/get", `"taskId":"`+id+`"`, capsTasks); rerr != nil && rerr.Code == -32602 {
				gone = true
				break
			}
			time.Sleep(10 * time.Millisecond) // polling, as a client does
		}
		if !gone {
			t.Fatal("the task outlived its ttl")
		}
		if res, rerr := w.call("tools/call", `"name":"slow","arguments":{}`, capsTasks); rerr != nil || taskID("modern", res) == "" {
			t.Errorf("after the ttl, no room: %s %v", res, rerr)
		}
	})
}

// notifications/tasks: a modern client that lists a task on a listen
// stream hears its changes, the last with the result; one that did not
// declare the extension is refused.
func TestServerTaskNotifications(t *testing.T) {
	srv, release := taskServer(t, mcp.ServerOptions{})
	w := wireServer(t, srv, "modern")
	res, _ := w.call("tools/call", `"name":"slow","arguments":{}`, capsTasks)
	id := taskID("modern", res)
	if _, rerr := w.call("subscriptions/listen", `"notifications":{"taskIds":["`+id+`"]}`, capsNoTasks); rerr == nil || rerr.Code != -32021 {
		t.Errorf("listen for tasks without the extension: %v", rerr)
	}
	listen := func(ids string) {
		w.send(`{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{"notifications":{"taskIds":[` + ids + `]},` +
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + capsTasks + `}}}`)
	}
	listen(`"` + id + `","no-such-task"`)
	next := func(method string) json.RawMessage {
		t.Helper()
		for {
			select {
			case m := <-w.out:
				if string(m["method"]) == `"`+method+`"` {
					return m["params"]
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("no %s", method)
			}
		}
	}
	if ack := next("notifications/subscriptions/acknowledged"); field(ack, "notifications", "taskIds") != `["`+id+`"]` {
		t.Errorf("ack: %s", ack)
	}
	close(release)
	n := next("notifications/tasks")
	if field(n, "taskId") != id || field(n, "status") != "completed" || !strings.Contains(field(n, "result"), "slow done") || field(n, "_meta", "io.modelcontextprotocol/subscriptionId") != "L" {
		t.Errorf("notifications/tasks: %s", n)
	}
}
