package jsonrpc_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/jsonrpc"
	"github.com/luagent/luagent/runtime/trace"
)

// pipe is an in-memory Stream pair.
type pipe struct {
	in     chan []byte
	out    chan []byte
	closed chan struct{}
	once   sync.Once
}

func newPipes() (*pipe, *pipe) {
	a2b, b2a := make(chan []byte, 64), make(chan []byte, 64)
	closed := make(chan struct{})
	return &pipe{in: b2a, out: a2b, closed: closed}, &pipe{in: a2b, out: b2a, closed: closed}
}

func (p *pipe) Read() ([]byte, error) {
	select {
	case b := <-p.in:
		return b, nil
	case <-p.closed:
		return nil, io.EOF
	}
}

func (p *pipe) Write(b []byte) error {
	select {
	case <-p.closed:
		return errs.New(errs.Closed, "", "closed")
	case p.out <- append([]byte(nil), b...):
		return nil
	}
}

func (p *pipe) Close() error { p.once.Do(func() { close(p.closed) }); return nil }

func TestDecode(t *testing.T) {
	tests := []struct {
		in   string
		kind string // request, notification, response, error
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, "request"},
		{`{"jsonrpc":"2.0","id":"a","method":"x","params":{"k":1}}`, "request"},
		{`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`, "notification"},
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, "response"},
		{`{"jsonrpc":"2.0","id":1,"result":null}`, "response"},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request"}}`, "response"},
		{`{"jsonrpc":"1.0","id":1,"result":{}}`, "error"},
		{`{"id":1,"result":{}}`, "error"},
		{`{"jsonrpc":"2.0"}`, "error"},
		{`{"jsonrpc":"2.0","id":1,"method":"x","result":{}}`, "error"},
		{`{"jsonrpc":"2.0","result":{}}`, "error"},
		{`{"jsonrpc":"2.0","id":{},"result":{}}`, "error"},
		{`[1,2]`, "error"},
		{`not json`, "error"},
		// A repeated envelope key is refused: parsers that keep the first
		// and parsers that keep the last would act on different messages.
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tools/call"}`, "error"},
		{`{"jsonrpc":"2.0","id":1,"\u006dethod":"tools/list","method":"tools/call"}`, "error"},
		{`{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"ping"}`, "error"},
		{`{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`, "error"},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","name":"b"}}`, "error"},
		{`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"a","ur\u0069":"b"}}`, "error"},
		// Escaped keys are the keys they spell; repeats below params' top
		// level are the tool's business.
		{`{"jsonrpc":"2.0","\u0069d":1,"method":"ping"}`, "request"},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"name":"x","name":"y"}}}`, "request"},
	}
	for _, tt := range tests {
		m, err := jsonrpc.Decode([]byte(tt.in))
		got := "error"
		if err == nil {
			switch {
			case m.IsRequest():
				got = "request"
			case m.IsNotification():
				got = "notification"
			case m.IsResponse():
				got = "response"
			}
		} else if errs.KindOf(err) != errs.Protocol {
			t.Errorf("%s: error kind %v", tt.in, errs.KindOf(err))
		}
		if got != tt.kind {
			t.Errorf("%s: got %s (%v), want %s", tt.in, got, err, tt.kind)
		}
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	msgs := []*jsonrpc.Message{
		{ID: jsonrpc.IntID(3), Method: "tools/call", Params: json.RawMessage(`{"name":"x"}`)},
		{ID: jsonrpc.StringID("p-1"), Method: "server/discover"},
		{Method: "notifications/initialized"},
		{ID: jsonrpc.IntID(3), Result: json.RawMessage(`{"ok":true}`)},
		{ID: jsonrpc.StringID("q"), Error: &jsonrpc.Error{Code: -32601, Message: "Method not found", Data: json.RawMessage(`{"m":1}`)}},
	}
	for _, m := range msgs {
		b := m.Encode()
		back, err := jsonrpc.Decode(b)
		if err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if back.ID != m.ID || back.Method != m.Method || string(back.Params) != string(m.Params) || string(back.Result) != string(m.Result) {
			t.Errorf("round trip of %s gave %+v", b, back)
		}
		if (m.Error == nil) != (back.Error == nil) || (m.Error != nil && (m.Error.Code != back.Error.Code || m.Error.Message != back.Error.Message || string(m.Error.Data) != string(back.Error.Data))) {
			t.Errorf("error lost: %s", b)
		}
	}
}

// server answers requests on the far end of a pipe.
func serve(t *testing.T, p *pipe, handle func(m *jsonrpc.Message) []string) {
	go func() {
		for {
			b, err := p.Read()
			if err != nil {
				return
			}
			m, err := jsonrpc.Decode(b)
			if err != nil {
				t.Errorf("server got a bad message %s: %v", b, err)
				return
			}
			for _, out := range handle(m) {
				p.Write([]byte(out))
			}
		}
	}()
}

func TestCallsAndNotifications(t *testing.T) {
	a, b := newPipes()
	var notes []string
	var mu sync.Mutex
	c := jsonrpc.NewConn(a, jsonrpc.Options{Name: "srv", Notification: func(m *jsonrpc.Message) {
		mu.Lock()
		notes = append(notes, m.Method)
		mu.Unlock()
	}})
	defer c.Close()
	serve(t, b, func(m *jsonrpc.Message) []string {
		if m.Method == "fail" {
			return []string{fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"bad"}}`, m.ID)}
		}
		return []string{
			`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`,
			fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, m.Params),
		}
	})
	// Many concurrent calls, each gets its own answer.
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			call, err := c.Call("echo", json.RawMessage(fmt.Sprintf(`{"n":%d}`, i)))
			if err != nil {
				t.Error(err)
				return
			}
			<-call.Done()
			resp, err := call.Result()
			if err != nil || string(resp.Result) != fmt.Sprintf(`{"n":%d}`, i) {
				t.Errorf("call %d: %v %v", i, resp, err)
			}
		}(i)
	}
	wg.Wait()
	call, _ := c.Call("fail", nil)
	<-call.Done()
	resp, err := call.Result()
	if err != nil || resp.Error == nil || resp.Error.Code != -32602 {
		t.Errorf("error response: %+v %v", resp, err)
	}
	mu.Lock()
	if len(notes) != 50 {
		t.Errorf("got %d notifications", len(notes))
	}
	mu.Unlock()
}

