package mcp

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/jsonrpc"
	"github.com/luagent/luagent/runtime/jsonscan"
)

// Tasks run a tool call asynchronously on the server; the client follows the
// task to its end, so call() still returns the tool's result. Status changes
// reach the caller's progress callback (Progress.Status set), and so does
// the task's progress: legacy, notifications/progress on the call's token
// until the task ends; modern, on the token each tasks/get carries. Cancelling the
// caller's context cancels the task (tasks/cancel, never
// notifications/cancelled).
//
// Legacy (2025-11-25 experimental core): the client asks for a task with
// params.task; the server answers {task: {...}}; tasks/get polls and
// tasks/result fetches the outcome. Modern (extension
// io.modelcontextprotocol/tasks): the server decides; resultType "task";
// tasks/get returns the outcome inline; tasks/update answers input.

const defaultPollInterval = 500 * time.Millisecond

type taskState struct {
	TaskID         string                  `json:"taskId"`
	Status         string                  `json:"status"`
	StatusMessage  string                  `json:"statusMessage"`
	PollInterval   *int64                  `json:"pollInterval"`   // legacy
	PollIntervalMs *int64                  `json:"pollIntervalMs"` // modern
	Result         json.RawMessage         `json:"result"`
	Error          *jsonrpc.Error          `json:"error"`
	InputRequests  map[string]inputRequest `json:"inputRequests"`
}

func (t *taskState) poll() time.Duration {
	ms := t.PollIntervalMs
	if ms == nil {
		ms = t.PollInterval
	}
	if ms == nil || *ms <= 0 {
		return defaultPollInterval
	}
	return min(max(time.Duration(*ms)*time.Millisecond, 50*time.Millisecond), 30*time.Second)
}

func (c *Client) useLegacyTask(t *Tool, o CallOptions) bool {
	info := c.Info()
	if info.Era != EraLegacy || t.Execution == nil {
		return false
	}
	caps := info.Capabilities.Tasks
	if caps == nil || caps.Requests == nil || caps.Requests.Tools == nil || caps.Requests.Tools.Call == nil {
		return false
	}
	return t.Execution.TaskSupport == "required" || (o.Task && t.Execution.TaskSupport == "optional")
}

func taskIDParams(id string) json.RawMessage {
	return json.RawMessage(`{"taskId":` + jsonscan.Quote(id) + `}`)
}

// cancelTask asks the server to cancel a task, on a context of its own: the
// caller's has ended.
func (c *Client) cancelTask(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c.request(ctx, "tasks/cancel", taskIDParams(id), reqOpts{taskCaps: true})
}

// statusReporter passes task status changes to the caller's progress
// callback, once per change; notifications and polls both feed it.
type statusReporter struct {
	mu   sync.Mutex
	last string
	fn   func(Progress)
}

func (r *statusReporter) report(t *taskState) {
	if r.fn == nil || t.Status == "" {
		return
	}
	key := t.Status + "\x00" + t.StatusMessage
	// Held across the call, so two changes are reported in the order they
	// were seen.
	r.mu.Lock()
	defer r.mu.Unlock()
	if key != r.last {
		r.last = key
		r.fn(Progress{Status: t.Status, Message: t.StatusMessage})
	}
}

