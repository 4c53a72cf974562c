package mcp_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/testkit"
)

// The conformance fixture (examples/conformance/server.lua) driven on the
// wire over stdio, checking what the official judges check
// (stdlib/doc/conformance-fixture.md §7), in both eras. The judges themselves talk
// Streamable HTTP; these transcripts pin the same behaviour on stdio.

const fixturePath = "../../../examples/conformance/server.lua"

// fixtureWire is a raw JSON-RPC peer of `luagent serve`: it records the
// notifications that arrive before each response and answers the server's
// requests with onRequest.
type fixtureWire struct {
	t         *testing.T
	in        io.WriteCloser
	lines     chan map[string]json.RawMessage
	mu        sync.Mutex
	onRequest func(method string, params json.RawMessage) string // a result's JSON
	requests  []string                                           // server→client methods seen
	nextID    int
}

func startFixture(t *testing.T) *fixtureWire {
	t.Helper()
	bin := testkit.Build(t, "cmd/luagent")
	server, _ := filepath.Abs(fixturePath)
	cmd := exec.Command(bin, "serve", server)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Process.Kill(); cmd.Wait() })
	w := &fixtureWire{t: t, in: in, lines: make(chan map[string]json.RawMessage, 1024), nextID: 100}
	go func() {
		r := bufio.NewReader(out)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				close(w.lines)
				return
			}
			var m map[string]json.RawMessage
			if json.Unmarshal(line, &m) != nil {
				t.Errorf("the server wrote a line that is not JSON: %q", line)
				continue
			}
			if m["method"] != nil && m["id"] != nil {
				w.answer(m)
				continue
			}
			w.lines <- m
		}
	}()
	return w
}

func (w *fixtureWire) answer(m map[string]json.RawMessage) {
	var method string
	json.Unmarshal(m["method"], &method)
	w.mu.Lock()
	w.requests = append(w.requests, method)
	h := w.onRequest
	w.mu.Unlock()
	res := `{}`
	if h != nil {
		res = h(method, m["params"])
	}
	w.send(`{"jsonrpc":"2.0","id":` + string(m["id"]) + `,"result":` + res + `}`)
}

