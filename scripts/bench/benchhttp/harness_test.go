package benchhttp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/luagent/luagent/scripts/bench/benchsrv"
)

// stub is an in-process echo server recording what the harness sends. It
// answers as JSON, or (sse) as an SSE stream with a priming event, a
// comment and a progress notification before the answer. wrong, if set,
// may change the answer to the n-th tools/call (counted from 1 over all
// clients): return the text to send, or a whole reply to write instead.
type stub struct {
	sse   bool
	wrong func(n int64, msg string) (text string, reply string)

	calls    atomic.Int64
	mu       sync.Mutex
	reqs     []recorded
	sessions int
}

type recorded struct {
	verb   string
	header http.Header
	body   []byte
}

type stubMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Name      string                     `json:"name"`
		Arguments map[string]string          `json:"arguments"`
		Meta      map[string]json.RawMessage `json:"_meta"`
	} `json:"params"`
}

func (s *stub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.reqs = append(s.reqs, recorded{r.Method, r.Header.Clone(), body})
	s.mu.Unlock()
	if r.Method == http.MethodDelete {
		return
	}
	var m stubMsg
	if err := json.Unmarshal(body, &m); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if m.ID == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	modern := m.Params.Meta != nil
	var result string
	switch m.Method {
	case "server/discover":
		result = `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}`
	case "initialize":
		s.mu.Lock()
		s.sessions++
		w.Header().Set("Mcp-Session-Id", fmt.Sprintf("sess-%d", s.sessions))
		s.mu.Unlock()
		result = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"stub","version":"0"}}`
	case "tools/call":
		text := m.Params.Arguments["message"]
		if s.wrong != nil {
			t, reply := s.wrong(s.calls.Add(1), text)
			if reply != "" {
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, reply)
				return
			}
			text = t
		}
		rt := ""
		if modern {
			rt = `"resultType":"complete",`
		}
		tb, _ := json.Marshal(text)
		result = `{` + rt + `"content":[{"type":"text","text":` + string(tb) + `}]}`
	default:
		http.Error(w, "unknown method", http.StatusNotFound)
		return
	}
	reply := `{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":` + result + `}`
	if !s.sse {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, reply)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	io.WriteString(w, "id: 0\ndata:\n\n: keep-alive\n\n")
	io.WriteString(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\n\n")
	io.WriteString(w, "event: message\r\ndata: "+reply+"\r\n\r\n")
}

func (s *stub) recorded() []recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]recorded(nil), s.reqs...)
}

// TestWire: what the harness sends in each era (headers, envelope,
// sessions), with JSON and SSE answers.
func TestWire(t *testing.T) {
	for _, era := range []benchsrv.Era{benchsrv.Modern, benchsrv.Legacy} {
		for _, sse := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/sse=%v", era, sse), func(t *testing.T) {
				st := &stub{sse: sse}
				hs := httptest.NewServer(st)
				defer hs.Close()
				ctx := context.Background()
				const clients, calls = 3, 5
				l, err := Open(ctx, Options{URL: hs.URL, Era: era}, clients)
				if err != nil {
					t.Fatal(err)
				}
				stats := l.Each(ctx, calls)
				if err := stats.Err(); err != nil {
					t.Fatal(err)
				}
				if stats.Answered != clients*calls || len(stats.Lat) != clients*calls {
					t.Fatalf("answered %d, %d latencies", stats.Answered, len(stats.Lat))
				}
				more := l.Shared(ctx, 7)
				if err := more.Err(); err != nil || more.Answered != 7 {
					t.Fatalf("Shared(7): %d answered, %v", more.Answered, err)
				}
				if err := l.Close(ctx); err != nil {
					t.Fatal(err)
				}
				checkWire(t, era, st.recorded(), clients, clients*calls+7)
			})
		}
	}
}

