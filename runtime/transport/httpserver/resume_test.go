package httpserver_test

import (
	"bufio"
	"net/http"
	"strings"
	"testing"
	"time"
)

type sseEv struct{ id, data string }

// readEvents reads SSE events from resp until stop says so or it ends.
func readEvents(t *testing.T, resp *http.Response, stop func(sseEv) bool) []sseEv {
	t.Helper()
	var evs []sseEv
	var cur sseEv
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case l == "":
			evs = append(evs, cur)
			if stop != nil && stop(cur) {
				return evs
			}
			cur = sseEv{}
		case strings.HasPrefix(l, "id: "):
			cur.id = l[4:]
		case strings.HasPrefix(l, "data: "):
			cur.data = l[6:]
		}
	}
	return evs
}

// A 2025-11-25 POST stream that breaks before its answer is resumed by a
// GET with Last-Event-ID: the events after that id, then the answer.
func TestLegacyStreamResumes(t *testing.T) {
	ts, _ := start(t)
	r := post(t, ts.URL, nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	sid := r.header.Get("Mcp-Session-Id")
	hdr := map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"}
	post(t, ts.URL, hdr, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	call := func(id string) (primeID, progressID string) {
		req, _ := http.NewRequest("POST", ts.URL, strings.NewReader(`{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"later","arguments":{},"_meta":{"progressToken":"p`+id+`"}}}`))
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		evs := readEvents(t, resp, func(e sseEv) bool { return strings.Contains(e.data, "notifications/progress") })
		resp.Body.Close() // the stream breaks before the answer
		if len(evs) != 2 || evs[0].data != "" || evs[0].id == "" || evs[1].id == "" {
			t.Fatalf("want a priming event, then progress, each with an id: %+v", evs)
		}
		return evs[0].id, evs[1].id
	}
	// resume GETs the stream from last on; once the GET is answered (the
	// server then hands the stream's further events to it), whileOpen runs.
	resume := func(last string, whileOpen func(*testing.T)) []sseEv {
		req, _ := http.NewRequest("GET", ts.URL, nil)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Last-Event-ID", last)
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("GET: %v %v", resp, err)
		}
		defer resp.Body.Close()
		if whileOpen != nil {
			whileOpen(t)
		}
		done := make(chan []sseEv, 1)
		go func() { done <- readEvents(t, resp, nil) }() // the resumed stream ends after the answer
		select {
		case evs := <-done:
			return evs
		case <-time.After(5 * time.Second):
			t.Fatal("the resumed stream did not end with the answer")
		}
		return nil
	}

	// Resumed while the request still runs: the answer arrives live.
	_, progress := call("7")
	evs := resume(progress, answerLater)
	if last := evs[len(evs)-1]; !strings.Contains(last.data, `"id":7`) || !strings.Contains(last.data, "later done") || last.id == "" {
		t.Errorf("resumed after the progress: %+v", evs)
	}
	for _, e := range evs {
		if strings.Contains(e.data, "notifications/progress") {
			t.Errorf("the progress before Last-Event-ID was sent again: %+v", evs)
		}
	}

	// Resumed after the answer was made: replayed from the log, from the
	// priming event's id on (the progress too).
	prime, _ := call("8")
	answerLater(t)
	evs = resume(prime, nil)
	var datas []string
	for _, e := range evs {
		if e.data != "" {
			datas = append(datas, e.data)
		}
	}
	if len(datas) != 2 || !strings.Contains(datas[0], "notifications/progress") || !strings.Contains(datas[1], `"id":8`) {
		t.Errorf("replay from the priming id: %q", datas)
	}
}
