package mcp

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/jsonrpc"
	"github.com/luagent/luagent/runtime/jsonscan"
)

// Server-side tasks: a tool registered with task support ("optional" or
// "required") runs as a task when the client can follow one, in both eras.
//
// Legacy (2025-11-25 experimental core): the client asks with params.task;
// the answer is {task: {...}}; tasks/get, tasks/result (blocks until the
// end), tasks/list and tasks/cancel; notifications/tasks/status. A task
// belongs to its session. Input inside a task is asked of the client as
// requests carrying the related-task _meta, the task input_required
// meanwhile.
//
// Modern (extension io.modelcontextprotocol/tasks): the server decides when
// the request declares the extension; resultType "task" with the task
// flat; tasks/get inlines the result or error; tasks/update answers the
// inputRequests a task waits on; tasks/cancel acknowledges. No session:
// the task id (random, 128 bits) is the bearer.
//
// Bounds: at most MaxTasks tasks on the server and MaxSessionTasks per
// legacy session (a call past either fails); each is dropped TTL after it
// was created, running or not (a running one is cancelled), so results are
// kept only that long; a modern task's inputRequests are what its handler
// asked, never what the client sends.

// Task support of a tool (Tool.Execution.TaskSupport).
const (
	TaskOptional  = "optional"
	TaskRequired  = "required"
	TaskForbidden = "forbidden"
)

// TaskOptions bound a server's tasks (ServerOptions.Tasks).
type TaskOptions struct {
	MaxTasks        int           // on the server; default 256
	MaxSessionTasks int           // per legacy session; default 64
	TTL             time.Duration // default 10 minutes; a legacy client's ttl is kept within [1 s, MaxTTL]
	MaxTTL          time.Duration // default 1 hour
	PollInterval    time.Duration // suggested to clients; default 500 ms
}

func (o *TaskOptions) defaults() {
	if o.MaxTasks <= 0 {
		o.MaxTasks = 256
	}
	if o.MaxSessionTasks <= 0 {
		o.MaxSessionTasks = 64
	}
	if o.MaxTTL <= 0 {
		o.MaxTTL = time.Hour
	}
	if o.TTL <= 0 {
		o.TTL = min(10*time.Minute, o.MaxTTL)
	}
	if o.PollInterval <= 0 {
		o.PollInterval = 500 * time.Millisecond
	}
}

type taskStore struct {
	mu      sync.Mutex
	m       map[string]*serverTask
	perConn map[*serverConn]int
}

type serverTask struct {
	id      string
	era     Era
	sc      *serverConn // the legacy session; nil for modern tasks
	req     *Request
	ttl     time.Duration
	created time.Time
	timer   *time.Timer
	done    chan struct{} // closed at a terminal status

	mu       sync.Mutex
	status   string
	message  string
	updated  time.Time
	result   json.RawMessage
	rerr     *jsonrpc.Error
	pending  map[string]*taskInput // modern: wire key -> what the handler waits for
	order    []string              // pending keys in asking order
	issued   map[string]bool       // every wire key ever used
	waiting  []jsonrpc.ID          // legacy: tasks/result requests waiting (route for asks)
	lastNote string                // the last status notified
}

type taskInput struct {
	key, method string
	params      json.RawMessage
	ask         *taskAsk
}

// taskAsk is one AskAll inside a modern task: done when every key is.
type taskAsk struct {
	left    int
	answers map[string]json.RawMessage
	keys    []string
	cb      func(map[string]json.RawMessage, []string, error)
}

func terminal(status string) bool {
	return status == "completed" || status == "failed" || status == "cancelled"
}

func newTaskID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// WantsTask reports whether this tools/call may become a task: modern,
// the request declares the tasks extension; legacy, it carries params.task.
func (r *Request) WantsTask() bool {
	if r.Method != "tools/call" || r.task.Load() != nil {
		return false
	}
	if r.Era == EraModern {
		_, ok := r.clientCaps.Extensions[TasksExtension]
		return ok
	}
	t := r.Param("task")
	return len(t) > 0 && t[0] == '{'
}

// IsTask reports whether the request runs as a task now.
func (r *Request) IsTask() bool { return r.task.Load() != nil }

