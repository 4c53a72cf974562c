package jsonrpc_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/jsonrpc"
)

// Decode refuses an envelope that parsers would read differently, with the
// id when the id itself is not what repeats.
func TestDecodeRefusesRepeatedKeys(t *testing.T) {
	for _, tc := range []struct {
		in, id, key string // id "" is null
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tools/call","params":{"name":"x"}}`, "1", `"method"`},
		{`{"jsonrpc":"2.0","id":"a","\u006dethod":"tools/list","method":"tools/call"}`, `"a"`, `"method"`},
		{`{"jsonrpc":"2.0","method":"tools/list","id":7,"\u006d\u0065thod":"x"}`, "7", `"method"`},
		{`{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"ping"}`, "1", `"jsonrpc"`},
		{`{"jsonrpc":"2.0","id":1,"method":"ping","id":2}`, "", `"id"`},
		{`{"jsonrpc":"2.0","\u0069d":1,"id":1,"method":"ping"}`, "", `"id"`},
		{`{"jsonrpc":"2.0","method":"notifications/x","method":"y"}`, "", `"method"`},
		{`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"a","arguments":{},"name":"b"}}`, "3", `"name"`},
		{`{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"a","ur\u0069":"b"}}`, "4", `"uri"`},
		{`{"jsonrpc":"2.0","id":5,"result":{},"id":6}`, "", `"id"`},
	} {
		_, err := jsonrpc.Decode([]byte(tc.in))
		if err == nil {
			t.Errorf("%s: decoded", tc.in)
			continue
		}
		var ir *jsonrpc.InvalidRequest
		if !errors.As(err, &ir) || errs.KindOf(err) != errs.Protocol {
			t.Errorf("%s: %T %v (kind %v), want *InvalidRequest of kind protocol", tc.in, err, err, errs.KindOf(err))
			continue
		}
		if got := jsonrpc.RefusedID(err).String(); got != tc.id {
			t.Errorf("%s: id %q, want %q", tc.in, got, tc.id)
		}
		if rerr := ir.RPCError(); rerr.Code != jsonrpc.CodeInvalidRequest || !strings.Contains(rerr.Message, tc.key) {
			t.Errorf("%s: answer %d %q, want -32600 naming %s", tc.in, rerr.Code, rerr.Message, tc.key)
		}
	}
}

// junkPipe is a pipe that, like the stdio server stream, skips lines that
// are not JSON objects and reports them to OnJunk.
type junkPipe struct {
	*pipe
	onJunk func(line []byte, size int64)
}

func (j *junkPipe) OnJunk(f func(line []byte, size int64)) { j.onJunk = f }

func (j *junkPipe) junk(line string, size int64) { j.onJunk([]byte(line), size) }

// refused records what a server connection was asked to refuse.
type refused struct {
	ch chan string
}

func (r *refused) hook(id jsonrpc.ID, rerr *jsonrpc.Error) {
	s := id.String()
	if id.IsZero() {
		s = "null"
	}
	r.ch <- fmt.Sprintf("%s %d %s", s, rerr.Code, rerr.Message)
}

func (r *refused) next(t *testing.T) string {
	t.Helper()
	select {
	case s := <-r.ch:
		return s
	case <-time.After(5 * time.Second):
		t.Fatal("nothing refused")
		return ""
	}
}

func (r *refused) none(t *testing.T) {
	t.Helper()
	select {
	case s := <-r.ch:
		t.Errorf("refused %q", s)
	default:
	}
}