func TestIncomingRequest(t *testing.T) {
	a, b := newPipes()
	c := jsonrpc.NewConn(a, jsonrpc.Options{Request: func(c *jsonrpc.Conn, m *jsonrpc.Message) {
		go c.Reply(m.ID, json.RawMessage(`{"pong":true}`), nil)
	}})
	defer c.Close()
	b.Write([]byte(`{"jsonrpc":"2.0","id":"s1","method":"ping"}`))
	got, _ := b.Read()
	if string(got) != `{"jsonrpc":"2.0","id":"s1","result":{"pong":true}}` {
		t.Errorf("reply %s", got)
	}
	// Without a handler: method not found.
	a2, b2 := newPipes()
	c2 := jsonrpc.NewConn(a2, jsonrpc.Options{})
	defer c2.Close()
	b2.Write([]byte(`{"jsonrpc":"2.0","id":7,"method":"sampling/createMessage"}`))
	got, _ = b2.Read()
	if !strings.Contains(string(got), `"code":-32601`) {
		t.Errorf("reply %s", got)
	}
}

func TestDeathFailsPendingCalls(t *testing.T) {
	a, b := newPipes()
	c := jsonrpc.NewConn(a, jsonrpc.Options{Name: "srv"})
	call, err := c.Call("slow", nil)
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	select {
	case <-call.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("pending call not failed")
	}
	if _, err := call.Result(); !errors.Is(err, io.EOF) {
		t.Errorf("err %v", err)
	}
	<-c.Done()
	if _, err := c.Call("after", nil); err == nil {
		t.Error("Start after death should fail")
	}
}

func TestCloseFailsWithKindClosed(t *testing.T) {
	a, _ := newPipes()
	c := jsonrpc.NewConn(a, jsonrpc.Options{Name: "srv"})
	call, _ := c.Call("x", nil)
	c.Close()
	<-call.Done()
	if _, err := call.Result(); errs.KindOf(err) != errs.Closed {
		t.Errorf("kind %v (%v)", errs.KindOf(err), err)
	}
}