// StartTask makes a tools/call a task, when the client can follow one
// (WantsTask): the call is answered with the new task at once and the
// handler goes on under the task (its answer becomes the task's result;
// its asks, the task's input). It reports whether the call is a task now;
// false, it goes on as an ordinary call. Past the server's task bounds the
// call fails (and false).
func (r *Request) StartTask() bool {
	if r.task.Load() != nil {
		return true
	}
	// Claim the answer: a handler timeout firing now finds the call
	// answered (by the task), and the task, once made, takes the
	// handler's answer.
	if !r.WantsTask() || !r.done.CompareAndSwap(false, true) {
		return false
	}
	s := r.sc.srv
	o := &s.opts.Tasks
	ttl := o.TTL
	if r.Era == EraLegacy {
		var p struct {
			TTL *int64 `json:"ttl"`
		}
		if json.Unmarshal(r.Param("task"), &p) == nil && p.TTL != nil {
			ttl = min(max(time.Duration(*p.TTL)*time.Millisecond, time.Second), o.MaxTTL)
		}
	}
	now := time.Now().UTC()
	t := &serverTask{id: newTaskID(), era: r.Era, req: r, ttl: ttl, created: now, updated: now, status: "working", done: make(chan struct{})}
	if r.Era == EraLegacy {
		t.sc = r.sc
	}
	st := &s.tasks
	st.mu.Lock()
	refuse := func(msg string) bool {
		r.done.Store(false)
		r.Fail(rpcError(jsonrpc.CodeInternalError, msg, nil))
		return false
	}
	switch {
	case len(st.m) >= o.MaxTasks:
		st.mu.Unlock()
		return refuse("the server runs " + strconv.Itoa(o.MaxTasks) + " tasks, its limit: wait for one to end, or cancel one (tasks/cancel)")
	case t.sc != nil && st.perConn[t.sc] >= o.MaxSessionTasks:
		st.mu.Unlock()
		return refuse("this session has " + strconv.Itoa(o.MaxSessionTasks) + " tasks, its limit: wait for one to end, or cancel one (tasks/cancel)")
	}
	if st.m == nil {
		st.m, st.perConn = map[string]*serverTask{}, map[*serverConn]int{}
	}
	st.m[t.id] = t
	if t.sc != nil {
		st.perConn[t.sc]++
	}
	st.mu.Unlock()
	t.timer = time.AfterFunc(ttl, func() { s.expireTask(t) })

	// The call is answered now; the handler's answer goes to the task.
	r.task.Store(t)
	r.cleanup()
	if r.Era == EraModern {
		r.progressToken, r.logLevel = nil, ""
	}
	var res []byte
	if r.Era == EraModern {
		res = s.modernResult("tools/call", t.encode(true, false))
	} else {
		res = append(append([]byte(`{"task":`), t.encode(false, false)...), '}')
	}
	r.sc.conn.Reply(r.ID, res, nil)
	r.done.Store(false) // the answer to come is the task's
	return true
}

// encode is the task as the era sends it: the Task fields, and with
// detail the result, error or inputRequests of its status (modern).
func (t *serverTask) encode(withType, detail bool) json.RawMessage {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := make([]byte, 0, 256)
	b = append(b, '{')
	if withType {
		b = append(b, `"resultType":"task",`...)
	}
	b = append(b, `"taskId":`...)
	b = jsonscan.AppendString(b, t.id)
	b = append(b, `,"status":`...)
	b = jsonscan.AppendString(b, t.status)
	if t.message != "" {
		b = append(b, `,"statusMessage":`...)
		b = jsonscan.AppendString(b, t.message)
	}
	b = append(b, `,"createdAt":"`...)
	b = t.created.AppendFormat(b, "2006-01-02T15:04:05.000Z")
	b = append(b, `","lastUpdatedAt":"`...)
	b = t.updated.AppendFormat(b, "2006-01-02T15:04:05.000Z")
	b = append(b, '"')
	poll := t.req.sc.srv.opts.Tasks.PollInterval.Milliseconds()
	if t.era == EraModern {
		b = append(b, `,"ttlMs":`...)
		b = strconv.AppendInt(b, t.ttl.Milliseconds(), 10)
		b = append(b, `,"pollIntervalMs":`...)
	} else {
		b = append(b, `,"ttl":`...)
		b = strconv.AppendInt(b, t.ttl.Milliseconds(), 10)
		b = append(b, `,"pollInterval":`...)
	}
	b = strconv.AppendInt(b, poll, 10)
	if detail && t.era == EraModern {
		switch t.status {
		case "completed":
			b = append(append(b, `,"result":`...), t.result...)
		case "failed":
			e, _ := json.Marshal(t.rerr)
			b = append(append(b, `,"error":`...), e...)
		case "input_required":
			reqs := make(map[string]any, len(t.pending))
			for k, in := range t.pending {
				reqs[k] = map[string]any{"method": in.method, "params": in.params}
			}
			e, _ := json.Marshal(reqs)
			b = append(append(b, `,"inputRequests":`...), e...)
		}
	}
	return append(b, '}')
}