func checkWire(t *testing.T, era benchsrv.Era, reqs []recorded, clients, calls int) {
	t.Helper()
	msgs := map[string]bool{}
	perSession := map[string][]string{} // session → methods in order
	ids := map[string]bool{}            // session + id
	nCalls := 0
	for _, r := range reqs {
		h := r.header
		sid := h.Get("Mcp-Session-Id")
		if r.verb == http.MethodDelete {
			perSession[sid] = append(perSession[sid], "DELETE")
			continue
		}
		var m stubMsg
		if err := json.Unmarshal(r.body, &m); err != nil {
			t.Fatalf("invalid JSON body %q: %v", r.body, err)
		}
		if h.Get("Content-Type") != "application/json" || h.Get("Accept") != "application/json, text/event-stream" {
			t.Errorf("%s: Content-Type %q, Accept %q", m.Method, h.Get("Content-Type"), h.Get("Accept"))
		}
		if m.ID != nil {
			key := sid + "/" + string(m.ID)
			if era == benchsrv.Legacy && sid != "" && ids[key] {
				t.Errorf("id %s reused in session %q", m.ID, sid)
			}
			ids[key] = true
		}
		if m.Method == "tools/call" {
			nCalls++
			msg := m.Params.Arguments["message"]
			if m.Params.Name != "echo" || msg == "" || msg[0] != 'c' || msgs[msg] {
				t.Errorf("tools/call name %q message %q (repeated: %v)", m.Params.Name, msg, msgs[msg])
			}
			msgs[msg] = true
		}
		switch era {
		case benchsrv.Modern:
			if string(m.Params.Meta["io.modelcontextprotocol/protocolVersion"]) != `"2026-07-28"` ||
				string(m.Params.Meta["io.modelcontextprotocol/clientCapabilities"]) != `{}` {
				t.Errorf("modern request without the envelope: %s", r.body)
			}
			if h.Get("MCP-Protocol-Version") != ModernVersion || h.Get("Mcp-Method") != m.Method || sid != "" {
				t.Errorf("%s: headers %v", m.Method, h)
			}
			if name := h.Get("Mcp-Name"); (m.Method == "tools/call") != (name == "echo") {
				t.Errorf("%s: Mcp-Name %q", m.Method, name)
			}
			if m.Method != "server/discover" && m.Method != "tools/call" {
				t.Errorf("unexpected modern method %s", m.Method)
			}
		case benchsrv.Legacy:
			if m.Params.Meta != nil {
				t.Errorf("legacy request with _meta: %s", r.body)
			}
			if m.Method == "initialize" {
				if sid != "" || h.Get("MCP-Protocol-Version") != "" {
					t.Errorf("initialize with headers %v", h)
				}
			} else if sid == "" || h.Get("MCP-Protocol-Version") != LegacyVersion || h.Get("Mcp-Method") != "" {
				t.Errorf("%s: headers %v", m.Method, h)
			}
			perSession[sid] = append(perSession[sid], m.Method)
		}
	}
	if nCalls != calls || len(msgs) != calls {
		t.Errorf("%d tools/call (%d distinct messages), want %d", nCalls, len(msgs), calls)
	}
	if era != benchsrv.Legacy {
		return
	}
	// initialize carries no session id yet: one entry "" with all of them.
	if n := len(perSession[""]); n != clients {
		t.Errorf("%d initialize requests, want %d", n, clients)
	}
	delete(perSession, "")
	if len(perSession) != clients {
		t.Errorf("%d sessions used, want %d", len(perSession), clients)
	}
	for sid, ms := range perSession {
		if len(ms) < 2 || ms[0] != "notifications/initialized" || ms[len(ms)-1] != "DELETE" {
			t.Errorf("session %s: %v", sid, ms)
		}
		for _, m := range ms[1 : len(ms)-1] {
			if m != "tools/call" {
				t.Errorf("session %s: %v", sid, ms)
			}
		}
	}
}

