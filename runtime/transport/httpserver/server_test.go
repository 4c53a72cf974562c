package httpserver_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/mcp"
	"github.com/luagent/luagent/runtime/transport/httpserver"
)

// goServer is a small Go server: echo (its message argument mirrored into
// Mcp-Param-Msg, n into Mcp-Param-N), later (answers when the test says),
// slow (progress and a log line first), ask (elicits).
func goServer(name string) *mcp.Server {
	srv := mcp.NewServer(mcp.ServerOptions{Info: mcp.Implementation{Name: name, Version: "1"}})
	add := func(tool, schema string, h mcp.ToolHandler) {
		if err := srv.AddTool(mcp.Tool{Name: tool, InputSchema: json.RawMessage(schema)}, h); err != nil {
			panic(err)
		}
	}
	add("echo", `{"type":"object","properties":{"message":{"type":"string","x-mcp-header":"Msg"},"n":{"type":"integer","x-mcp-header":"N"}}}`,
		func(c *mcp.ToolCall) {
			var args struct {
				Message string `json:"message"`
			}
			json.Unmarshal(c.Arguments, &args)
			c.Return(mcp.TextResult(args.Message), nil)
		})
	add("later", "", func(c *mcp.ToolCall) {
		// Progress now, the answer when the test lets it go.
		total := 1.0
		c.Progress(0, &total, "started")
		go func() {
			select {
			case answered := <-laterAnswers:
				c.Return(mcp.TextResult("later done"), nil)
				close(answered)
			case <-c.Context().Done():
			}
		}()
	})
	add("slow", "", func(c *mcp.ToolCall) {
		total := 2.0
		c.Progress(1, &total, "half")
		c.Log("info", "", json.RawMessage(`"working"`))
		c.Progress(2, &total, "done")
		c.Return(mcp.TextResult("slow done"), nil)
	})
	add("ask", "", func(c *mcp.ToolCall) {
		c.Ask("elicitation/create", json.RawMessage(`{"message":"name?","requestedSchema":{"type":"object","properties":{}}}`), func(a json.RawMessage, err error) {
			if err != nil {
				c.Fail(err)
				return
			}
			c.Return(mcp.TextResult("answer "+string(a)), nil)
		})
	})
	return srv
}

// laterAnswers lets the "later" tool answer: each call waits for a channel
// from it, and closes that channel once its answer is made.
var laterAnswers = make(chan chan struct{})

// answerLater lets one "later" call answer and waits until it has.
func answerLater(t *testing.T) {
	t.Helper()
	answered := make(chan struct{})
	select {
	case laterAnswers <- answered:
		<-answered
	case <-time.After(5 * time.Second):
		t.Fatal("no later call waits to answer")
	}
}

func start(t *testing.T) (*testServer, *mcp.Server) {
	t.Helper()
	srv := goServer("go-test")
	h := httpserver.NewHandler(srv, httpserver.Options{Limits: httpserver.Limits{MaxBody: 1 << 16}, KeepAlive: 50 * time.Millisecond})
	ts := newTestServer(t, h)
	t.Cleanup(func() { h.Close(); ts.Close(); srv.Close() })
	return ts, srv
}