// setStatus moves a task on (never out of a terminal status) and tells a
// legacy client.
func (t *serverTask) setStatus(status, message string) bool {
	t.mu.Lock()
	if terminal(t.status) {
		t.mu.Unlock()
		return false
	}
	t.status, t.message, t.updated = status, message, time.Now().UTC()
	t.mu.Unlock()
	if terminal(status) {
		close(t.done)
	}
	t.notify()
	return true
}

// notify tells the client of a change, once per change: legacy,
// notifications/tasks/status on the session; modern, notifications/tasks
// on the listen streams that asked for the task.
func (t *serverTask) notify() {
	if t.era != EraLegacy {
		t.req.sc.srv.notifyTask(t)
		return
	}
	b := t.encode(false, false)
	t.mu.Lock()
	key := t.status + "\x00" + t.message
	same := key == t.lastNote
	t.lastNote = key
	t.mu.Unlock()
	if !same {
		t.sc.conn.Notify("notifications/tasks/status", b)
	}
}

// finish is the handler's answer.
func (t *serverTask) finish(result json.RawMessage, rerr *jsonrpc.Error) {
	t.mu.Lock()
	if terminal(t.status) {
		t.mu.Unlock()
		return
	}
	t.result, t.rerr = result, rerr
	t.mu.Unlock()
	switch {
	case rerr != nil:
		t.setStatus("failed", rerr.Message)
	case t.era == EraLegacy && string(jsonscan.Member(result, "isError")) == "true":
		// 2025-11-25 counts a tool error as a failed task; tasks/result
		// still returns the result.
		t.setStatus("failed", "the tool answered with an error")
	default:
		t.setStatus("completed", "")
	}
}

// cancel stops the task's handler and marks it cancelled (or, as failed
// with why, when it expires).
func (t *serverTask) stop(status, message string, cause error) {
	if !t.setStatus(status, message) {
		return
	}
	r := t.req
	r.done.Store(true) // the handler's answer is dropped
	r.Cancel(cause)
	t.mu.Lock()
	var asks []*taskAsk
	for _, in := range t.pending {
		if !slices.Contains(asks, in.ask) {
			asks = append(asks, in.ask)
		}
	}
	t.pending, t.order = nil, nil
	t.mu.Unlock()
	for _, a := range asks {
		a.cb(nil, nil, cause)
	}
}

// expireTask drops a task whose TTL has passed, cancelling it if it runs.
func (s *Server) expireTask(t *serverTask) {
	t.stop("failed", "the task's ttl passed", errs.New(errs.Timeout, "", "the task's ttl passed"))
	s.dropTask(t)
}

func (s *Server) dropTask(t *serverTask) {
	st := &s.tasks
	st.mu.Lock()
	if st.m[t.id] == t {
		delete(st.m, t.id)
		if t.sc != nil {
			if st.perConn[t.sc]--; st.perConn[t.sc] <= 0 {
				delete(st.perConn, t.sc)
			}
		}
	}
	st.mu.Unlock()
	t.timer.Stop()
}

