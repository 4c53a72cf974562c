package main

import (
	"bufio"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// httpServer is a `luagent serve --http` process under test.
type httpServer struct {
	cmd    *exec.Cmd
	url    string
	mu     sync.Mutex
	stderr strings.Builder
	grew   chan struct{} // closed (and replaced) when stderr grows or ends
	eof    bool          // stderr ended
	exited chan error
}

func serveHTTPArgs(t *testing.T, args ...string) *httpServer {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve"}, args...)...)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &httpServer{cmd: cmd, grew: make(chan struct{}), exited: make(chan error, 1)}
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			s.mu.Lock()
			s.stderr.WriteString(sc.Text() + "\n")
			close(s.grew)
			s.grew = make(chan struct{})
			s.mu.Unlock()
			if _, url, ok := strings.Cut(sc.Text(), " at http"); ok && (strings.HasPrefix(url, "://") || strings.HasPrefix(url, "s://")) {
				url, _, _ = strings.Cut(url, " ")
				urls <- "http" + url
			}
		}
		s.mu.Lock()
		s.eof = true
		close(s.grew)
		s.mu.Unlock()
		s.exited <- cmd.Wait()
	}()
	t.Cleanup(func() { cmd.Process.Kill(); <-s.exited })
	select {
	case s.url = <-urls:
	case err := <-s.exited:
		s.exited <- err // for the cleanup
		t.Fatalf("the server exited at start (%v): %s", err, s.log())
	case <-time.After(20 * time.Second):
		t.Fatalf("the server did not start: %s", s.log())
	}
	return s
}

// waitExit waits for a clean exit (status 0) within 5 s.
func (s *httpServer) waitExit(t *testing.T, when string) {
	t.Helper()
	select {
	case err := <-s.exited:
		if err != nil {
			t.Errorf("exit %s: %v\n%s", when, err, s.log())
		}
		s.exited <- err // for the cleanup
	case <-time.After(5 * time.Second):
		t.Fatalf("no exit %s", when)
	}
}

// waitLog waits until the server's stderr contains substr, and says
// whether it did before stderr ended or 20 s passed. It does not fail the
// test, so that a goroutine may call it.
func (s *httpServer) waitLog(substr string) bool {
	timeout := time.After(20 * time.Second)
	for {
		s.mu.Lock()
		found, eof, grew := strings.Contains(s.stderr.String(), substr), s.eof, s.grew
		s.mu.Unlock()
		if found || eof {
			return found
		}
		select {
		case <-grew:
		case <-timeout:
			return false
		}
	}
}

func (s *httpServer) log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stderr.String()
}