const envelope = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`

type reply struct {
	status int
	header http.Header
	body   string
	events []string // SSE data lines
}

func post(t *testing.T, url string, headers map[string]string, body string) reply {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	r := reply{status: resp.StatusCode, header: resp.Header}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok && d != "" { // "" is a priming event
				r.events = append(r.events, d)
			}
		}
		return r
	}
	b, _ := io.ReadAll(resp.Body)
	r.body = string(b)
	return r
}

func modernHeaders(method, name string) map[string]string {
	h := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
	if name != "" {
		h["Mcp-Name"] = name
	}
	return h
}

func TestModernStatusesAndHeaders(t *testing.T) {
	ts, _ := start(t)
	call := func(name, args string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `,` + envelope + `}}`
	}
	for _, tc := range []struct {
		name    string
		headers map[string]string
		body    string
		status  int
		want    string // substring of the body
	}{
		{"plain call", map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "echo", "Mcp-Param-Msg": "hi"},
			call("echo", `{"message":"hi"}`), 200, `"text":"hi"`},
		{"name header with spaces and base64 param", map[string]string{"MCP-Protocol-Version": "2026-07-28", "mcp-method": "tools/call", "Mcp-Name": "  echo ", "Mcp-Param-Msg": "=?base64?aMOpbGxv?="},
			call("echo", `{"message":"héllo"}`), 200, `"text":"héllo"`},
		{"integer param compared as a number", map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "echo", "Mcp-Param-Msg": "x", "Mcp-Param-N": "42.0"},
			call("echo", `{"message":"x","n":42}`), 200, `"text":"x"`},
		{"missing param header", modernHeaders("tools/call", "echo"), call("echo", `{"message":"hi"}`), 400, `-32020`},
		{"param mismatch", map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "echo", "Mcp-Param-Msg": "ho"},
			call("echo", `{"message":"hi"}`), 400, `-32020`},
		{"bad base64", map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "echo", "Mcp-Param-Msg": "=?base64?SGVsbG8?="},
			call("echo", `{"message":"Hello"}`), 400, `-32020`},
		{"method mismatch", modernHeaders("tools/list", "echo"), call("echo", `{}`), 400, `-32020`},
		{"name mismatch", modernHeaders("tools/call", "other"), call("echo", `{}`), 400, `-32020`},
		{"version header missing", map[string]string{"Mcp-Method": "tools/list"}, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + envelope + `}}`, 400, `-32020`},
		{"version header differs", map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "server/discover"},
			`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"v999.0.0","io.modelcontextprotocol/clientCapabilities":{}}}}`, 400, `-32020`},
		{"unsupported version", map[string]string{"MCP-Protocol-Version": "v999.0.0", "Mcp-Method": "server/discover"},
			`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"v999.0.0","io.modelcontextprotocol/clientCapabilities":{}}}}`, 400, `-32022`},
		{"envelope incomplete", modernHeaders("server/discover", ""), `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}`, 400, `-32602`},
		{"unknown method", modernHeaders("nope", ""), `{"jsonrpc":"2.0","id":1,"method":"nope","params":{` + envelope + `}}`, 404, `-32601`},
		{"initialize does not exist", modernHeaders("initialize", ""), `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{` + envelope + `}}`, 404, `-32601`},
		{"parse error", nil, `{"jsonrpc":`, 400, `-32700`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := post(t, ts.URL, tc.headers, tc.body)
			if r.status != tc.status || !strings.Contains(r.body, tc.want) {
				t.Errorf("status %d body %s; want %d with %s", r.status, r.body, tc.status, tc.want)
			}
			if r.status != 200 && !strings.Contains(r.body, `"id":`) {
				t.Errorf("an error without the id: %s", r.body)
			}
		})
	}
}

func TestModernSSEWhenNotificationsComeFirst(t *testing.T) {
	ts, _ := start(t)
	r := post(t, ts.URL, modernHeaders("tools/call", "slow"),
		`{"jsonrpc":"2.0","id":"s1","method":"tools/call","params":{"name":"slow","arguments":{},"_meta":{"progressToken":9,"io.modelcontextprotocol/logLevel":"debug",`+envelope[len(`"_meta":{`):]+`}}`)
	if r.status != 200 || len(r.events) != 4 {
		t.Fatalf("status %d events %q", r.status, r.events)
	}
	for i, want := range []string{"notifications/progress", "notifications/message", "notifications/progress", `"id":"s1"`} {
		if !strings.Contains(r.events[i], want) {
			t.Errorf("event %d = %s, want %s", i, r.events[i], want)
		}
	}
	if r.header.Get("X-Accel-Buffering") != "no" {
		t.Error("SSE without X-Accel-Buffering: no")
	}
	// Asking the client is an input_required result, never a request on the stream.
	r = post(t, ts.URL, modernHeaders("tools/call", "ask"), `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","arguments":{},`+envelope+`}}`)
	if r.status != 200 || !strings.Contains(r.body, `"resultType":"input_required"`) {
		t.Errorf("ask: %d %s %q", r.status, r.body, r.events)
	}
}

func TestListenStream(t *testing.T) {
	ts, srv := start(t)
	req, _ := http.NewRequest("POST", ts.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1800000000000,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},`+envelope+`}}`))
	for k, v := range modernHeaders("subscriptions/listen", "") {
		req.Header.Set(k, v)
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	next := func() string {
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatal("the listen stream ended")
				}
				if d, ok := strings.CutPrefix(l, "data: "); ok {
					return d
				}
			case <-time.After(5 * time.Second):
				t.Fatal("nothing on the listen stream")
			}
		}
	}
	if ack := next(); !strings.Contains(ack, "notifications/subscriptions/acknowledged") || !strings.Contains(ack, `"io.modelcontextprotocol/subscriptionId":1800000000000`) {
		t.Fatalf("first frame %s", ack)
	}
	srv.ListChanged("prompts") // not asked for
	srv.ListChanged("tools")
	if n := next(); !strings.Contains(n, "notifications/tools/list_changed") || !strings.Contains(n, "1800000000000") {
		t.Errorf("notification %s", n)
	}
	// Keep-alive comments flow while it is idle.
	deadline := time.After(2 * time.Second)
	for {
		select {
		case l := <-lines:
			if strings.HasPrefix(l, ":") {
				return
			}
		case <-deadline:
			t.Fatal("no keep-alive comment")
		}
	}
}

func TestLegacySession(t *testing.T) {
	ts, srv := start(t)
	init := post(t, ts.URL, map[string]string{"MCP-Protocol-Version": "2025-11-25"},
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}`)
	sid := init.header.Get("Mcp-Session-Id")
	if init.status != 200 || sid == "" || !strings.Contains(init.body, `"protocolVersion":"2025-11-25"`) {
		t.Fatalf("initialize: %d %q %s", init.status, sid, init.body)
	}
	h := map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-03-26"} // any legacy version is accepted
	if r := post(t, ts.URL, h, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); r.status != 202 {
		t.Errorf("initialized: %d", r.status)
	}
	if r := post(t, ts.URL, h, `{"jsonrpc":"2.0","id":2,"method":"ping"}`); r.status != 200 || r.body != `{"jsonrpc":"2.0","id":2,"result":{}}` {
		t.Errorf("ping: %d %s", r.status, r.body)
	}
	// Without a session, or with an unknown one.
	if r := post(t, ts.URL, nil, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`); r.status != 400 {
		t.Errorf("no session: %d %s", r.status, r.body)
	}
	if r := post(t, ts.URL, map[string]string{"Mcp-Session-Id": "nope"}, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`); r.status != 404 {
		t.Errorf("unknown session: %d %s", r.status, r.body)
	}

	// The GET stream carries what belongs to no request.
	greq, _ := http.NewRequest("GET", ts.URL, nil)
	greq.Header.Set("Mcp-Session-Id", sid)
	greq.Header.Set("Accept", "text/event-stream")
	gresp, err := http.DefaultClient.Do(greq)
	if err != nil || gresp.StatusCode != 200 {
		t.Fatalf("GET: %v %v", gresp, err)
	}
	got := make(chan string, 4)
	go func() {
		sc := bufio.NewScanner(gresp.Body)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok && d != "" { // "" is a priming event
				got <- d
			}
		}
	}()
	// The stream is registered before its headers are sent, so the 200
	// above means a notification reaches it.
	srv.ListChanged("tools")
	select {
	case d := <-got:
		if !strings.Contains(d, "notifications/tools/list_changed") {
			t.Errorf("GET stream: %s", d)
		}
	case <-time.After(3 * time.Second):
		t.Error("nothing on the GET stream")
	}

	// A request to the client travels on the POST's stream; the answer
	// comes back as a POST of its own.
	var wg sync.WaitGroup
	wg.Add(1)
	var ask reply
	go func() {
		defer wg.Done()
		ask = postAnswering(t, ts.URL, h, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"ask","arguments":{}}}`,
			func(req map[string]json.RawMessage) string {
				return `{"jsonrpc":"2.0","id":` + string(req["id"]) + `,"result":{"action":"accept","content":{"n":"Ada"}}}`
			})
	}()
	wg.Wait()
	if ask.status != 200 || len(ask.events) != 2 || !strings.Contains(ask.events[1], `answer {\"action\":\"accept\"`) {
		t.Errorf("ask over a session: %d %q", ask.status, ask.events)
	}

	// DELETE ends it; later requests get 404.
	dreq, _ := http.NewRequest("DELETE", ts.URL, nil)
	dreq.Header.Set("Mcp-Session-Id", sid)
	if resp, err := http.DefaultClient.Do(dreq); err != nil || resp.StatusCode != 200 {
		t.Fatalf("DELETE: %v %v", resp, err)
	}
	if r := post(t, ts.URL, h, `{"jsonrpc":"2.0","id":5,"method":"ping"}`); r.status != 404 {
		t.Errorf("after DELETE: %d", r.status)
	}
	gresp.Body.Close()
}