// stopTasks cancels and drops every task (Server.Close).
func (s *Server) stopTasks() {
	st := &s.tasks
	st.mu.Lock()
	ts := make([]*serverTask, 0, len(st.m))
	for _, t := range st.m {
		ts = append(ts, t)
	}
	st.mu.Unlock()
	for _, t := range ts {
		t.stop("cancelled", "the server closed", errs.New(errs.Closed, "", "the server closed"))
		s.dropTask(t)
	}
}

// dropSession cancels and drops a closed legacy session's tasks.
func (s *Server) dropSession(sc *serverConn) {
	st := &s.tasks
	st.mu.Lock()
	var ts []*serverTask
	if st.perConn[sc] > 0 {
		for _, t := range st.m {
			if t.sc == sc {
				ts = append(ts, t)
			}
		}
	}
	st.mu.Unlock()
	for _, t := range ts {
		t.stop("cancelled", "the session ended", errClientGone)
		s.dropTask(t)
	}
}

// HasTask reports whether a 2026-07-28 task of that id is kept here (for
// routing a pool's tasks/* requests to the server that made the task).
func (s *Server) HasTask(id string) bool {
	st := &s.tasks
	st.mu.Lock()
	defer st.mu.Unlock()
	t := st.m[id]
	return t != nil && t.era == EraModern
}

// findTask is the task of id a request may see: modern tasks for modern
// requests, a legacy session's own tasks for it.
func (sc *serverConn) findTask(id string, era Era) *serverTask {
	st := &sc.srv.tasks
	st.mu.Lock()
	t := st.m[id]
	st.mu.Unlock()
	if t == nil || t.era != era || (era == EraLegacy && t.sc != sc) {
		return nil
	}
	return t
}

// ask is AskAll inside a task. Modern: the inputs wait in the task's
// inputRequests for tasks/update. Legacy: asked of the client on the
// session, the task input_required meanwhile.
func (t *serverTask) ask(r *Request, inputs []Input, keys []string, cb func(map[string]json.RawMessage, []string, error)) {
	if t.era == EraLegacy {
		for i := range inputs {
			inputs[i].Params = withRelatedTask(inputs[i].Params, t.id)
		}
		t.setStatus("input_required", "waiting for the client's answer")
		r.askLegacyAll(inputs, keys, map[string]json.RawMessage{}, func(a map[string]json.RawMessage, k []string, err error) {
			t.setStatus("working", "")
			cb(a, k, err)
		})
		return
	}
	a := &taskAsk{left: len(inputs), answers: map[string]json.RawMessage{}, keys: keys, cb: cb}
	t.mu.Lock()
	if terminal(t.status) {
		t.mu.Unlock()
		cb(nil, nil, endedCause(r))
		return
	}
	if t.pending == nil {
		t.pending, t.issued = map[string]*taskInput{}, map[string]bool{}
	}
	for _, in := range inputs {
		// A key is never reused over the task's life.
		wire := in.Key
		for n := 2; t.issued[wire]; n++ {
			wire = in.Key + "-" + strconv.Itoa(n)
		}
		t.issued[wire] = true
		t.pending[wire] = &taskInput{key: in.Key, method: in.Method, params: in.Params, ask: a}
		t.order = append(t.order, wire)
	}
	t.mu.Unlock()
	t.setStatus("input_required", "waiting for the client's input (tasks/update)")
}

// endedCause is why an ask of a task that has ended fails.
func endedCause(r *Request) error {
	if err := r.ctx.Err(); err != nil {
		return err
	}
	return errs.New(errs.Cancelled, "", "the task has ended")
}

// update takes a tasks/update's answers: keys not pending are ignored; an
// answer of the wrong shape fails the update (-32602) and is not taken.
func (t *serverTask) update(responses map[string]json.RawMessage) *jsonrpc.Error {
	t.mu.Lock()
	for k, a := range responses {
		if in := t.pending[k]; in != nil {
			if problem := answerProblem(in.method, a); problem != "" {
				t.mu.Unlock()
				return rpcError(jsonrpc.CodeInvalidParams, "inputResponses."+k+" is not an answer to "+in.method+": "+problem, nil)
			}
		}
	}
	var ready []*taskAsk
	for k, a := range responses {
		in := t.pending[k]
		if in == nil {
			continue
		}
		delete(t.pending, k)
		t.order = slices.DeleteFunc(t.order, func(o string) bool { return o == k })
		in.ask.answers[in.key] = a
		if in.ask.left--; in.ask.left == 0 {
			ready = append(ready, in.ask)
		}
	}
	left := len(t.pending)
	t.mu.Unlock()
	if left == 0 && len(ready) > 0 {
		t.setStatus("working", "")
	}
	for _, a := range ready {
		a.cb(a.answers, a.keys, nil)
	}
	return nil
}

