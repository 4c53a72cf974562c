// Command fake is a scripted MCP server for luagent's tests: it speaks
// either era (or both) over stdio and misbehaves on request, one quirk per
// pitfall the client must survive. Every line it receives is appended to
// the file named by -log, so tests can assert the wire transcript.
//
//	fake -era legacy -probe method-not-found
//	fake -era modern -quirk no-result-type
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

var (
	era        = flag.String("era", "dual", "legacy, modern or dual")
	probe      = flag.String("probe", "", "how a legacy server answers server/discover: method-not-found, invalid-params, silent, exit, junk, invalid-jsonrpc, legacy-discover, unsupported-legacy, unsupported-modern, old-code, late")
	quirk      = flag.String("quirk", "", "comma-separated misbehaviours: no-result-type, unknown-result-type, junk-lines, exit-on-initialize-first-run, no-capabilities (declare {}), no-tools-list (tools/list: -32601), silent-tools-list (tools/list: no answer)")
	logFile    = flag.String("log", "", "append every received line to this file")
	nTools     = flag.Int("tools", 0, "extra tools tool_1..tool_N")
	pageSize   = flag.Int("page", 0, "tools/list page size (0 = no pagination)")
	lateDelay  = flag.Duration("late", 300*time.Millisecond, "delay of a late discover answer")
	startDelay = flag.Duration("start-delay", 0, "sleep before reading stdin (a slow starter)")
)

type msg struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

type server struct {
	out       *bufio.Writer
	mu        sync.Mutex
	logf      *os.File
	quirks    map[string]bool
	mode      string // "" until decided: legacy or modern
	initDone  bool
	nextID    int
	pending   map[string]chan msg // our server->client requests (legacy)
	cancelled sync.Map            // request id -> chan struct{}
	subs      map[string]bool
	listenID  json.RawMessage
	tasks     map[string]*task
}

type task struct {
	id       string
	progress bool // report progress: legacy on the call's token, modern on each tasks/get's
	polls    int
	status   string
	result   json.RawMessage
	input    bool          // modern: waiting for the client's answer
	answered chan struct{} // closed when it came: only then does the task finish
}

func main() {
	flag.Parse()
	time.Sleep(*startDelay)
	s := &server{out: bufio.NewWriter(os.Stdout), quirks: map[string]bool{}, pending: map[string]chan msg{}, subs: map[string]bool{}, tasks: map[string]*task{}}
	for _, q := range strings.Split(*quirk, ",") {
		if q != "" {
			s.quirks[q] = true
		}
	}
	if *logFile != "" {
		f, err := os.OpenFile(*logFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err == nil {
			s.logf = f
		}
	}
	fmt.Fprintln(os.Stderr, "fake server starting, era", *era)
	in := bufio.NewReader(os.Stdin)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			if s.logf != nil {
				s.logf.Write(line)
			}
			var m msg
			if json.Unmarshal(line, &m) != nil {
				continue
			}
			s.handle(m)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "fake server: stdin closed")
			return
		}
	}
}

func (s *server) send(v any) {
	b, _ := json.Marshal(v)
	s.mu.Lock()
	s.out.Write(b)
	s.out.WriteByte('\n')
	s.out.Flush()
	s.mu.Unlock()
}

func (s *server) raw(line string) {
	s.mu.Lock()
	s.out.WriteString(line + "\n")
	s.out.Flush()
	s.mu.Unlock()
}

