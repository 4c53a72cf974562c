package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// A stdio server under test, driven line by line as a client would.
type stdioPeer struct {
	t     *testing.T
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan stdioLine
	era   string
}

type stdioLine struct {
	at  time.Time
	msg map[string]json.RawMessage
	raw string
}

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}`

func startStdio(t *testing.T, era string, args ...string) *stdioPeer {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve"}, args...)...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &stdioPeer{t: t, cmd: cmd, in: in, lines: make(chan stdioLine, 64), era: era}
	go func() {
		defer close(p.lines)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<16), 64<<20)
		for sc.Scan() {
			l := stdioLine{at: time.Now(), raw: sc.Text()}
			json.Unmarshal(sc.Bytes(), &l.msg)
			p.lines <- l
		}
	}()
	t.Cleanup(func() {
		in.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("server stderr:\n%s", stderr.String())
		}
	})
	if era == "legacy" {
		p.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
		p.await(`"init"`, 20*time.Second)
		p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	}
	return p
}

func (p *stdioPeer) send(line string) time.Time {
	p.t.Helper()
	now := time.Now()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatalf("writing to the server: %v", err)
	}
	return now
}

// call sends a tools/call with a progress token (the id's text).
func (p *stdioPeer) call(id int, tool, args string) time.Time {
	meta := fmt.Sprintf(`"_meta":{"progressToken":"p%d"}`, id)
	if p.era == "modern" {
		meta = modernMeta + fmt.Sprintf(`,"progressToken":"p%d"}`, id)
	}
	return p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s,%s}}`, id, tool, args, meta))
}

// quick sends a request the server answers without running Lua: ping
// (2025-11-25) or tools/list (2026-07-28 has no ping).
func (p *stdioPeer) quick(id int) time.Time {
	if p.era == "modern" {
		return p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list","params":{%s}}}`, id, modernMeta))
	}
	return p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id))
}

// until reads lines until match takes one, failing after within (what
// names what it waits for).
func (p *stdioPeer) until(what string, within time.Duration, match func(stdioLine) bool) stdioLine {
	p.t.Helper()
	deadline := time.After(within)
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				p.t.Fatalf("the server closed stdout before %s", what)
			}
			if match(l) {
				return l
			}
		case <-deadline:
			p.t.Fatalf("no %s within %s", what, within)
		}
	}
}

// awaitNot reads until the response with id (its JSON text) and returns
// it; it fails on a response to forbid (JSON text) seen on the way.
func (p *stdioPeer) awaitNot(id, forbid string, within time.Duration) stdioLine {
	p.t.Helper()
	return p.until("the answer to "+id, within, func(l stdioLine) bool {
		if _, isNote := l.msg["method"]; isNote {
			return false
		}
		if string(l.msg["id"]) == forbid {
			p.t.Fatalf("a response to %s came, which was cancelled: %.200s", forbid, l.raw)
		}
		return string(l.msg["id"]) == id
	})
}

func (p *stdioPeer) await(id string, within time.Duration) stdioLine {
	p.t.Helper()
	return p.awaitNot(id, "", within)
}

// awaitProgress reads until a progress notification for token.
func (p *stdioPeer) awaitProgress(token string, within time.Duration) {
	p.t.Helper()
	p.until("progress for "+token, within, func(l stdioLine) bool {
		return string(l.msg["method"]) == `"notifications/progress"` && strings.Contains(string(l.msg["params"]), `"`+token+`"`)
	})
}

// The goroutine that reads stdin never runs Lua: while a handler computes
// without waiting, requests the server answers itself are answered at
// once, and a cancellation stops the handler and silences it.
func TestStdioBusyHandlerDoesNotBlockTheWire(t *testing.T) {
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			p := startStdio(t, era, "testdata/hostile.lua")
			p.call(2, "spin", `{"seconds":8}`)
			p.awaitProgress("p2", 20*time.Second) // the handler is spinning now
			// Three pings, each answered within 50 ms; on a shared machine
			// one slow answer can be the scheduler's, so up to three rounds
			// are tried (the bug this catches makes every answer wait for
			// the handler: seconds).
			id, ok, seen := 10, false, []time.Duration(nil)
			for round := 0; round < 3 && !ok; round++ {
				ok = true
				for range 3 {
					sent := p.quick(id)
					l := p.await(fmt.Sprint(id), 10*time.Second)
					id++
					d := l.at.Sub(sent)
					seen = append(seen, d.Round(time.Millisecond))
					ok = ok && d <= 50*time.Millisecond
				}
			}
			if !ok {
				t.Errorf("requests answered after %v while a handler spun; want each under 50ms", seen)
			}
			// Cancelled, the spinning handler stops: the next call, which
			// needs the Lua state, is answered at once, and request 2 never is.
			cancelled := p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"test"}}`)
			p.call(3, "echo", `{"message":"after"}`)
			l := p.awaitNot("3", "2", 10*time.Second)
			if d := l.at.Sub(cancelled); d > 100*time.Millisecond {
				t.Errorf("the call after the cancellation was answered %s after it; want the spinning handler stopped within 100ms", d.Round(time.Millisecond))
			}
			if !strings.Contains(l.raw, `"after"`) {
				t.Errorf("echo answered %s", l.raw)
			}
			// Nothing more for request 2, up to the end of the output.
			p.in.Close()
			for l := range p.lines {
				if string(l.msg["id"]) == "2" {
					t.Errorf("a response to the cancelled request came: %.200s", l.raw)
				}
			}
		})
	}
}