// TestLost: every way an answer can be wrong or missing fails the run,
// says so, and counts only the correct answers.
func TestLost(t *testing.T) {
	cases := []struct {
		name  string
		sse   bool
		wrong func(n int64, msg string) (string, string)
		want  string
	}{
		{"wrong text", false, func(n int64, msg string) (string, string) {
			if n == 4 {
				return msg + "x", ""
			}
			return msg, ""
		}, "answered text"},
		{"another client's answer", true, func(n int64, msg string) (string, string) {
			if n == 2 {
				return "c99-0", ""
			}
			return msg, ""
		}, `answered text "c99-0"`},
		{"wrong id", false, func(n int64, msg string) (string, string) {
			if n == 3 {
				return "", `{"jsonrpc":"2.0","id":12345,"result":{"resultType":"complete","content":[{"type":"text","text":"` + msg + `"}]}}`
			}
			return msg, ""
		}, "the answer's id is 12345"},
		{"error answer", false, func(n int64, msg string) (string, string) {
			if n == 5 {
				return "", `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"boom"}}`
			}
			return msg, ""
		}, "boom"},
		{"not JSON", false, func(n int64, msg string) (string, string) {
			if n == 1 {
				return "", `{"jsonrpc":"2.0",`
			}
			return msg, ""
		}, "not JSON"},
	}
	for _, era := range []benchsrv.Era{benchsrv.Modern, benchsrv.Legacy} {
		for _, c := range cases {
			t.Run(string(era)+"/"+c.name, func(t *testing.T) {
				hs := httptest.NewServer(&stub{sse: c.sse, wrong: c.wrong})
				defer hs.Close()
				l, err := Open(context.Background(), Options{URL: hs.URL, Era: era}, 2)
				if err != nil {
					t.Fatal(err)
				}
				defer l.Close(context.Background())
				st := l.Each(context.Background(), 4)
				err = st.Err()
				if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "of 8 calls answered") {
					t.Fatalf("err = %v, want one saying %q", err, c.want)
				}
				if st.Failed != 1 || st.Answered >= 8 || st.Answered != len(st.Lat) {
					t.Fatalf("failed %d, answered %d (%d latencies)", st.Failed, st.Answered, len(st.Lat))
				}
			})
		}
	}
}

// TestTimeoutAndStatus: a call that is never answered fails after the
// timeout; an HTTP error status and an SSE stream without the answer are
// errors.
func TestTimeoutAndStatus(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	var n atomic.Int64
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		switch n.Add(1) {
		case 1: // server/discover: never answered
			select {
			case <-release:
			case <-r.Context().Done():
			}
		case 2:
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
		case 3:
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n")
		}
	}))
	defer hs.Close()
	c := NewClient(Options{URL: hs.URL, Timeout: 200 * time.Millisecond})
	t0 := time.Now()
	err := c.Open(context.Background())
	if err == nil || !strings.Contains(err.Error(), "deadline") || time.Since(t0) > 5*time.Second {
		t.Errorf("unanswered: %v after %v", err, time.Since(t0))
	}
	if err := c.Echo(context.Background(), "a"); err == nil || !strings.Contains(err.Error(), "HTTP 503") {
		t.Errorf("503: %v", err)
	}
	if err := c.Echo(context.Background(), "b"); err == nil || !strings.Contains(err.Error(), "ended without the answer") {
		t.Errorf("SSE without the answer: %v", err)
	}
}

func TestStartServerExited(t *testing.T) {
	_, err := StartServer([]string{"sh", "-c", "echo 'luagent: unknown serve option --workers' >&2; exit 2"}, nil, 5*time.Second)
	ee, ok := err.(*ExitedError)
	if !ok || !strings.Contains(ee.Output, "unknown serve option --workers") {
		t.Fatalf("err = %v", err)
	}
	s, err := StartServer([]string{"sh", "-c", "echo starting; echo 'listening on http://127.0.0.1:1/mcp' >&2; exec sleep 30"}, nil, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.URL != "http://127.0.0.1:1/mcp" || !strings.Contains(s.Output(), "starting") {
		t.Fatalf("URL %q, output %q", s.URL, s.Output())
	}
}
