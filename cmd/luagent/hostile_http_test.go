package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// A raw HTTP/1.1 client of `luagent serve --http`: what net/http's client
// would not do (pipeline requests and never read the answers, send a head
// and no body, trickle a body) is done here by hand.

func hostPort(url string) string {
	_, rest, _ := strings.Cut(url, "://")
	hp, _, _ := strings.Cut(rest, "/")
	return hp
}

func urlPath(url string) string {
	_, rest, _ := strings.Cut(url, "://")
	_, p, _ := strings.Cut(rest, "/")
	return "/" + p
}

// rawPost is the bytes of one POST of body to url's path.
func rawPost(url, body string, headers ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n", urlPath(url), hostPort(url), len(body))
	for _, h := range headers {
		b.WriteString(h + "\r\n")
	}
	b.WriteString("\r\n")
	b.WriteString(body)
	return b.String()
}

func modernCallBody(id int, tool, args string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s,%s}}}`, id, tool, args, modernMeta)
}

func modernCallHeaders(tool string) []string {
	return []string{"MCP-Protocol-Version: 2026-07-28", "Mcp-Method: tools/call", "Mcp-Name: " + tool}
}

// mcpPost is a POST of body to url as MCP clients send it, with headers
// given as "Name: value" (rawPost's form).
func mcpPost(ctx context.Context, url, body string, headers ...string) *http.Request {
	req, _ := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ": ")
		req.Header.Set(k, v)
	}
	return req
}

func legacyHeaders(sid string) []string {
	return []string{"Mcp-Session-Id: " + sid, "MCP-Protocol-Version: 2025-11-25"}
}

// legacySession opens a 2025-11-25 session and returns its id.
func legacySession(t *testing.T, url string) string {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	resp, err := http.DefaultClient.Do(mcpPost(context.Background(), url, body))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatalf("initialize: no session id (status %d)", resp.StatusCode)
	}
	return sid
}

// callOnce makes one tools/call echo in era (sid for legacy) with client
// and returns how long it took.
func callOnce(t *testing.T, client *http.Client, url, era, sid string, i int) time.Duration {
	t.Helper()
	var r *http.Request
	if era == "modern" {
		r = mcpPost(context.Background(), url, modernCallBody(i, "echo", `{"message":"m`+fmt.Sprint(i)+`"}`), modernCallHeaders("echo")...)
	} else {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"message":"m%d"}}}`, i, i)
		r = mcpPost(context.Background(), url, body, legacyHeaders(sid)...)
	}
	start := time.Now()
	resp, err := client.Do(r)
	if err != nil {
		t.Fatalf("call %d: %v", i, err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	d := time.Since(start)
	if resp.StatusCode != 200 || !bytes.Contains(b, []byte(fmt.Sprintf(`"m%d"`, i))) {
		t.Fatalf("call %d: status %d, body %.300s", i, resp.StatusCode, b)
	}
	return d
}

// stall opens a connection that pipelines calls whose answers are far
// larger than the socket buffers, reads the head of the first answer (so
// the server is known to be answering) and then never reads again.
func stall(t *testing.T, url, era, sid string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", hostPort(url))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	var reqs strings.Builder
	for i := range 24 {
		args := `{"bytes":1048576}`
		if era == "modern" {
			reqs.WriteString(rawPost(url, modernCallBody(100+i, "big", args), modernCallHeaders("big")...))
		} else {
			body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"big","arguments":%s}}`, 100+i, args)
			reqs.WriteString(rawPost(url, body, legacyHeaders(sid)...))
		}
	}
	go io.WriteString(c, reqs.String())
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	status, err := bufio.NewReaderSize(c, 16).ReadString('\n')
	if err != nil || !strings.Contains(status, " 200 ") {
		t.Fatalf("the stalled client's first answer: %q, %v", status, err)
	}
	return c
}

// A client that pipelines calls with huge answers and stops reading holds
// its own connection only: another client's calls go on being answered
// at once, with one Lua state and with two (--workers 2, a stalled client
// per state).
func TestHTTPStalledClientCostsOnlyItself(t *testing.T) {
	for _, workers := range []int{1, 2} {
		for _, era := range []string{"modern", "legacy"} {
			t.Run(fmt.Sprintf("workers=%d/%s", workers, era), func(t *testing.T) {
				srv := serveHTTPArgs(t, "testdata/hostile.lua", "--http", "127.0.0.1:0/mcp", "--workers", fmt.Sprint(workers))
				for range workers {
					sid := ""
					if era == "legacy" {
						sid = legacySession(t, srv.url)
					}
					stall(t, srv.url, era, sid)
				}
				client := &http.Client{Timeout: 10 * time.Second}
				sid := ""
				if era == "legacy" {
					sid = legacySession(t, srv.url)
				}
				// Unmeasured: the stalled clients' calls that fit in the
				// socket buffers are being served meanwhile, and this
				// client's first call opens its connection.
				for i := range 20 {
					callOnce(t, client, srv.url, era, sid, 10000+i)
				}
				// The p99 of 200 calls under 100 ms; on a shared machine a
				// round can be slowed by others, so up to three are tried
				// (with the bug, calls time out).
				var p99s []time.Duration
				for round := range 3 {
					var lat []time.Duration
					for i := range 200 {
						lat = append(lat, callOnce(t, client, srv.url, era, sid, round*1000+i+1))
					}
					slices.Sort(lat)
					p99 := lat[len(lat)*99/100]
					t.Logf("the other client: p50 %s, p99 %s, max %s", lat[len(lat)/2], p99, lat[len(lat)-1])
					if p99 <= 100*time.Millisecond {
						return
					}
					p99s = append(p99s, p99.Round(time.Millisecond))
				}
				t.Errorf("another client's p99 was %v in three rounds while stalled clients held their connections; want under 100ms", p99s)
			})
		}
	}
}

// A handler that spins is stopped when its 2026-07-28 client goes away
// (closing the stream is cancelling), even one running on the request's
// own goroutine; the next call finds the Lua state free.
func TestHTTPSpinningHandlerStopsWhenItsClientLeaves(t *testing.T) {
	srv := serveHTTPArgs(t, "testdata/hostile.lua", "--http", "127.0.0.1:0/mcp")
	ctx, cancel := context.WithCancel(context.Background())
	req := mcpPost(ctx, srv.url, modernCallBody(1, "spin", `{"seconds":30}`), modernCallHeaders("spin")...)
	done := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			// Progress came first: an SSE stream; read until cancelled.
			_, err = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		done <- err
	}()
	// Leave after half a second: the handler is spinning by then.
	time.AfterFunc(500*time.Millisecond, cancel)
	<-done
	start := time.Now()
	callOnce(t, &http.Client{Timeout: 10 * time.Second}, srv.url, "modern", "", 2)
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("the next call took %s: the abandoned handler kept the state", d)
	}
}