// modernCall POSTs a 2026-07-28 tools/call and returns the HTTP status and
// body (an error's text instead when the request fails).
func modernCall(url, tool, args string) (int, string) {
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args +
		`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", tool)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// --workers N: modern calls go to the idlest state, a legacy session keeps
// its state, and elicitation rounds verify on whichever state they reach.
func TestServeWorkers(t *testing.T) {
	srv := serveHTTPArgs(t, "testdata/workers.lua", "--http", "127.0.0.1:0/mcp", "--workers", "2")
	if !strings.Contains(srv.log(), "; 2 workers) at http") {
		t.Errorf("start-up line: %s", srv.log())
	}
	client := `
local url, era = arg[1], arg[2]
local c = mcp.connect{ url = url, protocol = era, on_elicit = function(p)
  local key = next(p.requestedSchema.properties)
  return { action = "accept", content = { [key] = p.message:match("^(%a+)") } }
end }
local seen, n = {}, 0
local function who()
  local w = c:call("who", {}).content[1].text
  if not seen[w] then seen[w] = true; n = n + 1 end
end
-- A slow call holds one state: modern calls meanwhile go to the other;
-- once all are idle, to the first.
local slow = task.spawn(function() return c:call("slow", { seconds = 0.3 }) end)
task.sleep(0.05)
for i = 1, 6 do who() end
slow:await()
for i = 1, 6 do who() end
print("states", n)
local crossed = 0
for i = 1, 10 do
  local text = c:call("ask", {}).content[1].text
  assert(text:match("^first%+second@"), text)
end
print("asked ok")
c:close()`
	dir := t.TempDir()
	script := writeFile(t, dir, "client.lua", client)
	for era, want := range map[string]string{"modern": "states\t2", "legacy": "states\t1"} {
		r := luagent(t, "", nil, "run", script, srv.url, era)
		if r.code != 0 || !strings.Contains(r.stdout, want) || !strings.Contains(r.stdout, "asked ok") {
			t.Errorf("%s: %+v (want %q: a legacy session stays on one state, modern calls use the idle one)", era, r, want)
		}
	}
	// Legacy sessions spread over the states.
	states := map[string]bool{}
	for range 4 {
		r := luagent(t, "", nil, "-e", `local c = mcp.connect{url = "`+srv.url+`", protocol = "legacy"}; print(c:call("who", {}).content[1].text); c:close()`)
		states[strings.TrimSpace(r.stdout)] = true
	}
	if len(states) != 2 {
		t.Errorf("4 legacy sessions reached states %v, want both", states)
	}
}

// A worker whose script fails stops the start with the reason.
func TestServeWorkersScriptError(t *testing.T) {
	dir := t.TempDir()
	// The first state succeeds, the next ones fail: the script sees a
	// global the first run set (each state is fresh, so it never does).
	f := writeFile(t, dir, "bad.lua", `
local n = tonumber(env.get("LUAGENT_TEST_RUNS_FILE_N") or "0")
if _G.__ran then error("never") end
local f = io.open(arg[1], "a"); f:write("x"); f:close()
local g = io.open(arg[1]); local count = #g:read("*a"); g:close()
if count > 1 then error("second state refuses") end
return mcp.server{ name = "bad" }`)
	marks := writeFile(t, dir, "marks", "")
	r := luagent(t, "", nil, "serve", f, "--http", "127.0.0.1:0/mcp", "--workers", "2", "--", marks)
	if r.code == 0 || !strings.Contains(r.stderr, "worker 2: ") || !strings.Contains(r.stderr, "second state refuses") {
		t.Errorf("%+v", r)
	}
}

// SIGTERM: a call in flight finishes and is answered, then the process
// exits 0; a call longer than --grace is stopped and the process still
// exits promptly.
func TestServeHTTPDrainOnSIGTERM(t *testing.T) {
	srv := serveHTTPArgs(t, "testdata/workers.lua", "--http", "127.0.0.1:0/mcp", "--grace", "5")
	type answer struct {
		status int
		body   string
	}
	got := make(chan answer, 1)
	go func() {
		st, b := modernCall(srv.url, "slow", `{"seconds":0.8}`)
		got <- answer{st, b}
	}()
	if !srv.waitLog("slow call started") {
		t.Fatalf("the slow call did not start: %s", srv.log())
	}
	start := time.Now()
	srv.cmd.Process.Signal(syscall.SIGTERM)
	a := <-got
	if a.status != 200 || !strings.Contains(a.body, "slept 0.8") {
		t.Errorf("the call in flight at SIGTERM: %d %s", a.status, a.body)
	}
	srv.waitExit(t, "after draining")
	// The call needs 0.8 s after SIGTERM (sent as it starts); a race build
	// sleeps 1 s more at exit. Waiting out the 5 s grace is the failure.
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("exit took %v after SIGTERM; the call needed 0.8 s, the grace is 5 s", d)
	}

	srv = serveHTTPArgs(t, "testdata/workers.lua", "--http", "127.0.0.1:0/mcp", "--grace", "0.5")
	go func() {
		st, b := modernCall(srv.url, "slow", `{"seconds":30}`)
		got <- answer{st, b}
	}()
	if !srv.waitLog("slow call started") {
		t.Fatalf("the slow call did not start: %s", srv.log())
	}
	start = time.Now()
	srv.cmd.Process.Signal(syscall.SIGTERM)
	srv.waitExit(t, "after the grace period")
	if d := time.Since(start); d > 2500*time.Millisecond {
		t.Errorf("exit took %v with --grace 0.5", d)
	}
	if !strings.Contains(srv.log(), "grace period were stopped") {
		t.Errorf("no word about the stopped call: %s", srv.log())
	}
	a = <-got
	if a.status == 200 && strings.Contains(a.body, "slept") {
		t.Errorf("the 30 s call was answered: %s", a.body)
	}
}

// The server dies mid-call: the call fails soon, naming the server, in
// both eras, as unknown_outcome (the call may have run: it is not sent
// again).
func TestHTTPClientServerKilledMidCall(t *testing.T) {
	for _, era := range []string{"modern", "legacy"} {
		t.Run(era, func(t *testing.T) {
			srv := serveHTTPArgs(t, "testdata/workers.lua", "--http", "127.0.0.1:0/mcp")
			go func() { // once the call is in flight
				srv.waitLog("slow call started")
				srv.cmd.Process.Kill()
			}()
			start := time.Now()
			r := luagent(t, "", nil, "-e", `
local c = mcp.connect{ url = "`+srv.url+`", name = "doomed", protocol = "`+era+`", timeout = 20 }
local ok, err = task.pcall(c.call, c, "slow", { seconds = 30 })
print(ok, err.kind, err)`)
			if r.code != 0 || !strings.HasPrefix(r.stdout, "false\tunknown_outcome\t") || !strings.Contains(r.stdout, "MCP server doomed at "+srv.url) {
				t.Errorf("%+v", r)
			}
			if d := time.Since(start); d > 8*time.Second {
				t.Errorf("the failure took %v", d)
			}
			t.Logf("%s", strings.TrimSpace(r.stdout))
		})
	}
}