func withRelatedTask(params json.RawMessage, id string) json.RawMessage {
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil || p == nil {
		p = map[string]json.RawMessage{}
	}
	var meta map[string]json.RawMessage
	json.Unmarshal(p["_meta"], &meta)
	if meta == nil {
		meta = map[string]json.RawMessage{}
	}
	meta["io.modelcontextprotocol/related-task"] = json.RawMessage(`{"taskId":` + jsonscan.Quote(id) + `}`)
	p["_meta"], _ = json.Marshal(meta)
	b, _ := json.Marshal(p)
	return b
}

// route is the request a legacy task's messages travel with: a waiting
// tasks/result (its stream is open), else the call that made it.
func (r *Request) route() jsonrpc.ID {
	if t := r.task.Load(); t != nil {
		t.mu.Lock()
		defer t.mu.Unlock()
		if n := len(t.waiting); n > 0 {
			return t.waiting[n-1]
		}
	}
	return r.ID
}

var errTasksNotDeclared = rpcError(CodeMissingClientCapability, "Missing required client capability: the "+TasksExtension+" extension (declare it in _meta clientCapabilities.extensions)",
	map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{TasksExtension: map[string]any{}}}})

func taskNotFound(id string) *jsonrpc.Error {
	return rpcError(jsonrpc.CodeInvalidParams, "Failed to retrieve task: Task not found: "+strconv.Quote(id)+" (it never existed, or its ttl passed)", nil)
}

// modernTask serves tasks/get, tasks/update and tasks/cancel (2026-07-28).
func (sc *serverConn) modernTask(m *jsonrpc.Message, caps clientCapabilities) {
	reply := func(b json.RawMessage, rerr *jsonrpc.Error) {
		if rerr != nil {
			sc.conn.Reply(m.ID, nil, rerr)
			return
		}
		sc.conn.Reply(m.ID, sc.srv.modernResult(m.Method, b), nil)
	}
	if _, ok := caps.Extensions[TasksExtension]; !ok {
		reply(nil, errTasksNotDeclared)
		return
	}
	var p struct {
		TaskID         string                     `json:"taskId"`
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
	}
	if json.Unmarshal(m.Params, &p) != nil || p.TaskID == "" {
		reply(nil, rpcError(jsonrpc.CodeInvalidParams, m.Method+" needs params.taskId", nil))
		return
	}
	t := sc.findTask(p.TaskID, EraModern)
	if t == nil {
		reply(nil, taskNotFound(p.TaskID))
		return
	}
	switch m.Method {
	case "tasks/get":
		reply(t.encode(false, true), nil)
	case "tasks/update":
		if p.InputResponses == nil && string(jsonscan.Member(m.Params, "inputResponses")) != "{}" {
			reply(nil, rpcError(jsonrpc.CodeInvalidParams, "tasks/update needs params.inputResponses, an object of answers by key", nil))
			return
		}
		if rerr := t.update(p.InputResponses); rerr != nil {
			reply(nil, rerr)
			return
		}
		reply(json.RawMessage("{}"), nil)
	case "tasks/cancel":
		t.stop("cancelled", "cancelled by the client", errs.New(errs.Cancelled, "", "the client cancelled the task"))
		reply(json.RawMessage("{}"), nil)
	}
}

