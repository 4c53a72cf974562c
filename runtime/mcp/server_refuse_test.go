package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/mcp"
	"github.com/luagent/luagent/runtime/transport"
)

// echoHandler offers one tool, echo, that answers with the name it was
// called by.
type echoHandler struct{}

func (echoHandler) Capabilities() mcp.HandlerCapabilities {
	return mcp.HandlerCapabilities{Tools: true}
}

func (echoHandler) Handle(r *mcp.Request) {
	switch r.Method {
	case "tools/list":
		r.Reply(json.RawMessage(`{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}`))
	case "tools/call":
		b, _ := json.Marshal(map[string]any{"content": []any{map[string]string{"type": "text", "text": "called " + r.StringParam("name")}}})
		r.Reply(b)
	default:
		r.Reply(json.RawMessage(`{}`))
	}
}

// stdioServer serves echoHandler over a stdio stream with a message size
// limit of max bytes, driven by raw lines.
type stdioServer struct {
	t     *testing.T
	lines chan string // written in order by one goroutine: a big line must not block the test while the server reads it
	out   chan map[string]json.RawMessage
}

func startStdio(t *testing.T, max int) *stdioServer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	srv := mcp.NewServer(mcp.ServerOptions{Handler: echoHandler{}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.ServeStream(ctx, transport.NewStdio(inR, outW, max))
		outW.Close()
	}()
	s := &stdioServer{t: t, lines: make(chan string, 64), out: make(chan map[string]json.RawMessage, 64)}
	go func() {
		for l := range s.lines {
			if _, err := inW.Write([]byte(l + "\n")); err != nil {
				return
			}
		}
	}()
	go func() {
		defer close(s.out)
		br := bufio.NewReader(outR)
		for {
			line, err := br.ReadBytes('\n')
			if err != nil {
				return
			}
			var m map[string]json.RawMessage
			if json.Unmarshal(line, &m) != nil {
				t.Errorf("the server wrote a line that is not JSON: %q", line)
				continue
			}
			s.out <- m
		}
	}()
	t.Cleanup(func() {
		close(s.lines)
		inW.Close()
		cancel()
		<-done
		srv.Close()
		outR.Close()
	})
	return s
}

func (s *stdioServer) send(line string) { s.lines <- line }

// recv returns the next message the server wrote.
func (s *stdioServer) recv() map[string]json.RawMessage {
	s.t.Helper()
	select {
	case m, ok := <-s.out:
		if !ok {
			s.t.Fatal("the server closed its output")
		}
		return m
	case <-time.After(10 * time.Second):
		s.t.Fatal("no answer")
	}
	return nil
}

// answer is one response: its id and error code (0 for a result) and error
// message.
type answer struct {
	id   string
	code int
	msg  string
}

func answerOf(m map[string]json.RawMessage) answer {
	var e struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	json.Unmarshal(m["error"], &e)
	return answer{string(m["id"]), e.Code, e.Message}
}

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// A server over stdio answers what it refuses — a repeated envelope key, a
// batch, a line over the size limit — with -32600 instead of leaving the
// client to its timeout, in both eras; lines that are not JSON stay
// skipped.
func TestStdioServerRefuses(t *testing.T) {
	const max = 4096
	big := strings.Repeat("x", max)
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			s := startStdio(t, max)
			params := func(fields string) string {
				if era == "modern" {
					if fields != "" {
						fields += ","
					}
					return `{` + fields + modernMeta + `}`
				}
				return `{` + fields + `}`
			}
			if era == "legacy" {
				s.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
				if a := answerOf(s.recv()); a.id != "0" || a.code != 0 {
					t.Fatalf("initialize: %+v", a)
				}
			}
			for _, tc := range []struct {
				name  string
				lines []string
				want  []answer // msg: a part of the message
			}{
				{"repeated method", []string{`{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tools/call","params":` + params(`"name":"echo"`) + `}`},
					[]answer{{"1", -32600, `"method"`}}},
				{"escaped repeat", []string{`{"jsonrpc":"2.0","id":2,"\u006dethod":"tools/list","method":"tools/call","params":` + params(`"name":"echo"`) + `}`},
					[]answer{{"2", -32600, `"method"`}}},
				{"repeated id", []string{`{"jsonrpc":"2.0","id":3,"id":4,"method":"tools/list","params":` + params("") + `}`},
					[]answer{{"null", -32600, `"id"`}}},
				{"repeated name", []string{`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":` + params(`"name":"echo","name":"other"`) + `}`},
					[]answer{{"5", -32600, `"name"`}}},
				{"batch", []string{`[{"jsonrpc":"2.0","id":6,"method":"tools/list","params":` + params("") + `},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"seven","method":"tools/list","params":` + params("") + `}]`},
					[]answer{{"6", -32600, "batches are not supported"}, {`"seven"`, -32600, "batches are not supported"}}},
				{"oversized", []string{`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":` + params(`"name":"echo","arguments":{"s":"`+big+`"}`) + `}`},
					[]answer{{"8", -32600, "over the size limit of 4096 bytes"}}},
				{"oversized batch", []string{`[{"jsonrpc":"2.0","id":9,"method":"tools/list","params":` + params(`"s":"`+big+`"`) + `}]`},
					[]answer{{"null", -32600, "batches are not supported"}}},
				{"log line", []string{`[INFO] not a batch`, `hello`}, nil},
			} {
				for _, l := range tc.lines {
					s.send(l)
				}
				// A good request after each case: its answer comes after the
				// refusals, so none is missing or extra.
				s.send(`{"jsonrpc":"2.0","id":"after","method":"tools/call","params":` + params(`"name":"echo"`) + `}`)
				for _, w := range tc.want {
					a := answerOf(s.recv())
					if a.id != w.id || a.code != w.code || !strings.Contains(a.msg, w.msg) {
						t.Errorf("%s: answered %+v, want %+v", tc.name, a, w)
					}
				}
				if a := answerOf(s.recv()); a.id != `"after"` || a.code != 0 {
					t.Errorf("%s: the next request was answered %+v", tc.name, a)
				}
			}
		})
	}
}