// postAnswering posts a request whose SSE stream carries server requests,
// answering each with answer (posted separately) until the response.
func postAnswering(t *testing.T, url string, headers map[string]string, body string, answer func(map[string]json.RawMessage) string) reply {
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return reply{}
	}
	defer resp.Body.Close()
	r := reply{status: resp.StatusCode, header: resp.Header}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		d, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || d == "" { // "" is a priming event
			continue
		}
		r.events = append(r.events, d)
		var m map[string]json.RawMessage
		json.Unmarshal([]byte(d), &m)
		if m["method"] != nil && m["id"] != nil {
			if a := post(t, url, headers, answer(m)); a.status != 202 {
				t.Errorf("posting an answer: %d %s", a.status, a.body)
			}
		}
	}
	return r
}

func TestRefusals(t *testing.T) {
	ts, _ := start(t)
	body := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + envelope + `}}`
	hdr := modernHeaders("server/discover", "")
	hdr["Origin"] = "https://evil.example"
	if r := post(t, ts.URL, hdr, body); r.status != 403 || !strings.Contains(r.body, "--allow-origin") {
		t.Errorf("foreign Origin: %d %s", r.status, r.body)
	}
	hdr["Origin"] = "http://localhost:5173"
	if r := post(t, ts.URL, hdr, body); r.status != 200 {
		t.Errorf("loopback Origin: %d %s", r.status, r.body)
	}
	req, _ := http.NewRequest("POST", ts.URL, strings.NewReader(body))
	req.Host = "attacker.example:80"
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 403 {
		t.Errorf("foreign Host: %v %v", resp, err)
	}
	big := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"` + strings.Repeat("x", 1<<17) + `"},` + envelope + `}}`
	if r := post(t, ts.URL, modernHeaders("tools/call", "echo"), big); r.status != 413 || !strings.Contains(r.body, "64 KiB") {
		t.Errorf("oversized body: %d %s", r.status, r.body)
	}
	for _, m := range []string{"GET", "DELETE"} {
		req, _ := http.NewRequest(m, ts.URL, nil)
		if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 405 {
			t.Errorf("%s without a session: %v %v", m, resp, err)
		}
	}
}