// legacyTask serves tasks/get, tasks/result, tasks/list and tasks/cancel
// of a session (2025-11-25).
func (sc *serverConn) legacyTask(m *jsonrpc.Message) {
	if m.Method == "tasks/list" {
		sc.listTasks(m)
		return
	}
	id := ""
	if v, ok := jsonscan.UnquoteSimple(jsonscan.Member(m.Params, "taskId")); ok {
		id = v
	} else {
		json.Unmarshal(jsonscan.Member(m.Params, "taskId"), &id)
	}
	t := sc.findTask(id, EraLegacy)
	if t == nil {
		sc.conn.Reply(m.ID, nil, taskNotFound(id))
		return
	}
	switch m.Method {
	case "tasks/get":
		sc.conn.Reply(m.ID, t.encode(false, false), nil)
	case "tasks/cancel":
		t.mu.Lock()
		status := t.status
		t.mu.Unlock()
		if terminal(status) {
			sc.conn.Reply(m.ID, nil, rpcError(jsonrpc.CodeInvalidParams, "task "+id+" has ended ("+status+"); only a running task can be cancelled", nil))
			return
		}
		t.stop("cancelled", "cancelled by the client", errs.New(errs.Cancelled, "", "the client cancelled the task"))
		sc.conn.Reply(m.ID, t.encode(false, false), nil)
	case "tasks/result":
		t.mu.Lock()
		if len(t.waiting) >= maxResultWaiters {
			t.mu.Unlock()
			sc.conn.Reply(m.ID, nil, rpcError(jsonrpc.CodeInvalidRequest, "task "+id+" already has "+strconv.Itoa(maxResultWaiters)+" tasks/result requests waiting: wait for one of them", nil))
			return
		}
		t.waiting = append(t.waiting, m.ID)
		t.mu.Unlock()
		answer := func() {
			t.mu.Lock()
			t.waiting = slices.DeleteFunc(t.waiting, func(w jsonrpc.ID) bool { return w == m.ID })
			res, rerr, status := t.result, t.rerr, t.status
			t.mu.Unlock()
			switch {
			case rerr != nil:
				sc.conn.Reply(m.ID, nil, rerr)
			case status == "cancelled" || res == nil:
				sc.conn.Reply(m.ID, nil, rpcError(jsonrpc.CodeInternalError, "task "+id+" was "+status+" before it had a result", nil))
			default:
				sc.conn.Reply(m.ID, withRelatedTask(res, id), nil)
			}
		}
		select {
		case <-t.done:
			answer()
		default:
			// Wait without holding the reader: the session's other
			// requests (the answers to this task's asks) go on.
			go func() {
				select {
				case <-t.done:
				case <-sc.conn.Done():
					return
				}
				answer()
			}()
		}
	}
}

const taskPage = 50

// maxResultWaiters bounds the tasks/result requests waiting on one task
// (each holds a goroutine until the task ends).
const maxResultWaiters = 8

// listTasks is tasks/list: the session's tasks, newest last, in pages.
func (sc *serverConn) listTasks(m *jsonrpc.Message) {
	st := &sc.srv.tasks
	st.mu.Lock()
	var ts []*serverTask
	for _, t := range st.m {
		if t.sc == sc {
			ts = append(ts, t)
		}
	}
	st.mu.Unlock()
	slices.SortFunc(ts, func(a, b *serverTask) int {
		if c := a.created.Compare(b.created); c != 0 {
			return c
		}
		return strings.Compare(a.id, b.id)
	})
	start := 0
	if c := jsonscan.Member(m.Params, "cursor"); c != nil {
		var cur string
		json.Unmarshal(c, &cur)
		i := slices.IndexFunc(ts, func(t *serverTask) bool { return t.id == cur })
		if i < 0 {
			sc.conn.Reply(m.ID, nil, rpcError(jsonrpc.CodeInvalidParams, "unknown cursor (the task it named has ended): list again without it", nil))
			return
		}
		start = i
	}
	b := []byte(`{"tasks":[`)
	end := min(start+taskPage, len(ts))
	for i, t := range ts[start:end] {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, t.encode(false, false)...)
	}
	b = append(b, ']')
	if end < len(ts) {
		b = append(b, `,"nextCursor":`...)
		b = jsonscan.AppendString(b, ts[end].id)
	}
	sc.conn.Reply(m.ID, append(b, '}'), nil)
}

// hasTaskTools reports whether any registered tool supports tasks.
func (reg *registry) hasTaskTools() bool {
	reg.mu.RLock()
	defer reg.mu.RUnlock()
	found := false
	reg.tools.each(func(t *serverTool) bool {
		found = t.task != ""
		return !found
	})
	return found
}