// callLegacyTask runs tools/call as a 2025-11-25 task.
func (c *Client) callLegacyTask(ctx context.Context, params json.RawMessage, o CallOptions) (json.RawMessage, error) {
	withTask := append(params[:len(params)-1:len(params)-1], `,"task":{"ttl":3600000}}`...)
	// The call's progress token stays valid until the task ends: progress
	// on it keeps reaching the caller after the task is created.
	tok := c.nextToken()
	defer c.progress.Delete(jsonscan.Quote(tok))
	res, err := c.request(ctx, "tools/call", withTask, reqOpts{progress: o.Progress, timeout: o.Timeout, token: tok})
	if err != nil {
		return nil, err
	}
	var created struct {
		Task *taskState `json:"task"`
	}
	if json.Unmarshal(res, &created) != nil || created.Task == nil || created.Task.TaskID == "" {
		return res, nil // the server ran it at once
	}
	rep := &statusReporter{fn: o.Progress}
	t := created.Task
	changed := make(chan struct{}, 1)
	c.taskSubs.Store(t.TaskID, func(params json.RawMessage) {
		var st taskState
		if json.Unmarshal(params, &st) == nil {
			rep.report(&st)
		}
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	defer c.taskSubs.Delete(t.TaskID)
	rep.report(t)

	// tasks/result blocks until the task ends, and while it is pending the
	// server may ask the client for input (server-everything only does so
	// then), so it is sent at once; tasks/get polls meanwhile for status.
	type outcome struct {
		res json.RawMessage
		err error
	}
	rctx, stop := context.WithCancel(ctx)
	defer stop()
	resCh := make(chan outcome, 1)
	go func() {
		res, err := c.request(rctx, "tasks/result", taskIDParams(t.TaskID), reqOpts{timeout: 24 * time.Hour})
		resCh <- outcome{res, err}
	}()
	for {
		select {
		case r := <-resCh:
			if r.err != nil && ctx.Err() != nil {
				c.cancelTask(t.TaskID)
				return nil, ctxError(ctx, "tools/call", c.opts.Name)
			}
			c.lastStatus(rep, t.TaskID)
			return r.res, r.err
		case <-time.After(t.poll()):
		case <-changed:
			continue
		case <-ctx.Done():
			c.cancelTask(t.TaskID)
			return nil, ctxError(ctx, "tools/call", c.opts.Name)
		}
		res, err := c.request(ctx, "tasks/get", taskIDParams(t.TaskID), reqOpts{timeout: o.Timeout})
		if err != nil {
			continue // tasks/result decides the outcome
		}
		var next taskState
		if json.Unmarshal(res, &next) == nil && next.Status != "" {
			next.PollInterval = t.PollInterval
			if next.PollIntervalMs == nil && next.PollInterval == nil {
				next.PollInterval = t.PollInterval
			}
			t = &next
			rep.report(t)
			if t.Status == "cancelled" {
				return nil, errs.Errorf(errs.Cancelled, "tools/call", "server %q cancelled task %s: %s", c.opts.Name, t.TaskID, t.StatusMessage)
			}
		}
	}
}

// lastStatus reports the task's final status once the outcome is known.
func (c *Client) lastStatus(rep *statusReporter, id string) {
	if rep.fn == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if res, err := c.request(ctx, "tasks/get", taskIDParams(id), reqOpts{}); err == nil {
		var st taskState
		if json.Unmarshal(res, &st) == nil {
			rep.report(&st)
		}
	}
}

// followModernTask follows a resultType "task" answer to its end.
func (c *Client) followModernTask(ctx context.Context, s *session, res json.RawMessage, o reqOpts) (json.RawMessage, error) {
	t := &taskState{}
	if err := json.Unmarshal(res, t); err != nil || t.TaskID == "" {
		return nil, c.protocolError("tools/call", "answered with a task that has no taskId")
	}
	answered := map[string]bool{}
	rep := &statusReporter{fn: o.progress}
	for {
		rep.report(t)
		switch t.Status {
		case "completed":
			if len(t.Result) == 0 {
				return nil, c.protocolError("tasks/get", "reported task "+t.TaskID+" completed without a result")
			}
			return t.Result, nil
		case "failed":
			if t.Error == nil {
				return nil, errs.Errorf(errs.Tool, "tools/call", "server %q: task %s failed: %s", c.opts.Name, t.TaskID, t.StatusMessage)
			}
			return nil, c.serverError("tools/call", t.Error)
		case "cancelled":
			return nil, errs.Errorf(errs.Cancelled, "tools/call", "server %q cancelled task %s: %s", c.opts.Name, t.TaskID, t.StatusMessage)
		case "input_required":
			pending := map[string]inputRequest{}
			for k, r := range t.InputRequests {
				if !answered[k] {
					pending[k] = r
				}
			}
			if len(pending) > 0 {
				responses, err := c.answerAll(ctx, EraModern, pending)
				if err != nil {
					return nil, err
				}
				for k := range pending {
					answered[k] = true
				}
				b, _ := json.Marshal(struct {
					TaskID         string                     `json:"taskId"`
					InputResponses map[string]json.RawMessage `json:"inputResponses"`
				}{t.TaskID, responses})
				if _, err := c.request(ctx, "tasks/update", b, reqOpts{taskCaps: true}); err != nil {
					return nil, err
				}
			}
		}
		select {
		case <-time.After(t.poll()):
		case <-ctx.Done():
			c.cancelTask(t.TaskID)
			return nil, ctxError(ctx, "tools/call", c.opts.Name)
		}
		// Progress the server reports on the poll reaches the caller.
		got, err := c.request(ctx, "tasks/get", taskIDParams(t.TaskID), reqOpts{taskCaps: true, timeout: o.timeout, progress: o.progress})
		if err != nil {
			if ctx.Err() != nil {
				c.cancelTask(t.TaskID)
			}
			return nil, err
		}
		next := &taskState{}
		if err := json.Unmarshal(got, next); err != nil {
			return nil, c.protocolError("tasks/get", "sent a malformed task: "+err.Error())
		}
		t = next
	}
}