func (s *server) reply(id json.RawMessage, result any) {
	s.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

func (s *server) fail(id json.RawMessage, code int, message string, data any) {
	e := map[string]any{"code": code, "message": message}
	if data != nil {
		e["data"] = data
	}
	s.send(map[string]any{"jsonrpc": "2.0", "id": id, "error": e})
}

func (s *server) notify(method string, params any) {
	s.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// result adds what a modern result needs: resultType (unless a quirk says
// otherwise) and server info.
func (s *server) result(r map[string]any) map[string]any {
	if s.mode == "modern" {
		switch {
		case s.quirks["no-result-type"]:
		case s.quirks["unknown-result-type"]:
			r["resultType"] = "mystery"
		default:
			if _, ok := r["resultType"]; !ok {
				r["resultType"] = "complete"
			}
		}
		r["_meta"] = map[string]any{"io.modelcontextprotocol/serverInfo": map[string]string{"name": "fake", "version": "1.0"}}
	}
	return r
}

func (s *server) handle(m msg) {
	if m.Method == "" { // a response to our request
		s.mu.Lock()
		ch := s.pending[string(m.ID)]
		delete(s.pending, string(m.ID))
		s.mu.Unlock()
		if ch != nil {
			ch <- m
		}
		return
	}
	if m.Method == "notifications/cancelled" {
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		json.Unmarshal(m.Params, &p)
		if ch, ok := s.cancelled.Load(string(p.RequestID)); ok {
			close(ch.(chan struct{}))
		}
		if string(p.RequestID) == string(s.listenID) {
			s.listenID = nil
		}
		return
	}
	if len(m.ID) == 0 {
		return // other notifications
	}
	if s.quirks["junk-lines"] {
		s.raw("this is not JSON: a server logging to stdout")
		s.raw("")
	}
	switch {
	case m.Method == "server/discover":
		s.discover(m)
	case m.Method == "initialize":
		s.initialize(m)
	case m.Method == "ping":
		s.reply(m.ID, map[string]any{})
	default:
		if s.mode == "" {
			if *era == "legacy" {
				s.fail(m.ID, -32600, "not initialized", nil)
				return
			}
			s.mode = "modern"
		}
		go s.request(m)
	}
}

func (s *server) discover(m msg) {
	if *era == "legacy" {
		switch *probe {
		case "method-not-found", "":
			s.fail(m.ID, -32601, "Method not found", nil)
		case "invalid-params":
			s.fail(m.ID, -32602, "Invalid request parameters", nil)
		case "silent":
		case "exit":
			fmt.Fprintln(os.Stderr, "fake server: expected initialize first; exiting")
			os.Exit(1)
		case "junk":
			s.raw("Error: unknown method server/discover")
		case "invalid-jsonrpc":
			s.raw(`{"hello":"world"}`)
		case "legacy-discover":
			s.reply(m.ID, map[string]any{"supportedVersions": []string{"2025-11-25", "2025-06-18"}, "capabilities": map[string]any{"tools": map[string]any{}}})
		case "unsupported-legacy":
			s.fail(m.ID, -32022, "Unsupported protocol version", map[string]any{"supported": []string{"2025-11-25"}, "requested": "2026-07-28"})
		case "old-code":
			s.fail(m.ID, -32004, "Unsupported protocol version (pre-release code)", nil)
		case "late":
			go func() {
				time.Sleep(*lateDelay)
				s.reply(m.ID, map[string]any{"resultType": "complete", "supportedVersions": []string{"2026-07-28"}, "capabilities": map[string]any{}, "ttlMs": 0, "cacheScope": "public"})
			}()
		}
		return
	}
	if *probe == "unsupported-modern" {
		s.fail(m.ID, -32022, "Unsupported protocol version", map[string]any{"supported": []string{"2026-07-28", "2025-11-25"}, "requested": "x"})
		return
	}
	s.mode = "modern"
	s.reply(m.ID, s.result(map[string]any{
		"supportedVersions": []string{"2026-07-28"},
		"capabilities": s.capabilities(map[string]any{
			"tools":      map[string]any{"listChanged": true},
			"resources":  map[string]any{"subscribe": true, "listChanged": true},
			"prompts":    map[string]any{},
			"logging":    map[string]any{},
			"extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}},
		}),
		"instructions": "a fake server for tests",
		"ttlMs":        60000,
		"cacheScope":   "public",
	}))
}

func (s *server) initialize(m msg) {
	if *era == "modern" {
		s.fail(m.ID, -32022, "Unsupported protocol version", map[string]any{"supported": []string{"2026-07-28"}, "requested": "2025-11-25"})
		return
	}
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	json.Unmarshal(m.Params, &p)
	s.mode = "legacy"
	version := "2025-11-25"
	if p.ProtocolVersion == "2025-06-18" || p.ProtocolVersion == "2024-11-05" {
		version = p.ProtocolVersion
	}
	s.reply(m.ID, map[string]any{
		"protocolVersion": version,
		"capabilities": s.capabilities(map[string]any{
			"tools":     map[string]any{"listChanged": true},
			"resources": map[string]any{"subscribe": true, "listChanged": true},
			"prompts":   map[string]any{},
			"logging":   map[string]any{},
			"tasks":     map[string]any{"list": map[string]any{}, "cancel": map[string]any{}, "requests": map[string]any{"tools": map[string]any{"call": map[string]any{}}}},
		}),
		"serverInfo":   map[string]string{"name": "fake", "version": "1.0"},
		"instructions": "a fake server for tests",
	})
}

// capabilities is caps, or {} with the no-capabilities quirk (a server
// that declares nothing, as many small hand-written ones do).
func (s *server) capabilities(caps map[string]any) map[string]any {
	if s.quirks["no-capabilities"] {
		return map[string]any{}
	}
	return caps
}

// ask sends a server→client request (legacy) and waits for the answer.
func (s *server) ask(method string, params any) msg {
	s.mu.Lock()
	s.nextID++
	id := json.RawMessage(strconv.Quote("srv-" + strconv.Itoa(s.nextID)))
	ch := make(chan msg, 1)
	s.pending[string(id)] = ch
	s.mu.Unlock()
	s.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return <-ch
}

type callParams struct {
	Name           string                     `json:"name"`
	URI            string                     `json:"uri"`
	Cursor         string                     `json:"cursor"`
	Arguments      map[string]any             `json:"arguments"`
	Meta           map[string]json.RawMessage `json:"_meta"`
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
	RequestState   *string                    `json:"requestState"`
	TaskID         string                     `json:"taskId"`
	Task           json.RawMessage            `json:"task"`
	Level          string                     `json:"level"`
	Notifications  map[string]any             `json:"notifications"`
}

func (s *server) tools() []map[string]any {
	str := func(props ...string) map[string]any {
		p := map[string]any{}
		for _, k := range props {
			p[k] = map[string]any{"type": "string"}
		}
		return map[string]any{"type": "object", "properties": p, "required": props}
	}
	list := []map[string]any{
		{"name": "echo", "inputSchema": str("message")},
		{"name": "add", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "number"}, "b": map[string]any{"type": "number"}}, "required": []string{"a", "b"}}},
		{"name": "slow", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{"seconds": map[string]any{"type": "number"}, "progress": map[string]any{"type": "boolean"}, "step_ms": map[string]any{"type": "number"}}}},
		{"name": "crash", "inputSchema": map[string]any{"type": "object"}},
		{"name": "big", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{"bytes": map[string]any{"type": "integer"}}}},
		{"name": "ask", "inputSchema": map[string]any{"type": "object"}},
		{"name": "sample", "inputSchema": map[string]any{"type": "object"}},
		{"name": "roots", "inputSchema": map[string]any{"type": "object"}},
		{"name": "state_only", "inputSchema": map[string]any{"type": "object"}},
		{"name": "fail", "inputSchema": map[string]any{"type": "object"}},
		{"name": "long_task", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{"seconds": map[string]any{"type": "number"}, "progress": map[string]any{"type": "boolean"}}}, "execution": map[string]any{"taskSupport": "optional"}},
		{"name": "notify", "inputSchema": map[string]any{"type": "object"}},
		{"name": "ping_client", "inputSchema": map[string]any{"type": "object"}},
	}
	for i := 1; i <= *nTools; i++ {
		list = append(list, map[string]any{"name": "tool_" + strconv.Itoa(i), "inputSchema": map[string]any{"type": "object"}})
	}
	return list
}