func TestAbandonedCallDropsLateResponse(t *testing.T) {
	a, b := newPipes()
	c := jsonrpc.NewConn(a, jsonrpc.Options{})
	defer c.Close()
	call, _ := c.Call("x", nil)
	call.Abandon()
	b.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	call2, _ := c.Call("y", nil)
	msg, _ := b.Read()
	msg, _ = b.Read()
	m, _ := jsonrpc.Decode(msg)
	b.Write([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"second":true}}`, m.ID)))
	<-call2.Done()
	resp, _ := call2.Result()
	if string(resp.Result) != `{"second":true}` {
		t.Errorf("%s", resp.Result)
	}
	select {
	case <-call.Done():
		t.Error("abandoned call was resolved")
	default:
	}
}

type oversize struct{ prefix []byte }

func (o oversize) Error() string         { return "message too large" }
func (o oversize) MessagePrefix() []byte { return o.prefix }

// prefixStream returns an oversize error for the first read, then EOF.
type prefixStream struct {
	reads chan func() ([]byte, error)
}

func (p *prefixStream) Read() ([]byte, error) {
	f, ok := <-p.reads
	if !ok {
		return nil, io.EOF
	}
	return f()
}
func (p *prefixStream) Write([]byte) error { return nil }
func (p *prefixStream) Close() error       { return nil }

func TestOversizedResponseFailsItsCall(t *testing.T) {
	ps := &prefixStream{reads: make(chan func() ([]byte, error), 2)}
	c := jsonrpc.NewConn(ps, jsonrpc.Options{})
	call, _ := c.Call("big", nil)
	ps.reads <- func() ([]byte, error) {
		return nil, oversize{[]byte(`{"jsonrpc":"2.0","id":` + call.ID.String() + `,"result":{"content":[{"type":"text","text":"aaaa`)}
	}
	select {
	case <-call.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("not failed")
	}
	if _, err := call.Result(); errs.KindOf(err) != errs.Protocol || !strings.Contains(err.Error(), "too large") {
		t.Errorf("err %v", err)
	}
	close(ps.reads)
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":1,"method":"x"}`, `{"jsonrpc":"2.0","id":"a","result":{}}`,
		`{"jsonrpc":"2.0","method":"n","params":[1]}`, `{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"m","data":null}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tools/call"}`, `{"jsonrpc":"2.0","id":1,"\u006dethod":"a\u0001b"}`,
		`{"jsonrpc":"2.0","\u0069d":"x","method":"m","params":{"name":"a","n\u0061me":"b"}}`, `{"jsonrpc":"2.0","id":2,"result":{},"result":5}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := jsonrpc.Decode(b)
		if err != nil {
			return
		}
		// What decodes re-encodes to valid JSON that decodes the same way
		// (testdata/fuzz/FuzzDecode holds the cases that once did not).
		enc := m.Encode()
		if !json.Valid(enc) {
			t.Fatalf("re-encoding %q gave invalid JSON %q", b, enc)
		}
		back, err := jsonrpc.Decode(enc)
		if err != nil {
			t.Fatalf("re-encoding %q gave %q: %v", b, enc, err)
		}
		if back.ID != m.ID || back.Method != m.Method || back.IsResponse() != m.IsResponse() {
			t.Fatalf("round trip of %q changed id %s -> %s, method %q -> %q", b, m.ID, back.ID, m.Method, back.Method)
		}
	})
}

// A method is its name whether or not methodName knows it, escaped or not;
// a known one costs no string of its own.
func TestDecodeMethodName(t *testing.T) {
	for in, want := range map[string]string{
		`"tools/call"`:                "tools/call",
		`"tools\/call"`:               "tools/call",
		`"notifications/initialized"`: "notifications/initialized",
		`"my/own"`:                    "my/own",
		`"é/x"`:                       "é/x",
	} {
		m, err := jsonrpc.Decode([]byte(`{"jsonrpc":"2.0","id":1,"method":` + in + `}`))
		if err != nil {
			t.Errorf("method %s: %v", in, err)
		} else if m.Method != want {
			t.Errorf("method %s: %q; want %q", in, m.Method, want)
		}
	}
	known := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`)
	other := []byte(`{"jsonrpc":"2.0","id":1,"method":"my/own"}`)
	nk := testing.AllocsPerRun(100, func() { jsonrpc.Decode(known) })
	no := testing.AllocsPerRun(100, func() { jsonrpc.Decode(other) })
	if nk >= no {
		t.Errorf("a known method costs %v allocations, another %v: want one fewer", nk, no)
	}
}

// failWrites is a stream that reads nothing and refuses every write.
type failWrites struct {
	done chan struct{}
	once sync.Once
}

func (f *failWrites) Read() ([]byte, error) { <-f.done; return nil, io.EOF }
func (f *failWrites) Write([]byte) error    { return errs.New(errs.Process, "", "broken pipe") }
func (f *failWrites) Close() error          { f.once.Do(func() { close(f.done) }); return nil }

// A notification is traced as sent (notification_out) only when it was.
func TestNotificationTracedOnlyWhenSent(t *testing.T) {
	rec := &trace.Recorder{}
	bad := jsonrpc.NewConn(&failWrites{done: make(chan struct{})}, jsonrpc.Options{Name: "bad", Trace: rec})
	defer bad.Close()
	if err := bad.Notify("notifications/cancelled", json.RawMessage(`{"requestId":1}`)); err == nil {
		t.Fatal("Notify on a broken stream succeeded")
	}
	a, b := newPipes()
	good := jsonrpc.NewConn(a, jsonrpc.Options{Name: "good", Trace: rec})
	defer good.Close() // closes b too: the pair shares one closed channel
	_ = b              // the far end: nobody reads it, the pipe buffers
	if err := good.Notify("notifications/cancelled", json.RawMessage(`{"requestId":1}`)); err != nil {
		t.Fatal(err)
	}
	var sent []string
	for _, e := range rec.Events() {
		if e.Kind == trace.NotificationOut {
			sent = append(sent, e.Server)
		}
	}
	if strings.Join(sent, ",") != "good" {
		t.Errorf("notification_out events from %v, want only good", sent)
	}
}