// A server connection (Options.Refuse set) answers what it cannot take: a
// repeated envelope key, a batch, an oversized request.
func TestServerConnRefuses(t *testing.T) {
	a, b := newPipes()
	jp := &junkPipe{pipe: a}
	r := &refused{ch: make(chan string, 16)}
	requests := make(chan string, 16)
	c := jsonrpc.NewConn(jp, jsonrpc.Options{Refuse: r.hook, Request: func(c *jsonrpc.Conn, m *jsonrpc.Message) { requests <- m.Method }})
	defer c.Close()
	if jp.onJunk == nil {
		t.Fatal("a refusing Conn did not ask its stream for skipped lines")
	}

	b.Write([]byte(`{"jsonrpc":"2.0","id":9,"method":"tools/list","method":"tools/call"}`))
	if got := r.next(t); !strings.HasPrefix(got, `9 -32600 `) || !strings.Contains(got, `"method"`) {
		t.Errorf("repeated method: %s", got)
	}

	for _, tc := range []struct {
		line string
		size int64 // 0: the whole line
		want []string
	}{
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":"b","method":"x"}]`, 0, []string{"1", `"b"`}},
		{` [{"jsonrpc":"2.0","method":"n"}]`, 0, []string{"null"}},
		{`[]`, 0, []string{"null"}},
		// Cut off by the stream (only the line's beginning is reported):
		// the ids seen, and a null one for the rest.
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"me`, 1 << 20, []string{"1", "null"}},
	} {
		size := tc.size
		if size == 0 {
			size = int64(len(tc.line))
		}
		jp.junk(tc.line, size)
		for _, id := range tc.want {
			if got := r.next(t); got != id+" -32600 batches are not supported: send each message on a line of its own" {
				t.Errorf("batch %s: %s, want id %s", tc.line, got, id)
			}
		}
		r.none(t)
	}
	// Lines that are not JSON stay skipped (a log line is no batch).
	for _, line := range []string{`[INFO] starting`, `hello`, ``, `[1,2`} {
		jp.junk(line, int64(len(line)))
	}
	r.none(t)

	// The connection goes on.
	b.Write([]byte(`{"jsonrpc":"2.0","id":10,"method":"tools/list"}`))
	if m := <-requests; m != "tools/list" {
		t.Errorf("after the refusals: %s", m)
	}
}

// oversize with sizes, as transport.OversizeError reports them.
type sizedOversize struct {
	oversize
	size int64
	max  int
}

func (o sizedOversize) MessageSize() (int64, int) { return o.size, o.max }

// An oversized request is answered with the limit; an oversized response
// fails the call it answers, as before, even when ids collide.
func TestServerConnRefusesOversizedRequest(t *testing.T) {
	ps := &prefixStream{reads: make(chan func() ([]byte, error), 4)}
	r := &refused{ch: make(chan string, 16)}
	c := jsonrpc.NewConn(ps, jsonrpc.Options{Refuse: r.hook})
	defer close(ps.reads)
	call, _ := c.Call("elicitation/create", nil) // id 1, as the client's first request
	ps.reads <- func() ([]byte, error) {
		return nil, sizedOversize{oversize{[]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":"aaaa`)}, 20 << 20, 16 << 20}
	}
	if got := r.next(t); got != "1 -32600 message of 20971520 bytes is over the size limit of 16777216 bytes; it was discarded" {
		t.Errorf("oversized request: %s", got)
	}
	select {
	case <-call.Done():
		t.Fatal("an oversized request failed our own call with the same id")
	default:
	}
	ps.reads <- func() ([]byte, error) {
		return nil, sizedOversize{oversize{[]byte(`{"jsonrpc":"2.0","id":1,"result":{"content":"aaaa`)}, 20 << 20, 16 << 20}
	}
	select {
	case <-call.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the oversized response did not fail its call")
	}
	if _, err := call.Result(); errs.KindOf(err) != errs.Protocol {
		t.Errorf("call: %v", err)
	}
	// Without an id: answered with a null one.
	ps.reads <- func() ([]byte, error) {
		return nil, sizedOversize{oversize{[]byte(`{"jsonrpc":"2.0","method":"tools/call","params":{"aaaa`)}, 20 << 20, 16 << 20}
	}
	if got := r.next(t); !strings.HasPrefix(got, "null -32600 message of 20971520 bytes") {
		t.Errorf("oversized notification: %s", got)
	}
	r.none(t)
}

// A client connection (no Refuse) skips such input as junk, as before, and
// a refused response with a readable id fails its call at once.
func TestClientConnSkipsRefused(t *testing.T) {
	a, b := newPipes()
	jp := &junkPipe{pipe: a}
	invalid := make(chan string, 4)
	c := jsonrpc.NewConn(jp, jsonrpc.Options{Invalid: func(line []byte, err error) { invalid <- string(line) }})
	defer c.Close()
	if jp.onJunk != nil {
		t.Error("a client Conn took over its stream's skipped lines")
	}
	call, _ := c.Call("tools/call", nil)
	b.Read()
	b.Write([]byte(`{"jsonrpc":"2.0","method":"a","method":"b"}`))
	if got := <-invalid; !strings.Contains(got, `"method":"b"`) {
		t.Errorf("invalid %s", got)
	}
	b.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"name":"a","name":"b"},"result":{}}`))
	select {
	case <-call.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("a refused response did not fail its call")
	}
	if _, err := call.Result(); errs.KindOf(err) != errs.Protocol || !strings.Contains(err.Error(), `"result"`) {
		t.Errorf("call: kind %v, %v", errs.KindOf(err), err)
	}
}
