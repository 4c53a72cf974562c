package benchsrv

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/testkit"
)

var eras = []Era{Modern, Legacy}

func echoBin(t testing.TB) string { return testkit.Build(t, "runtime/testkit/servers/echo") }

// TestWire records what the harness writes (tee in front of the hand-written
// echo server) and checks each era's opening and envelope.
func TestWire(t *testing.T) {
	echo := echoBin(t)
	for _, era := range eras {
		t.Run(string(era), func(t *testing.T) {
			log := filepath.Join(t.TempDir(), "stdin.log")
			s := Options{Era: era}.Start(t, "sh", "-c", `tee "$0" | exec "$1"`, log, echo)
			if err := s.listTools(); err != nil {
				t.Fatal(err)
			}
			if err := s.sequential(3, nil); err != nil {
				t.Fatal(err)
			}
			if err := s.inFlight(10, 4); err != nil {
				t.Fatal(err)
			}
			s.Close()
			// tee may write the log after forwarding the last line.
			lines := 2 + 3 + 10 // opening, tools/list, the calls
			if era == Legacy {
				lines++ // notifications/initialized
			}
			var data []byte
			for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				data, _ = os.ReadFile(log)
				if bytes.Count(data, []byte("\n")) >= lines || time.Now().After(deadline) {
					break
				}
			}
			var methods []string
			ids := map[float64]bool{}
			for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
				var m struct {
					ID     *float64 `json:"id"`
					Method string   `json:"method"`
					Params struct {
						Meta      map[string]json.RawMessage `json:"_meta"`
						Name      string                     `json:"name"`
						Arguments map[string]string          `json:"arguments"`
					} `json:"params"`
				}
				if err := json.Unmarshal([]byte(l), &m); err != nil {
					t.Fatalf("invalid JSON line %q: %v", l, err)
				}
				methods = append(methods, m.Method)
				if m.ID != nil {
					if ids[*m.ID] {
						t.Errorf("id %v reused", *m.ID)
					}
					ids[*m.ID] = true
				}
				meta := m.Params.Meta
				if era == Modern && m.ID != nil {
					if string(meta["io.modelcontextprotocol/protocolVersion"]) != `"2026-07-28"` ||
						string(meta["io.modelcontextprotocol/clientCapabilities"]) != `{}` {
						t.Errorf("modern request without the envelope: %s", l)
					}
				}
				if era == Legacy && meta != nil {
					t.Errorf("legacy request with _meta: %s", l)
				}
				if m.Method == "tools/call" && (m.Params.Name != "echo" || m.Params.Arguments["message"] != "hi") {
					t.Errorf("bad call: %s", l)
				}
			}
			want := []string{"server/discover"}
			if era == Legacy {
				want = []string{"initialize", "notifications/initialized"}
			}
			want = append(want, "tools/list")
			for range 3 + 10 {
				want = append(want, "tools/call")
			}
			if strings.Join(methods, " ") != strings.Join(want, " ") {
				t.Errorf("methods sent:\n%v\nwant\n%v", methods, want)
			}
		})
	}
}

// TestEraReachesServer: the hand-written echo marks its results with
// resultType only after server/discover, so the era shows in the answers.
func TestEraReachesServer(t *testing.T) {
	echo := echoBin(t)
	for _, era := range eras {
		s := Options{Era: era}.Start(t, echo)
		id := s.id()
		s.send(id, s.callTail)
		line, err := s.await(id)
		if err != nil {
			t.Fatal(err)
		}
		if got := bytes.Contains(line, []byte(`"resultType":"complete"`)); got != (era == Modern) {
			t.Errorf("%s: answer %s", era, line)
		}
	}
}

func TestTopLevel(t *testing.T) {
	for _, c := range []struct {
		line            string
		id, err, method string
		ok              bool
	}{
		{`{"jsonrpc":"2.0","id":7,"result":{"id":99,"content":[{"type":"text","text":"hi"}]}}` + "\n", "7", "", "", true},
		{`{"result":{"x":"}\"{","error":1},"jsonrpc":"2.0","id":12}`, "12", "", "", true},
		{`{ "jsonrpc" : "2.0" , "id" : 3 , "error" : {"code":-32601,"message":"no"} }`, "3", `{"code":-32601,"message":"no"}`, "", true},
		{`{"jsonrpc":"2.0","method":"notifications/message","params":{"id":1}}`, "", "", `"notifications/message"`, true},
		{`{"jsonrpc":"2.0","id":"d1","method":"roots/list"}`, `"d1"`, "", `"roots/list"`, true},
		{`{}`, "", "", "", true},
		{`[1]`, "", "", "", false},
		{`{"id":1`, "1", "", "", false},
		{`{"a":"unterminated}`, "", "", "", false},
	} {
		m, ok := topLevel([]byte(c.line))
		if ok != c.ok || string(m.id) != c.id || string(m.err) != c.err || string(m.method) != c.method {
			t.Errorf("topLevel(%s) = id %q err %q method %q ok %v", c.line, m.id, m.err, m.method, ok)
		}
	}
	if _, ok := parseID([]byte(`"1"`)); ok {
		t.Error("string id parsed")
	}
	if n, ok := parseID([]byte(`12345`)); !ok || n != 12345 {
		t.Error("parseID(12345)", n, ok)
	}
}