func (w *fixtureWire) send(line string) {
	// One message per line: fold the test's multi-line JSON.
	var buf bytes.Buffer
	if json.Compact(&buf, []byte(line)) == nil {
		line = buf.String()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := io.WriteString(w.in, line+"\n"); err != nil {
		w.t.Error(err)
	}
}

// sub runs a subtest on the same server, failing the subtest (not the
// parent) when the wire breaks.
func (w *fixtureWire) sub(t *testing.T, name string, fn func(*testing.T, *fixtureWire)) {
	t.Run(name, func(t *testing.T) {
		parent := w.t
		w.t = t
		defer func() { w.t = parent }()
		fn(t, w)
	})
}

// exchange is one request's response and the notifications before it.
type exchange struct {
	Result json.RawMessage
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	Notes []note
}

type note struct {
	Method string
	Params json.RawMessage
}

// call sends a request and waits for its response.
func (w *fixtureWire) call(method, params string) exchange {
	w.t.Helper()
	w.mu.Lock()
	w.nextID++
	id := w.nextID
	w.mu.Unlock()
	if params == "" {
		w.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q}`, id, method))
	} else {
		w.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params))
	}
	return w.until(fmt.Sprint(id))
}

// until collects notifications until the response with id arrives.
func (w *fixtureWire) until(id string) exchange {
	w.t.Helper()
	var ex exchange
	timeout := time.After(15 * time.Second)
	for {
		select {
		case m, ok := <-w.lines:
			if !ok {
				w.t.Fatal("the server closed its output")
			}
			if m["method"] != nil {
				var n note
				json.Unmarshal(m["method"], &n.Method)
				n.Params = m["params"]
				ex.Notes = append(ex.Notes, n)
				continue
			}
			if string(m["id"]) != id {
				w.t.Fatalf("a response to %s while waiting for %s", m["id"], id)
			}
			ex.Result = m["result"]
			if m["error"] != nil {
				json.Unmarshal(m["error"], &ex.Error)
			}
			return ex
		case <-timeout:
			w.t.Fatalf("no response to request %s", id)
		}
	}
}

// notes waits d and returns the notifications that arrived meanwhile.
func (w *fixtureWire) notes(d time.Duration) []note {
	var out []note
	deadline := time.After(d)
	for {
		select {
		case m, ok := <-w.lines:
			if !ok {
				return out
			}
			var n note
			json.Unmarshal(m["method"], &n.Method)
			n.Params = m["params"]
			out = append(out, n)
		case <-deadline:
			return out
		}
	}
}

func (ex exchange) ok(t *testing.T, what string) map[string]any {
	t.Helper()
	if ex.Error != nil {
		t.Fatalf("%s: error %d %s %s", what, ex.Error.Code, ex.Error.Message, ex.Error.Data)
	}
	var m map[string]any
	if err := json.Unmarshal(ex.Result, &m); err != nil {
		t.Fatalf("%s: result %s", what, ex.Result)
	}
	return m
}

func (ex exchange) code(t *testing.T, what string, want int) {
	t.Helper()
	if ex.Error == nil {
		t.Fatalf("%s: want error %d, got result %s", what, want, ex.Result)
	}
	if ex.Error.Code != want {
		t.Fatalf("%s: error %d (%s), want %d", what, ex.Error.Code, ex.Error.Message, want)
	}
}

func (ex exchange) count(method string) int {
	n := 0
	for _, x := range ex.Notes {
		if x.Method == method {
			n++
		}
	}
	return n
}

// text is the first text block of a tool result.
func text(t *testing.T, res map[string]any) string {
	t.Helper()
	c, _ := res["content"].([]any)
	if len(c) == 0 {
		t.Fatalf("no content in %v", res)
	}
	b, _ := c[0].(map[string]any)
	s, _ := b["text"].(string)
	return s
}

func jsonEqual(t *testing.T, what string, got any, want string) {
	t.Helper()
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	g, _ := json.Marshal(got)
	var gg any
	json.Unmarshal(g, &gg)
	if !reflect.DeepEqual(gg, w) {
		t.Errorf("%s:\n got %s\nwant %s", what, g, want)
	}
}

func get(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

// Constants of the fixture (stdlib/doc/conformance-fixture.md §4.1).
const (
	fixturePNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	fixtureWAV = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
)

// modern builds 2026-07-28 params: body (without braces) plus the envelope
// with caps and any extra _meta members.
func modern(body, caps, extraMeta string) string {
	meta := `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"conformance-test-client","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":` + caps
	if extraMeta != "" {
		meta += "," + extraMeta
	}
	if body != "" {
		body += ","
	}
	return "{" + body + `"_meta":{` + meta + "}}"
}

const allCaps = `{"sampling":{},"elicitation":{},"roots":{"listChanged":true}}`

func callTool(name, extra string) string {
	s := `"name":"` + name + `","arguments":{}`
	if extra != "" {
		s += "," + extra
	}
	return s
}

func TestFixtureModern(t *testing.T) {
	w := startFixture(t)
	mcall := func(method, body, caps, meta string) exchange {
		return w.call(method, modern(body, caps, meta))
	}

	// server/discover: without clientInfo too.
	disc := w.call("server/discover", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`).ok(t, "discover")
	if disc["resultType"] != "complete" || get(disc, "ttlMs") == nil || get(disc, "cacheScope") == nil {
		t.Errorf("discover lacks resultType or cache hints: %v", disc)
	}
	jsonEqual(t, "discover capabilities", disc["capabilities"],
		`{"tools":{"listChanged":true},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"completions":{},"logging":{},`+
			`"extensions":{"io.modelcontextprotocol/skills":{"directoryRead":true},"io.modelcontextprotocol/tasks":{}}}`)
	if get(disc, "_meta", "io.modelcontextprotocol/serverInfo", "name") != "luagent-conformance" {
		t.Errorf("discover serverInfo: %v", disc["_meta"])
	}
	supported, _ := disc["supportedVersions"].([]any)

	// Envelope errors, in the judge's order.
	mcall("server/discover", "", "{}", "").ok(t, "discover")
	w.call("server/discover", `{}`).code(t, "discover without _meta", -32602)
	w.call("server/discover", `{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}`).code(t, "no protocolVersion", -32602)
	w.call("server/discover", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`).code(t, "no clientCapabilities", -32602)
	v999 := w.call("server/discover", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"v999.0.0","io.modelcontextprotocol/clientCapabilities":{}}}`)
	v999.code(t, "v999", -32022)
	var data struct {
		Supported []any  `json:"supported"`
		Requested string `json:"requested"`
	}
	json.Unmarshal(v999.Error.Data, &data)
	if data.Requested != "v999.0.0" || len(data.Supported) == 0 {
		t.Errorf("-32022 data: %s", v999.Error.Data)
	}
	for _, v := range data.Supported {
		found := false
		for _, s := range supported {
			found = found || s == v
		}
		if !found {
			t.Errorf("-32022 lists %v, which discover does not", v)
		}
	}
	// Methods the 2026 era removed, and unknown ones.
	for _, m := range []string{"ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe", "unknown/method"} {
		mcall(m, `"level":"info","uri":"test://watched-resource"`, allCaps, "").code(t, m, -32601)
	}

	// tools/list: descriptions, object schemas, test_simple_text first, the
	// diagnostic tools present, the same order twice, 2020-12 kept as written.
	list := mcall("tools/list", "", "{}", "").ok(t, "tools/list")
	if list["resultType"] != "complete" || list["ttlMs"] == nil || list["cacheScope"] == nil {
		t.Errorf("tools/list lacks resultType or cache hints")
	}
	tools, _ := list["tools"].([]any)
	var names []string
	var schema2020 any
	for _, x := range tools {
		name, _ := get(x, "name").(string)
		names = append(names, name)
		if d, _ := get(x, "description").(string); d == "" {
			t.Errorf("tool %s has no description", name)
		}
		if get(x, "inputSchema", "type") != "object" {
			t.Errorf("tool %s: inputSchema.type is not object", name)
		}
		if name == "json_schema_2020_12_tool" {
			schema2020 = get(x, "inputSchema")
		}
	}
	if len(names) == 0 || names[0] != "test_simple_text" {
		t.Fatalf("tools: %v", names)
	}
	for _, want := range []string{"test_image_content", "test_audio_content", "test_embedded_resource", "test_multiple_content_types",
		"test_tool_with_logging", "test_tool_with_progress", "test_error_handling", "test_sampling", "test_elicitation",
		"test_elicitation_sep1034_defaults", "test_elicitation_sep1330_enums", "test_reconnection", "json_schema_2020_12_tool",
		"test_missing_capability", "test_streaming_elicitation", "test_logging_tool", "test_trigger_tool_change", "test_trigger_prompt_change",
		"test_input_required_result_elicitation", "test_input_required_result_sampling", "test_input_required_result_list_roots",
		"test_input_required_result_request_state", "test_input_required_result_multiple_inputs", "test_input_required_result_multi_round",
		"test_input_required_result_tampered_state", "test_input_required_result_capabilities"} {
		if !strings.Contains(" "+strings.Join(names, " ")+" ", " "+want+" ") {
			t.Errorf("tools/list lacks %s", want)
		}
	}
	jsonEqual(t, "json_schema_2020_12_tool inputSchema", schema2020, `{
	  "$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
	  "$defs": {"address": {"$anchor": "addressDef", "type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
	  "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}, "contactMethod": {"type": "string", "enum": ["phone", "email"]},
	    "phone": {"type": "string"}, "email": {"type": "string"}},
	  "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
	  "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
	  "then": {"required": ["phone"]}, "else": {"required": ["email"]},
	  "additionalProperties": false}`)
	again := mcall("tools/list", "", "{}", "").ok(t, "tools/list again")
	g1, _ := json.Marshal(list["tools"])
	g2, _ := json.Marshal(again["tools"])
	if string(g1) != string(g2) {
		t.Errorf("tools/list changed between two calls")
	}

	// Content tools; test_simple_text called without arguments.
	res := w.call("tools/call", modern(`"name":"test_simple_text"`, "{}", "")).ok(t, "simple text")
	if res["resultType"] != "complete" || text(t, res) != "This is a simple text response for testing." {
		t.Errorf("test_simple_text: %v", res)
	}
	res = mcall("tools/call", callTool("test_image_content", ""), "{}", "").ok(t, "image")
	jsonEqual(t, "image", res["content"], `[{"type":"image","data":"`+fixturePNG+`","mimeType":"image/png"}]`)
	res = mcall("tools/call", callTool("test_audio_content", ""), "{}", "").ok(t, "audio")
	jsonEqual(t, "audio", res["content"], `[{"type":"audio","data":"`+fixtureWAV+`","mimeType":"audio/wav"}]`)
	res = mcall("tools/call", callTool("test_embedded_resource", ""), "{}", "").ok(t, "embedded")
	jsonEqual(t, "embedded", res["content"], `[{"type":"resource","resource":{"uri":"test://embedded-resource","mimeType":"text/plain","text":"This is an embedded resource content."}}]`)
	res = mcall("tools/call", callTool("test_multiple_content_types", ""), "{}", "").ok(t, "mixed")
	jsonEqual(t, "mixed", res["content"], `[{"type":"text","text":"Multiple content types test:"},{"type":"image","data":"`+fixturePNG+`","mimeType":"image/png"},
		{"type":"resource","resource":{"uri":"test://mixed-content-resource","mimeType":"application/json","text":"{\"test\":\"data\",\"value\":123}"}}]`)
	res = mcall("tools/call", callTool("test_error_handling", ""), "{}", "").ok(t, "error")
	if res["isError"] != true || text(t, res) != "This tool intentionally returns an error for testing" {
		t.Errorf("test_error_handling: %v", res)
	}
	res = mcall("tools/call", callTool("test_reconnection", ""), "{}", "").ok(t, "reconnection")
	if res["isError"] == true {
		t.Errorf("test_reconnection: %v", res)
	}
	res = mcall("tools/call", `"name":"json_schema_2020_12_tool","arguments":{"name":"Ada","contactMethod":"email","email":"ada@example.com"}`, "{}", "").ok(t, "2020-12")
	if !strings.HasPrefix(text(t, res), "JSON Schema 2020-12 tool called with: {") {
		t.Errorf("json_schema_2020_12_tool: %v", res)
	}

	// Progress: the token echoed with its type, non-decreasing, before the result.
	for _, tok := range []string{`"progress-test-1"`, `7`} {
		ex := mcall("tools/call", callTool("test_tool_with_progress", ""), "{}", `"progressToken":`+tok)
		res := ex.ok(t, "progress")
		last := -1.0
		n := 0
		for _, x := range ex.Notes {
			if x.Method != "notifications/progress" {
				continue
			}
			n++
			var p struct {
				Token    json.RawMessage `json:"progressToken"`
				Progress float64         `json:"progress"`
				Total    float64         `json:"total"`
			}
			json.Unmarshal(x.Params, &p)
			if string(p.Token) != tok || p.Progress < last || p.Total != 100 {
				t.Errorf("progress %s", x.Params)
			}
			last = p.Progress
		}
		if n < 3 || text(t, res) != strings.Trim(tok, `"`) {
			t.Errorf("token %s: %d progress notifications, text %q", tok, n, text(t, res))
		}
	}

	// Logging: only with the request's logLevel.
	ex := mcall("tools/call", callTool("test_tool_with_logging", ""), "{}", `"io.modelcontextprotocol/logLevel":"debug"`)
	if ex.ok(t, "logging"); ex.count("notifications/message") != 3 {
		t.Errorf("test_tool_with_logging with logLevel debug: %d messages", ex.count("notifications/message"))
	}
	for _, x := range ex.Notes {
		var p map[string]any
		json.Unmarshal(x.Params, &p)
		if p["level"] != "info" || p["data"] == nil {
			t.Errorf("log message %s", x.Params)
		}
	}
	ex = mcall("tools/call", callTool("test_tool_with_logging", ""), "{}", `"io.modelcontextprotocol/logLevel":"error"`)
	if ex.ok(t, "logging at error"); ex.count("notifications/message") != 0 {
		t.Errorf("info messages sent to a client that asked for error and above")
	}
	ex = mcall("tools/call", callTool("test_logging_tool", ""), "{}", "")
	if text(t, ex.ok(t, "logging tool")) != "Logging evaluated" || ex.count("notifications/message") != 0 {
		t.Errorf("test_logging_tool without logLevel: %v", ex.Notes)
	}

	// Capabilities: -32021 naming sampling; with it, Success.
	ex = mcall("tools/call", callTool("test_missing_capability", ""), "{}", "")
	ex.code(t, "missing capability", -32021)
	jsonEqual(t, "-32021 data", json.RawMessage(ex.Error.Data), `{"requiredCapabilities":{"sampling":{}}}`)
	if r := mcall("tools/call", callTool("test_missing_capability", ""), `{"sampling":{}}`, "").ok(t, "with sampling"); text(t, r) != "Success" {
		t.Errorf("test_missing_capability with sampling: %v", r)
	}

	// Never a server→client request in this era: input_required instead.
	ex = mcall("tools/call", callTool("test_streaming_elicitation", ""), `{"elicitation":{}}`, "")
	if res := ex.ok(t, "streaming elicitation"); res["resultType"] != "input_required" {
		t.Errorf("test_streaming_elicitation: %v", res)
	}
	for _, tool := range []string{"test_sampling", "test_elicitation"} {
		args := `{"prompt":"Test prompt for sampling"}`
		answer := `{"role":"assistant","content":{"type":"text","text":"This is a test response from the client"},"model":"test-model","stopReason":"endTurn"}`
		want := "LLM response: This is a test response from the client"
		if tool == "test_elicitation" {
			args = `{"message":"Please provide your information"}`
			answer = `{"action":"accept","content":{"username":"testuser","email":"test@example.com"}}`
			want = `User response: action=accept, content={"email":"test@example.com","username":"testuser"}`
		}
		first := mcall("tools/call", `"name":"`+tool+`","arguments":`+args, allCaps, "").ok(t, tool)
		var key string
		for k := range first["inputRequests"].(map[string]any) {
			key = k
		}
		state, _ := json.Marshal(first["requestState"])
		final := mcall("tools/call", `"name":"`+tool+`","arguments":`+args+`,"inputResponses":{"`+key+`":`+answer+`},"requestState":`+string(state), allCaps, "").ok(t, tool+" retry")
		if text(t, final) != want {
			t.Errorf("%s: %q", tool, text(t, final))
		}
	}

	// Listen streams: acknowledged first, then only what each asked for,
	// tagged with its subscription id.
	w.send(`{"jsonrpc":"2.0","id":1800000000001,"method":"subscriptions/listen","params":` + modern(`"notifications":{"toolsListChanged":true}`, "{}", "") + `}`)
	w.send(`{"jsonrpc":"2.0","id":1800000000002,"method":"subscriptions/listen","params":` + modern(`"notifications":{"promptsListChanged":true}`, "{}", "") + `}`)
	acks := w.notes(300 * time.Millisecond)
	if len(acks) != 2 || acks[0].Method != "notifications/subscriptions/acknowledged" || acks[1].Method != "notifications/subscriptions/acknowledged" {
		t.Fatalf("listen acknowledgements: %v", acks)
	}
	for _, a := range acks {
		if id := get(jsonAny(a.Params), "_meta", "io.modelcontextprotocol/subscriptionId"); id != 1800000000001.0 && id != 1800000000002.0 {
			t.Errorf("ack without its subscription id: %s", a.Params)
		}
	}
	ex = mcall("tools/call", callTool("test_trigger_tool_change", ""), "{}", "")
	ex.ok(t, "trigger tools")
	changed := append(ex.Notes, w.notes(200*time.Millisecond)...)
	if len(changed) != 1 || changed[0].Method != "notifications/tools/list_changed" ||
		!strings.Contains(string(changed[0].Params), `"io.modelcontextprotocol/subscriptionId":1800000000001`) {
		t.Errorf("after a tools change: %v", changed)
	}
	ex = mcall("tools/call", callTool("test_trigger_prompt_change", ""), "{}", "")
	ex.ok(t, "trigger prompts")
	changed = append(ex.Notes, w.notes(200*time.Millisecond)...)
	if len(changed) != 1 || changed[0].Method != "notifications/prompts/list_changed" ||
		!strings.Contains(string(changed[0].Params), `"io.modelcontextprotocol/subscriptionId":1800000000002`) {
		t.Errorf("after a prompts change: %v", changed)
	}

	w.sub(t, "mrtr", fixtureMRTR)
	w.sub(t, "resources", func(t *testing.T, w *fixtureWire) { fixtureResources(t, w, true) })
	w.sub(t, "prompts", func(t *testing.T, w *fixtureWire) { fixturePrompts(t, w, true) })
}

func jsonAny(b json.RawMessage) any {
	var v any
	json.Unmarshal(b, &v)
	return v
}

// round is one MRTR exchange's result.
type round struct {
	ResultType    string                     `json:"resultType"`
	InputRequests map[string]json.RawMessage `json:"inputRequests"`
	RequestState  *string                    `json:"requestState"`
	Content       []struct {
		Text string `json:"text"`
	} `json:"content"`
	Messages []json.RawMessage `json:"messages"`
}

func fixtureMRTR(t *testing.T, w *fixtureWire) {
	do := func(method, name, responses, state, caps string) (round, exchange) {
		t.Helper()
		body := callTool(name, "")
		if method == "prompts/get" {
			body = `"name":"` + name + `"`
		}
		if responses != "" {
			body += `,"inputResponses":` + responses
		}
		if state != "" {
			q, _ := json.Marshal(state)
			body += `,"requestState":` + string(q)
		}
		if caps == "" {
			caps = allCaps
		}
		ex := w.call(method, modern(body, caps, ""))
		var r round
		if ex.Error == nil {
			json.Unmarshal(ex.Result, &r)
		}
		return r, ex
	}
	methodOf := func(r round, key string) string {
		var m struct {
			Method string `json:"method"`
		}
		json.Unmarshal(r.InputRequests[key], &m)
		return m.Method
	}
	st := func(r round) string {
		if r.RequestState == nil {
			return ""
		}
		return *r.RequestState
	}
	alice := `{"action":"accept","content":{"name":"Alice"}}`

	// A1: user_name; wrong keys ask again; extra keys ignored; malformed refused.
	r, _ := do("tools/call", "test_input_required_result_elicitation", "", "", "")
	if r.ResultType != "input_required" || methodOf(r, "user_name") != "elicitation/create" {
		t.Fatalf("A1 round 1: %+v", r)
	}
	var p struct {
		Params struct {
			Message         string          `json:"message"`
			RequestedSchema json.RawMessage `json:"requestedSchema"`
		} `json:"params"`
	}
	json.Unmarshal(r.InputRequests["user_name"], &p)
	if p.Params.Message != "What is your name?" {
		t.Errorf("A1 message %q", p.Params.Message)
	}
	jsonEqual(t, "A1 schema", json.RawMessage(p.Params.RequestedSchema), `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)
	if r2, _ := do("tools/call", "test_input_required_result_elicitation", `{"wrong_key":`+alice+`}`, "", ""); r2.ResultType != "input_required" {
		t.Errorf("A1 with the wrong key: %+v", r2)
	}
	r2, _ := do("tools/call", "test_input_required_result_elicitation", `{"user_name":`+alice+`,"unknown_extra_key":{"x":1},"another_unexpected":"y"}`, st(r), "")
	if r2.ResultType != "complete" || len(r2.Content) == 0 || r2.Content[0].Text != "Hello, Alice!" {
		t.Errorf("A1 with extra keys: %+v", r2)
	}
	_, ex := do("tools/call", "test_input_required_result_elicitation", `{"user_name":12345}`, "", "")
	ex.code(t, "A1 user_name 12345", -32602)
	_, ex = do("tools/call", "test_input_required_result_elicitation", `null`, "", "")
	ex.code(t, "A1 inputResponses null", -32602)
	_, ex = do("tools/call", "test_input_required_result_elicitation", `{"user_name":{"action":"maybe"}}`, "", "")
	ex.code(t, "A1 bad action", -32602)

	// A2, A3: first key's method; retry completes.
	r, _ = do("tools/call", "test_input_required_result_sampling", "", "", "")
	if methodOf(r, "capital_question") != "sampling/createMessage" {
		t.Fatalf("A2: %+v", r)
	}
	r2, _ = do("tools/call", "test_input_required_result_sampling", `{"capital_question":{"role":"assistant","content":{"type":"text","text":"Paris"},"model":"m"}}`, st(r), "")
	if r2.ResultType != "complete" || r2.Content[0].Text != "Sampling result: Paris" {
		t.Errorf("A2 retry: %+v", r2)
	}
	r, _ = do("tools/call", "test_input_required_result_list_roots", "", "", "")
	if methodOf(r, "client_roots") != "roots/list" {
		t.Fatalf("A3: %+v", r)
	}
	r2, _ = do("tools/call", "test_input_required_result_list_roots", `{"client_roots":{"roots":[{"uri":"file:///test/root","name":"Test Root"}]}}`, st(r), "")
	if r2.ResultType != "complete" || r2.Content[0].Text != "Found 1 root(s)" {
		t.Errorf("A3 retry: %+v", r2)
	}

	// A4: a string requestState, verified on the retry.
	r, _ = do("tools/call", "test_input_required_result_request_state", "", "", "")
	if r.RequestState == nil || methodOf(r, "confirm") != "elicitation/create" {
		t.Fatalf("A4: %+v", r)
	}
	r2, _ = do("tools/call", "test_input_required_result_request_state", `{"confirm":{"action":"accept","content":{"ok":true}}}`, st(r), "")
	if r2.ResultType != "complete" || !strings.Contains(r2.Content[0].Text, "state-ok") {
		t.Errorf("A4 retry: %+v", r2)
	}

	// A5: three methods in one round.
	r, _ = do("tools/call", "test_input_required_result_multiple_inputs", "", "", "")
	if len(r.InputRequests) != 3 || methodOf(r, "user_name") != "elicitation/create" || methodOf(r, "greeting") != "sampling/createMessage" ||
		methodOf(r, "client_roots") != "roots/list" || r.RequestState == nil {
		t.Fatalf("A5: %+v", r)
	}
	r2, _ = do("tools/call", "test_input_required_result_multiple_inputs", `{"user_name":`+alice+`,
		"greeting":{"role":"assistant","content":{"type":"text","text":"Hello there!"},"model":"m"},
		"client_roots":{"roots":[{"uri":"file:///test/root","name":"Test Root"}]}}`, st(r), "")
	if r2.ResultType != "complete" || r2.Content[0].Text != "Name: Alice; Greeting: Hello there!; Roots: 1" {
		t.Errorf("A5 retry: %+v", r2)
	}

	// A6: two rounds, a different state each time.
	r, _ = do("tools/call", "test_input_required_result_multi_round", "", "", "")
	if methodOf(r, "step1") == "" || r.RequestState == nil {
		t.Fatalf("A6 round 1: %+v", r)
	}
	r2, _ = do("tools/call", "test_input_required_result_multi_round", `{"step1":`+alice+`}`, st(r), "")
	if r2.ResultType != "input_required" || methodOf(r2, "step2") == "" || r2.RequestState == nil || st(r2) == st(r) {
		t.Fatalf("A6 round 2: %+v", r2)
	}
	r3, _ := do("tools/call", "test_input_required_result_multi_round", `{"step2":{"action":"accept","content":{"color":"blue"}}}`, st(r2), "")
	if r3.ResultType != "complete" || r3.Content[0].Text != "Multi-round complete for Alice who likes blue" {
		t.Errorf("A6 round 3: %+v", r3)
	}

	// A7: a tampered state is an error; the genuine one completes.
	r, _ = do("tools/call", "test_input_required_result_tampered_state", "", "", "")
	confirm := `{"confirm":{"action":"accept","content":{"ok":true}}}`
	_, ex = do("tools/call", "test_input_required_result_tampered_state", confirm, st(r)+"-TAMPERED", "")
	ex.code(t, "A7 tampered", -32602)
	r2, _ = do("tools/call", "test_input_required_result_tampered_state", confirm, st(r), "")
	if r2.ResultType != "complete" || r2.Content[0].Text != "integrity-ok: state verified" {
		t.Errorf("A7 genuine: %+v", r2)
	}
	// A state made for one tool is refused by another.
	_, ex = do("tools/call", "test_input_required_result_request_state", confirm, st(r), "")
	ex.code(t, "state of another tool", -32602)

	// A8: only what this request declared.
	r, _ = do("tools/call", "test_input_required_result_capabilities", "", "", `{"sampling":{}}`)
	if r.ResultType != "input_required" || len(r.InputRequests) != 1 || methodOf(r, "sample_input") != "sampling/createMessage" {
		t.Fatalf("A8 with sampling only: %+v", r)
	}
	r2, _ = do("tools/call", "test_input_required_result_capabilities", `{"sample_input":{"role":"assistant","content":{"type":"text","text":"x"},"model":"m"}}`, st(r), `{"sampling":{}}`)
	if r2.ResultType != "complete" || r2.Content[0].Text != "capabilities-ok: received sample_input" {
		t.Errorf("A8 retry: %+v", r2)
	}
	if r, _ = do("tools/call", "test_input_required_result_capabilities", "", "", `{}`); r.ResultType != "complete" || r.Content[0].Text != "No supported capabilities declared" {
		t.Errorf("A8 without capabilities: %+v", r)
	}

	// P1: a prompt with two rounds.
	r, _ = do("prompts/get", "test_input_required_result_prompt", "", "", "")
	if r.ResultType != "input_required" || methodOf(r, "user_context") != "elicitation/create" {
		t.Fatalf("P1: %+v", r)
	}
	r2, _ = do("prompts/get", "test_input_required_result_prompt", `{"user_context":{"action":"accept","content":{"context":"test context"}}}`, st(r), "")
	if r2.ResultType != "complete" || len(r2.Messages) != 1 || !strings.Contains(string(r2.Messages[0]), "Prompt with context: test context") {
		t.Errorf("P1 retry: %+v", r2)
	}

	// Lists never ask.
	for _, m := range []string{"tools/list", "prompts/list"} {
		if res := w.call(m, modern("", allCaps, "")).ok(t, m); res["resultType"] != "complete" {
			t.Errorf("%s: resultType %v", m, res["resultType"])
		}
	}
}

// caller sends requests with params body (without braces) in one era: with
// the 2026 envelope, or bare on an initialized legacy session.
func (w *fixtureWire) caller(isModern bool) func(method, body string) exchange {
	return func(method, body string) exchange {
		if isModern {
			return w.call(method, modern(body, "{}", ""))
		}
		return w.call(method, "{"+body+"}")
	}
}

// fixtureResources checks resources and the template; isModern adds the
// 2026 fields and the not-found code.
func fixtureResources(t *testing.T, w *fixtureWire, isModern bool) {
	call := w.caller(isModern)
	list := call("resources/list", "").ok(t, "resources/list")
	var uris []string
	for _, r := range list["resources"].([]any) {
		uris = append(uris, get(r, "uri").(string))
		if get(r, "name") == nil {
			t.Errorf("resource without a name: %v", r)
		}
	}
	if strings.Join(uris, " ") != "test://static-text test://static-binary test://watched-resource test://embedded-resource test://mixed-content-resource "+
		"skill://pdf-processing/SKILL.md skill://pdf-processing/references/FORMS.md skill://release-notes/SKILL.md" {
		t.Errorf("resources: %v", uris)
	}
	read := func(uri string) map[string]any {
		t.Helper()
		res := call("resources/read", `"uri":"`+uri+`"`).ok(t, uri)
		if isModern && (res["ttlMs"] == nil || res["cacheScope"] == nil || res["resultType"] != "complete") {
			t.Errorf("%s: no cache hints or resultType", uri)
		}
		if !isModern && (res["resultType"] != nil || res["_meta"] != nil) {
			t.Errorf("%s: 2026 fields in a legacy result", uri)
		}
		return get(res, "contents", 0).(map[string]any)
	}
	jsonEqual(t, "static-text", read("test://static-text"), `{"uri":"test://static-text","mimeType":"text/plain","text":"This is the content of the static text resource."}`)
	jsonEqual(t, "static-binary", read("test://static-binary"), `{"uri":"test://static-binary","mimeType":"image/png","blob":"`+fixturePNG+`"}`)
	jsonEqual(t, "watched", read("test://watched-resource"), `{"uri":"test://watched-resource","mimeType":"text/plain","text":"Watched resource content"}`)
	jsonEqual(t, "template", read("test://template/123/data"), `{"uri":"test://template/123/data","mimeType":"application/json","text":"{\"data\":\"Data for ID: 123\",\"id\":\"123\",\"templateTest\":true}"}`)
	tl := call("resources/templates/list", "").ok(t, "templates")
	jsonEqual(t, "templates", tl["resourceTemplates"], `[{"uriTemplate":"test://template/{id}/data","name":"template","title":"Resource Template",
		"description":"A resource template with parameter substitution","mimeType":"application/json"}]`)
	missing := call("resources/read", `"uri":"test://nonexistent-resource-for-conformance-testing"`)
	if isModern {
		missing.code(t, "not found", -32602)
	} else {
		missing.code(t, "not found", -32002)
	}
	jsonEqual(t, "not found data", json.RawMessage(missing.Error.Data), `{"uri":"test://nonexistent-resource-for-conformance-testing"}`)
	c := call("completion/complete", `"ref":{"type":"ref/resource","uri":"test://template/{id}/data"},"argument":{"name":"id","value":"12"}`).ok(t, "complete id")
	jsonEqual(t, "id completions", get(c, "completion", "values"), `["123"]`)
}

func fixturePrompts(t *testing.T, w *fixtureWire, isModern bool) {
	call := w.caller(isModern)
	list := call("prompts/list", "").ok(t, "prompts/list")
	var names []string
	for _, p := range list["prompts"].([]any) {
		names = append(names, get(p, "name").(string))
		if d, _ := get(p, "description").(string); d == "" {
			t.Errorf("prompt without a description: %v", p)
		}
	}
	if strings.Join(names, " ") != "test_simple_prompt test_prompt_with_arguments test_prompt_with_embedded_resource test_prompt_with_image test_input_required_result_prompt" {
		t.Errorf("prompts: %v", names)
	}
	msgs := func(body string) any {
		t.Helper()
		return call("prompts/get", body).ok(t, body)["messages"]
	}
	jsonEqual(t, "simple", msgs(`"name":"test_simple_prompt"`), `[{"role":"user","content":{"type":"text","text":"This is a simple prompt for testing."}}]`)
	jsonEqual(t, "arguments", msgs(`"name":"test_prompt_with_arguments","arguments":{"arg1":"testValue1","arg2":"testValue2"}`),
		`[{"role":"user","content":{"type":"text","text":"Prompt with arguments: arg1='testValue1', arg2='testValue2'"}}]`)
	jsonEqual(t, "embedded", msgs(`"name":"test_prompt_with_embedded_resource","arguments":{"resourceUri":"test://example-resource"}`),
		`[{"role":"user","content":{"type":"resource","resource":{"uri":"test://example-resource","mimeType":"text/plain","text":"Embedded resource content for testing."}}},
		  {"role":"user","content":{"type":"text","text":"Please process the embedded resource above."}}]`)
	jsonEqual(t, "image", msgs(`"name":"test_prompt_with_image"`),
		`[{"role":"user","content":{"type":"image","data":"`+fixturePNG+`","mimeType":"image/png"}},{"role":"user","content":{"type":"text","text":"Please analyze the image above."}}]`)
	call("prompts/get", `"name":"test_prompt_with_arguments","arguments":{"arg1":"x"}`).code(t, "missing arg2", -32602)
	c := call("completion/complete", `"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg1","value":"test"}`).ok(t, "complete")
	jsonEqual(t, "arg1 completions", get(c, "completion", "values"), `["test","testValue1","testValue2"]`)
}

func TestFixtureLegacy(t *testing.T) {
	w := startFixture(t)
	var mu sync.Mutex
	asked := map[string]json.RawMessage{}
	w.onRequest = func(method string, params json.RawMessage) string {
		var p struct {
			Message string `json:"message"`
		}
		json.Unmarshal(params, &p)
		mu.Lock()
		asked[method+" "+p.Message] = params
		mu.Unlock()
		switch method {
		case "sampling/createMessage":
			return `{"role":"assistant","content":{"type":"text","text":"This is a test response from the client"},"model":"test-model","stopReason":"endTurn"}`
		case "roots/list":
			return `{"roots":[{"uri":"file:///test/root","name":"Test Root"}]}`
		}
		switch p.Message {
		case "Please review and update the form fields with defaults":
			return `{"action":"accept","content":{"name":"Jane Smith","age":25,"score":88,"status":"inactive","verified":false}}`
		case "Please select options from the enum fields":
			return `{"action":"accept","content":{"untitledSingle":"option1","titledSingle":"value2","legacyEnum":"opt3","untitledMulti":["option1"],"titledMulti":["value1","value3"]}}`
		case "What is your name?":
			return `{"action":"accept","content":{"name":"Alice"}}`
		}
		return `{"action":"accept","content":{"username":"testuser","email":"test@example.com"}}`
	}
	init := w.call("initialize", `{"protocolVersion":"2025-11-25","capabilities":{"sampling":{},"elicitation":{},"roots":{}},"clientInfo":{"name":"conformance-test-client","version":"1.0.0"}}`).ok(t, "initialize")
	if init["protocolVersion"] != "2025-11-25" || get(init, "serverInfo", "name") != "luagent-conformance" {
		t.Errorf("initialize: %v", init)
	}
	jsonEqual(t, "capabilities", init["capabilities"],
		`{"tools":{"listChanged":true},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"completions":{},"logging":{},`+
			`"extensions":{"io.modelcontextprotocol/skills":{"directoryRead":true}},"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}}`)
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	// Results the SDK parses strictly are exactly {}.
	for _, c := range [][2]string{{"ping", ""}, {"logging/setLevel", `{"level":"info"}`},
		{"resources/subscribe", `{"uri":"test://watched-resource"}`}, {"resources/unsubscribe", `{"uri":"test://watched-resource"}`}} {
		if ex := w.call(c[0], c[1]); ex.Error != nil || string(ex.Result) != "{}" {
			t.Errorf("%s: %s %v", c[0], ex.Result, ex.Error)
		}
	}

	// Logging after setLevel debug; progress with a numeric token.
	w.call("logging/setLevel", `{"level":"debug"}`).ok(t, "setLevel")
	ex := w.call("tools/call", `{"name":"test_tool_with_logging","arguments":{}}`)
	if res := ex.ok(t, "logging"); text(t, res) != "Tool with logging executed successfully" || ex.count("notifications/message") != 3 {
		t.Errorf("legacy logging: %d messages, %v", ex.count("notifications/message"), res)
	}
	ex = w.call("tools/call", `{"name":"test_tool_with_progress","arguments":{},"_meta":{"progressToken":101}}`)
	if res := ex.ok(t, "progress"); text(t, res) != "101" || ex.count("notifications/progress") != 3 {
		t.Errorf("legacy progress: %d, %v", ex.count("notifications/progress"), res)
	}
	for _, n := range ex.Notes {
		if n.Method == "notifications/progress" && !strings.Contains(string(n.Params), `"progressToken":101`) {
			t.Errorf("token not echoed as a number: %s", n.Params)
		}
	}
	res := w.call("tools/call", `{"name":"test_simple_text"}`).ok(t, "simple")
	if res["resultType"] != nil || res["_meta"] != nil {
		t.Errorf("2026 fields in a legacy result: %v", res)
	}

	// Sampling and elicitation are real requests to the client.
	res = w.call("tools/call", `{"name":"test_sampling","arguments":{"prompt":"Test prompt for sampling"}}`).ok(t, "sampling")
	if text(t, res) != "LLM response: This is a test response from the client" {
		t.Errorf("test_sampling: %v", res)
	}
	mu.Lock()
	var sp map[string]any
	for k, v := range asked {
		if strings.HasPrefix(k, "sampling/createMessage") {
			json.Unmarshal(v, &sp)
		}
	}
	mu.Unlock()
	jsonEqual(t, "sampling request", map[string]any{"messages": sp["messages"], "maxTokens": sp["maxTokens"]},
		`{"messages":[{"role":"user","content":{"type":"text","text":"Test prompt for sampling"}}],"maxTokens":100}`)
	res = w.call("tools/call", `{"name":"test_elicitation","arguments":{"message":"Please provide your information"}}`).ok(t, "elicitation")
	if text(t, res) != `User response: action=accept, content={"email":"test@example.com","username":"testuser"}` {
		t.Errorf("test_elicitation: %v", text(t, res))
	}
	res = w.call("tools/call", `{"name":"test_elicitation_sep1034_defaults","arguments":{}}`).ok(t, "sep1034")
	if !strings.HasPrefix(text(t, res), "Elicitation completed: action=accept, content={") {
		t.Errorf("sep1034: %v", text(t, res))
	}
	res = w.call("tools/call", `{"name":"test_elicitation_sep1330_enums","arguments":{}}`).ok(t, "sep1330")
	if !strings.HasPrefix(text(t, res), "Elicitation completed: action=accept") {
		t.Errorf("sep1330: %v", text(t, res))
	}
	schemaOf := func(msg string) any {
		mu.Lock()
		defer mu.Unlock()
		var p map[string]any
		json.Unmarshal(asked["elicitation/create "+msg], &p)
		return p["requestedSchema"]
	}
	jsonEqual(t, "sep1034 schema", schemaOf("Please review and update the form fields with defaults"), `{"type":"object","properties":{
	    "name":{"type":"string","description":"User name","default":"John Doe"},
	    "age":{"type":"integer","description":"User age","default":30},
	    "score":{"type":"number","description":"User score","default":95.5},
	    "status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},
	    "verified":{"type":"boolean","description":"Verification status","default":true}},"required":[]}`)
	jsonEqual(t, "sep1330 schema", schemaOf("Please select options from the enum fields"), `{"type":"object","properties":{
	    "untitledSingle":{"type":"string","description":"Select one option","enum":["option1","option2","option3"]},
	    "titledSingle":{"type":"string","description":"Select one option with titles","oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},
	    "legacyEnum":{"type":"string","description":"Select one option (legacy)","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},
	    "untitledMulti":{"type":"array","description":"Select multiple options","minItems":1,"maxItems":3,"items":{"type":"string","enum":["option1","option2","option3"]}},
	    "titledMulti":{"type":"array","description":"Select multiple options with titles","minItems":1,"maxItems":3,"items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}},"required":[]}`)
	jsonEqual(t, "test_elicitation schema", schemaOf("Please provide your information"), `{"type":"object","properties":{
	    "username":{"type":"string","description":"User's response"},"email":{"type":"string","description":"User's email address"}},"required":["username","email"]}`)

	// The MRTR tools run on a legacy session too: their inputs become
	// requests, one after another.
	res = w.call("tools/call", `{"name":"test_input_required_result_multiple_inputs","arguments":{}}`).ok(t, "A5 legacy")
	if text(t, res) != "Name: Alice; Greeting: This is a test response from the client; Roots: 1" {
		t.Errorf("A5 on a legacy session: %v", text(t, res))
	}

	w.sub(t, "resources", func(t *testing.T, w *fixtureWire) { fixtureResources(t, w, false) })
	w.sub(t, "prompts", func(t *testing.T, w *fixtureWire) { fixturePrompts(t, w, false) })

	// The timers: test_dynamic_tool appears (with tools/list_changed) 2 s
	// after start; a subscriber hears of test://watched-resource every 3 s.
	w.call("resources/subscribe", `{"uri":"test://watched-resource"}`).ok(t, "subscribe")
	seen := map[string]bool{}
	for _, n := range w.notes(3500 * time.Millisecond) {
		seen[n.Method+" "+string(n.Params)] = true
	}
	if !seen["notifications/resources/updated "+`{"uri":"test://watched-resource"}`] {
		t.Errorf("no update of the watched resource in 3.5 s: %v", seen)
	}
	if !seen["notifications/tools/list_changed "] {
		t.Errorf("no tools/list_changed for test_dynamic_tool: %v", seen)
	}
	tl := w.call("tools/list", "").ok(t, "tools/list")
	if !strings.Contains(fmt.Sprint(tl["tools"]), "test_dynamic_tool") {
		t.Errorf("test_dynamic_tool not listed after 3.5 s")
	}
	w.call("resources/unsubscribe", `{"uri":"test://watched-resource"}`).ok(t, "unsubscribe")
	for _, n := range w.notes(3200 * time.Millisecond) {
		if n.Method == "notifications/resources/updated" {
			t.Errorf("an update after unsubscribing: %s", n.Params)
		}
	}
}