func text(t string) map[string]any {
	return map[string]any{"content": []any{map[string]any{"type": "text", "text": t}}}
}

func (s *server) request(m msg) {
	var p callParams
	json.Unmarshal(m.Params, &p)
	if s.mode == "modern" && (p.Meta == nil || len(p.Meta["io.modelcontextprotocol/protocolVersion"]) == 0 || len(p.Meta["io.modelcontextprotocol/clientCapabilities"]) == 0) {
		s.fail(m.ID, -32602, "missing required _meta keys", nil)
		return
	}
	switch m.Method {
	case "tools/list":
		if s.quirks["no-tools-list"] {
			s.fail(m.ID, -32601, "Method not found", nil)
			return
		}
		if s.quirks["silent-tools-list"] {
			return
		}
		all := s.tools()
		start := 0
		if p.Cursor != "" {
			start, _ = strconv.Atoi(strings.TrimPrefix(p.Cursor, "c"))
		}
		end := len(all)
		r := map[string]any{"ttlMs": 60000, "cacheScope": "public"}
		if *pageSize > 0 && start+*pageSize < len(all) {
			end = start + *pageSize
			r["nextCursor"] = "c" + strconv.Itoa(end)
		}
		r["tools"] = all[start:end]
		s.reply(m.ID, s.result(r))
	case "tools/call":
		s.call(m, p)
	case "resources/list":
		s.reply(m.ID, s.result(map[string]any{"resources": []any{map[string]any{"uri": "test://static", "name": "static", "mimeType": "text/plain"}}, "ttlMs": 0, "cacheScope": "public"}))
	case "resources/templates/list":
		s.reply(m.ID, s.result(map[string]any{"resourceTemplates": []any{map[string]any{"uriTemplate": "test://items/{id}", "name": "item"}}, "ttlMs": 0, "cacheScope": "public"}))
	case "resources/read":
		if p.URI == "test://missing" {
			if s.mode == "modern" {
				s.fail(m.ID, -32602, "Resource not found", map[string]string{"uri": p.URI})
			} else {
				s.fail(m.ID, -32002, "Resource not found", map[string]string{"uri": p.URI})
			}
			return
		}
		s.reply(m.ID, s.result(map[string]any{"contents": []any{map[string]any{"uri": p.URI, "mimeType": "text/plain", "text": "content of " + p.URI}}, "ttlMs": 0, "cacheScope": "public"}))
	case "resources/subscribe":
		// Requests run on goroutines of their own: the maps need the lock.
		s.mu.Lock()
		s.subs[p.URI] = true
		s.mu.Unlock()
		s.reply(m.ID, map[string]any{})
		go func() {
			time.Sleep(50 * time.Millisecond)
			s.notify("notifications/resources/updated", map[string]any{"uri": p.URI})
		}()
	case "resources/unsubscribe":
		s.mu.Lock()
		delete(s.subs, p.URI)
		s.mu.Unlock()
		s.reply(m.ID, map[string]any{})
	case "prompts/list":
		s.reply(m.ID, s.result(map[string]any{"prompts": []any{map[string]any{"name": "greet", "arguments": []any{map[string]any{"name": "name", "required": true}}}}, "ttlMs": 0, "cacheScope": "public"}))
	case "prompts/get":
		name, _ := p.Arguments["name"].(string)
		s.reply(m.ID, s.result(map[string]any{"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "Hello, " + name}}}}))
	case "completion/complete":
		s.reply(m.ID, s.result(map[string]any{"completion": map[string]any{"values": []string{"alice", "alfred"}, "hasMore": false}}))
	case "logging/setLevel":
		s.reply(m.ID, map[string]any{})
		s.notify("notifications/message", map[string]any{"level": p.Level, "data": "level set to " + p.Level})
	case "subscriptions/listen":
		s.listenID = m.ID
		s.notify("notifications/subscriptions/acknowledged", map[string]any{"_meta": map[string]any{"io.modelcontextprotocol/subscriptionId": json.RawMessage(m.ID)}, "notifications": p.Notifications})
		if subs, ok := p.Notifications["resourceSubscriptions"].([]any); ok && len(subs) > 0 {
			go func() {
				time.Sleep(50 * time.Millisecond)
				s.notify("notifications/resources/updated", map[string]any{"_meta": map[string]any{"io.modelcontextprotocol/subscriptionId": json.RawMessage(m.ID)}, "uri": subs[0]})
			}()
		}
	case "tasks/get":
		s.taskGet(m, p)
	case "tasks/result":
		// Blocks until the task ends, as the spec says.
		for {
			s.mu.Lock()
			t := s.tasks[p.TaskID]
			var status string
			var result json.RawMessage
			if t != nil {
				status, result = t.status, t.result
			}
			s.mu.Unlock()
			switch {
			case t == nil:
				s.fail(m.ID, -32602, "unknown task", nil)
				return
			case status == "completed":
				s.reply(m.ID, result)
				return
			case status == "cancelled":
				s.fail(m.ID, -32603, "task cancelled", nil)
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	case "tasks/cancel":
		s.mu.Lock()
		if t := s.tasks[p.TaskID]; t != nil {
			t.status = "cancelled"
		}
		s.mu.Unlock()
		s.reply(m.ID, s.result(map[string]any{}))
	case "tasks/update":
		s.mu.Lock()
		if t := s.tasks[p.TaskID]; t != nil && t.input {
			t.input = false
			close(t.answered)
		}
		s.mu.Unlock()
		s.reply(m.ID, s.result(map[string]any{}))
	default:
		s.fail(m.ID, -32601, "Method not found: "+m.Method, nil)
	}
}

func (s *server) call(m msg, p callParams) {
	switch p.Name {
	case "echo":
		msgText, _ := p.Arguments["message"].(string)
		s.reply(m.ID, s.result(text(msgText)))
	case "add":
		a, _ := p.Arguments["a"].(float64)
		b, _ := p.Arguments["b"].(float64)
		r := text(strconv.FormatFloat(a+b, 'g', -1, 64))
		r["structuredContent"] = map[string]any{"sum": a + b}
		s.reply(m.ID, s.result(r))
	case "slow":
		secs, _ := p.Arguments["seconds"].(float64)
		withProgress, _ := p.Arguments["progress"].(bool)
		done := make(chan struct{})
		s.cancelled.Store(string(m.ID), done)
		tok := p.Meta["progressToken"]
		step := 100 * time.Millisecond // between progress notifications
		if ms, ok := p.Arguments["step_ms"].(float64); ok && ms > 0 {
			step = time.Duration(ms * float64(time.Millisecond))
		}
		steps := int(time.Duration(secs*float64(time.Second)) / step)
		for i := 0; i < steps; i++ {
			select {
			case <-done:
				fmt.Fprintln(os.Stderr, "fake server: slow cancelled")
				return
			case <-time.After(step):
			}
			if withProgress && len(tok) > 0 {
				s.notify("notifications/progress", map[string]any{"progressToken": tok, "progress": i + 1, "total": steps, "message": "step " + strconv.Itoa(i+1)})
			}
		}
		s.reply(m.ID, s.result(text("slept")))
	case "crash":
		fmt.Fprintln(os.Stderr, "fake server: about to crash")
		fmt.Fprintln(os.Stderr, "fatal: the crash tool was called")
		os.Exit(3)
	case "big":
		n, _ := p.Arguments["bytes"].(float64)
		s.reply(m.ID, s.result(text(strings.Repeat("x", int(n)))))
	case "fail":
		r := text("it failed")
		r["isError"] = true
		s.reply(m.ID, s.result(r))
	case "notify":
		s.notify("notifications/tools/list_changed", map[string]any{})
		s.notify("notifications/message", map[string]any{"level": "info", "logger": "fake", "data": map[string]any{"note": "hello"}})
		s.reply(m.ID, s.result(text("notified")))
	case "ask", "sample", "roots":
		s.needsInput(m, p)
	case "ping_client":
		ans := s.ask("ping", map[string]any{})
		s.reply(m.ID, s.result(text("ping answered: "+string(ans.Result))))
	case "state_only":
		// A state-only input_required: no inputRequests, just requestState.
		if p.RequestState == nil {
			s.reply(m.ID, map[string]any{"resultType": "input_required", "requestState": "step-1"})
			return
		}
		s.reply(m.ID, s.result(text("resumed from "+*p.RequestState)))
	case "long_task":
		s.startTask(m, p)
	default:
		if strings.HasPrefix(p.Name, "tool_") {
			s.reply(m.ID, s.result(text(p.Name)))
			return
		}
		if s.mode == "modern" {
			s.fail(m.ID, -32602, "Unknown tool: "+p.Name, nil)
		} else {
			s.fail(m.ID, -32602, "Unknown tool: "+p.Name, nil)
		}
	}
}

var inputMethods = map[string]string{"ask": "elicitation/create", "sample": "sampling/createMessage", "roots": "roots/list"}
var inputParams = map[string]any{
	"ask":    map[string]any{"mode": "form", "message": "What is your name?", "requestedSchema": map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []string{"name"}}},
	"sample": map[string]any{"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "Say hi"}}}, "maxTokens": 10},
	"roots":  map[string]any{},
}

// needsInput asks the client for input: a server→client request (legacy) or
// an input_required round with a requestState that must come back
// byte-for-byte (modern).
func (s *server) needsInput(m msg, p callParams) {
	method := inputMethods[p.Name]
	if s.mode == "legacy" {
		ans := s.ask(method, inputParams[p.Name])
		if len(ans.Error) > 0 {
			s.reply(m.ID, map[string]any{"content": []any{map[string]any{"type": "text", "text": "client error: " + string(ans.Error)}}, "isError": true})
			return
		}
		s.reply(m.ID, text("answer: "+string(ans.Result)))
		return
	}
	// The state is sent with escapes a JSON encoder would not produce (\u00e9,
	// \/), so an echo that re-encodes it differs byte for byte.
	const state = "opaque \"state\" é/x"
	const stateJSON = `"opaque \"state\" \u00e9\/x"`
	if p.RequestState == nil {
		reqs, _ := json.Marshal(map[string]any{"q1": map[string]any{"method": method, "params": inputParams[p.Name]}})
		s.raw(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"resultType":"input_required","inputRequests":` + string(reqs) + `,"requestState":` + stateJSON + `}}`)
		return
	}
	if *p.RequestState != state {
		s.fail(m.ID, -32602, "requestState was altered", nil)
		return
	}
	s.reply(m.ID, s.result(text("answer: "+string(p.InputResponses["q1"]))))
}

func (s *server) startTask(m msg, p callParams) {
	secs, _ := p.Arguments["seconds"].(float64)
	useTask := (s.mode == "legacy" && len(p.Task) > 0) || s.mode == "modern"
	if s.mode == "modern" {
		var caps struct {
			Extensions map[string]any `json:"extensions"`
		}
		json.Unmarshal(p.Meta["io.modelcontextprotocol/clientCapabilities"], &caps)
		if _, ok := caps.Extensions["io.modelcontextprotocol/tasks"]; !ok {
			useTask = false
		}
	}
	if !useTask {
		time.Sleep(time.Duration(secs * float64(time.Second)))
		s.reply(m.ID, s.result(text("done without a task")))
		return
	}
	s.mu.Lock()
	s.nextID++
	id := "task-" + strconv.Itoa(s.nextID)
	withProgress, _ := p.Arguments["progress"].(bool)
	t := &task{id: id, status: "working", progress: withProgress, input: s.mode == "modern" && !withProgress, answered: make(chan struct{})}
	if !t.input {
		close(t.answered)
	}
	s.tasks[id] = t
	s.mu.Unlock()
	replied := make(chan struct{})
	defer close(replied)
	go func() {
		// However late the client polls, it sees the input request first.
		<-t.answered
		<-replied
		if tok := p.Meta["progressToken"]; t.progress && s.mode == "legacy" && len(tok) > 0 {
			// A task's progress goes on the call's token until it ends.
			for i := 1; i <= 2; i++ {
				s.notify("notifications/progress", map[string]any{"progressToken": tok, "progress": i, "total": 2, "message": "task step " + strconv.Itoa(i)})
			}
		}
		if t.progress && s.mode == "modern" {
			// Done once a poll has carried progress (or, for a client that
			// sends no token on tasks/get, after 2 s).
			for end := time.Now().Add(2 * time.Second); time.Now().Before(end); {
				s.mu.Lock()
				n := t.polls
				s.mu.Unlock()
				if n > 0 {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
		}
		time.Sleep(time.Duration(secs * float64(time.Second)))
		s.mu.Lock()
		defer s.mu.Unlock()
		if t.status == "working" {
			t.status = "completed"
			b, _ := json.Marshal(text("task finished"))
			t.result = b
		}
	}()
	now := time.Now().UTC().Format(time.RFC3339)
	if s.mode == "legacy" {
		s.reply(m.ID, map[string]any{"task": map[string]any{"taskId": id, "status": "working", "createdAt": now, "lastUpdatedAt": now, "ttl": 60000, "pollInterval": 50}})
		return
	}
	s.reply(m.ID, map[string]any{"resultType": "task", "taskId": id, "status": "working", "createdAt": now, "lastUpdatedAt": now, "ttlMs": 60000, "pollIntervalMs": 50})
}

func (s *server) taskGet(m msg, p callParams) {
	s.mu.Lock()
	t := s.tasks[p.TaskID]
	s.mu.Unlock()
	if t == nil {
		s.fail(m.ID, -32602, "unknown task", nil)
		return
	}
	now := time.Now().UTC().Format(time.RFC3339)
	s.mu.Lock()
	if tok := p.Meta["progressToken"]; t.progress && s.mode == "modern" && t.status == "working" && len(tok) > 0 {
		// Progress on the poll's own token, before its answer (the
		// completion waits for the first such poll).
		n := t.polls + 1
		s.mu.Unlock()
		s.notify("notifications/progress", map[string]any{"progressToken": tok, "progress": n, "message": "task poll " + strconv.Itoa(n)})
		s.mu.Lock()
		t.polls = n
	}
	r := map[string]any{"taskId": t.id, "status": t.status, "createdAt": now, "lastUpdatedAt": now, "ttlMs": 60000, "pollIntervalMs": 50, "pollInterval": 50}
	if s.mode == "modern" && t.status == "working" && t.input {
		r["status"] = "input_required"
		r["inputRequests"] = map[string]any{"confirm": map[string]any{"method": "elicitation/create", "params": inputParams["ask"]}}
	}
	if t.status == "completed" && s.mode == "modern" {
		r["result"] = json.RawMessage(t.result)
	}
	s.mu.Unlock()
	s.reply(m.ID, s.result(r))
}