// TestErrors: a silent server times out, a dying one shows its stderr, an
// error response and a wrong answer are reported.
func TestErrors(t *testing.T) {
	o := Options{Timeout: 300 * time.Millisecond}
	s, err := o.start("sh", []string{"-c", "exec sleep 30"})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = s.handshake()
	s.Close()
	if err == nil || !strings.Contains(err.Error(), "no response") || time.Since(start) > 3*time.Second {
		t.Errorf("silent server: %v after %v", err, time.Since(start))
	}

	s, err = o.start("sh", []string{"-c", "echo oops >&2; exit 3"})
	if err != nil {
		t.Fatal(err)
	}
	err = s.handshake()
	s.Close()
	if err == nil || !strings.Contains(err.Error(), "oops") {
		t.Errorf("dying server: %v", err)
	}

	// Answers every line with an error response carrying id 1, then 2, ...
	script := `i=0; while read -r l; do i=$((i+1)); echo '{"jsonrpc":"2.0","id":'$i',"error":{"code":-32601,"message":"nope"}}'; done`
	s, err = o.start("sh", []string{"-c", script})
	if err != nil {
		t.Fatal(err)
	}
	err = s.handshake()
	s.Close()
	if err == nil || !strings.Contains(err.Error(), "error response") {
		t.Errorf("error response: %v", err)
	}

	// A discover answer that is fine, then calls answered without "hi" and
	// with the wrong id.
	script = `read -r l; echo '{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"]}}'
read -r l; echo '{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"ho"}]}}'
read -r l; echo '{"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"hi"}]}}'
cat >/dev/null`
	s, err = o.start("sh", []string{"-c", script})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.handshake(); err != nil {
		t.Fatal(err)
	}
	if err := s.call(); err == nil || !strings.Contains(err.Error(), `lacks "hi"`) {
		t.Errorf("wrong text: %v", err)
	}
	if err := s.call(); err == nil || !strings.Contains(err.Error(), "want 3") {
		t.Errorf("wrong id: %v", err)
	}
}

// TestWorkloads runs each workload through testing.Benchmark against the
// hand-written echo server and checks the metrics it reports.
func TestWorkloads(t *testing.T) {
	if testing.Short() {
		t.Skip("runs benchmarks")
	}
	echo := echoBin(t)
	for _, era := range eras {
		o := Options{Era: era}
		metric := func(name string, r testing.BenchmarkResult, unit string) float64 {
			t.Helper()
			v, ok := r.Extra[unit]
			if r.N == 0 || !ok || v <= 0 {
				t.Errorf("%s/%s: N=%d %s=%v (%v)", name, era, r.N, unit, v, r.Extra)
			}
			return v
		}
		r := testing.Benchmark(func(b *testing.B) { Sequential(b, o.Start(b, echo)) })
		metric("Sequential", r, "calls/s")
		metric("Sequential", r, "p50-us")
		r = testing.Benchmark(func(b *testing.B) { InFlight(b, o.Start(b, echo), 16) })
		metric("InFlight", r, "calls/s")
		o.Starts = 5
		r = testing.Benchmark(func(b *testing.B) { o.ColdStart(b, echo) })
		if ms := metric("ColdStart", r, "median-ms"); ms > 5000 {
			t.Errorf("cold start %v ms", ms)
		}
		if _, ok := r.Extra["ns/op"]; !ok {
			t.Errorf("ns/op not suppressed: %v", r.Extra)
		}
	}
}

// TestPeakRSS: the hand-written echo server's peak is a few MiB in either era.
func TestPeakRSS(t *testing.T) {
	echo := echoBin(t)
	for _, era := range eras {
		mib := Options{Era: era}.PeakRSS(t, 1000, echo)
		if mib < 0.5 || mib > 100 {
			t.Errorf("%s: peak RSS of the echo server %.1f MiB", era, mib)
		}
		t.Logf("%s: echo server peak RSS %.2f MiB", era, mib)
	}
}
