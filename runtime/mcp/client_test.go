package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/mcp"
	"github.com/luagent/luagent/runtime/trace"
	"github.com/luagent/luagent/runtime/transport"
)

// connect connects to the fake server with test-friendly timeouts and
// closes the client when the test ends, checking that no goroutine leaks.
func connect(t *testing.T, o mcp.Options) *mcp.Client {
	t.Helper()
	spawnerOnce.Do(startSpawner)
	base := runtime.NumGoroutine()
	if o.ProbeTimeout == 0 {
		o.ProbeTimeout = 2 * time.Second
	}
	if o.Timeout == 0 {
		o.Timeout = 10 * time.Second
	}
	if o.StartupTimeout == 0 {
		o.StartupTimeout = 20 * time.Second
	}
	if o.Name == "" {
		o.Name = "fake"
	}
	mcp.ForgetEra()
	c, err := mcp.Connect(context.Background(), o)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() {
		c.Close()
		deadline := time.Now().Add(5 * time.Second)
		for runtime.NumGoroutine() > base && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > base {
			buf := make([]byte, 1<<16)
			t.Errorf("%d goroutines leaked:\n%s", n-base, buf[:runtime.Stack(buf, true)])
		}
	})
	return c
}

// startSpawner starts a process once, so that the one goroutine meant to
// stay (transport starts every server from it, for as long as the process
// lives) is not counted as a leak.
func startSpawner() {
	if p, err := transport.Start(transport.Command{Path: "true"}, transport.Options{}); err == nil {
		p.Close()
	}
}

var spawnerOnce sync.Once

func kind(err error) errs.Kind { return errs.KindOf(err) }

func TestModernServer(t *testing.T) {
	cmd, log := fakeServer(t, "-era", "modern")
	c := connect(t, mcp.Options{Command: cmd})
	info := c.Info()
	if info.Era != mcp.EraModern || info.ProtocolVersion != "2026-07-28" || info.ServerInfo.Name != "fake" || info.Instructions == "" {
		t.Fatalf("info %+v", info)
	}
	r, err := c.CallTool(context.Background(), "echo", json.RawMessage(`{"message":"hi"}`), mcp.CallOptions{})
	if err != nil || r.Text() != "hi" {
		t.Fatalf("echo: %v %v", r, err)
	}
	// Every request carries the required envelope keys.
	for _, m := range wire(t, log) {
		if len(m["id"]) == 0 {
			continue
		}
		var p struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		}
		json.Unmarshal(m["params"], &p)
		for _, k := range []string{mcp.MetaProtocolVersion, mcp.MetaClientCapabilities, mcp.MetaClientInfo} {
			if len(p.Meta[k]) == 0 {
				t.Errorf("%s lacks _meta %s: %s", m["method"], k, m["params"])
			}
		}
	}
	if got := methods(wire(t, log)); got[0] != "server/discover" || contains(got, "initialize") {
		t.Errorf("wire %v", got)
	}
}

// The §27 probe pitfalls: every way a legacy server answers the probe ends
// in initialize, never in a failure.
func TestLegacyFallbacks(t *testing.T) {
	tests := []struct {
		probe   string
		respawn bool
		slow    bool // the decision waits for the probe timeout
	}{
		{"method-not-found", false, false},
		{"invalid-params", false, false},
		{"silent", false, true},
		{"exit", true, false},
		{"junk", false, true},
		{"invalid-jsonrpc", false, false},
		{"legacy-discover", false, false},
		{"unsupported-legacy", false, false},
		{"old-code", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.probe, func(t *testing.T) {
			cmd, log := fakeServer(t, "-era", "legacy", "-probe", tt.probe)
			rec := &trace.Recorder{}
			start := time.Now()
			c := connect(t, mcp.Options{Command: cmd, ProbeTimeout: 300 * time.Millisecond, Trace: rec})
			if d := time.Since(start); !tt.slow && d > 250*time.Millisecond+2*time.Second {
				t.Errorf("took %v", d)
			}
			info := c.Info()
			if info.Era != mcp.EraLegacy || info.ProtocolVersion != "2025-11-25" {
				t.Fatalf("info %+v", info)
			}
			r, err := c.CallTool(context.Background(), "echo", json.RawMessage(`{"message":"legacy ok"}`), mcp.CallOptions{})
			if err != nil || r.Text() != "legacy ok" {
				t.Fatalf("echo: %v %v", r, err)
			}
			got := methods(wire(t, log))
			if got[0] != "server/discover" || !contains(got, "initialize") || !contains(got, "notifications/initialized") {
				t.Errorf("wire %v", got)
			}
			starts := 0
			for _, e := range rec.Events() {
				if e.Kind == trace.ProcessStarted {
					starts++
				}
			}
			if want := map[bool]int{false: 1, true: 2}[tt.respawn]; starts != want {
				t.Errorf("%d process starts, want %d", starts, want)
			}
		})
	}
}

func TestUnsupportedModernErrorMeansModern(t *testing.T) {
	cmd, _ := fakeServer(t, "-era", "modern", "-probe", "unsupported-modern")
	c := connect(t, mcp.Options{Command: cmd})
	if c.Info().Era != mcp.EraModern {
		t.Fatalf("era %v", c.Info().Era)
	}
}

func TestLateProbeAnswerIsIgnored(t *testing.T) {
	// The legacy server answers discover only after the probe timeout; the
	// client has moved to initialize and must not be confused by it.
	cmd, _ := fakeServer(t, "-era", "legacy", "-probe", "late", "-late", "400ms")
	late := make(chan struct{})
	var once sync.Once
	sink := sinkFunc(func(e trace.Event) {
		if e.Kind == trace.JunkSkipped && strings.Contains(e.Message, "unknown or abandoned") {
			once.Do(func() { close(late) })
		}
	})
	c := connect(t, mcp.Options{Command: cmd, ProbeTimeout: 100 * time.Millisecond, Trace: sink})
	if c.Info().Era != mcp.EraLegacy {
		t.Fatalf("era %v", c.Info().Era)
	}
	select { // the late discover answer has arrived and was set aside
	case <-late:
	case <-time.After(10 * time.Second):
		t.Fatal("the late discover answer never arrived")
	}
	r, err := c.CallTool(context.Background(), "echo", json.RawMessage(`{"message":"still fine"}`), mcp.CallOptions{})
	if err != nil || r.Text() != "still fine" {
		t.Fatalf("%v %v", r, err)
	}
}

func TestSlowModernStarterMissingTheProbe(t *testing.T) {
	// A modern server too slow for the probe window: the client falls back to
	// initialize, the server rejects it with -32022, and the client switches
	// to modern instead of failing (pitfall 4).
	cmd, log := fakeServer(t, "-era", "modern", "-start-delay", "400ms")
	c := connect(t, mcp.Options{Command: cmd, ProbeTimeout: 100 * time.Millisecond})
	if c.Info().Era != mcp.EraModern {
		t.Fatalf("era %v; wire %v", c.Info().Era, methods(wire(t, log)))
	}
	if _, err := c.CallTool(context.Background(), "echo", json.RawMessage(`{"message":"x"}`), mcp.CallOptions{}); err != nil {
		t.Fatal(err)
	}
}

func TestProtocolSettings(t *testing.T) {
	cmd, log := fakeServer(t, "-era", "legacy")
	c := connect(t, mcp.Options{Command: cmd, Protocol: "legacy"})
	if got := methods(wire(t, log)); got[0] != "initialize" {
		t.Errorf("protocol=legacy probed: %v", got)
	}
	c.Close()

	cmd, _ = fakeServer(t, "-era", "legacy")
	mcp.ForgetEra()
	_, err := mcp.Connect(context.Background(), mcp.Options{Name: "old", Command: cmd, Protocol: "modern", Timeout: 2 * time.Second})
	if kind(err) != errs.Protocol || !strings.Contains(err.Error(), `server "old" does not speak MCP 2026-07-28`) ||
		!strings.Contains(err.Error(), `use protocol = "legacy" or "auto"`) {
		t.Fatalf("modern against legacy: %v", err)
	}

	if _, err := mcp.Connect(context.Background(), mcp.Options{Command: cmd, Protocol: "newest"}); kind(err) != errs.Invalid {
		t.Errorf("bad protocol setting: %v", err)
	}
}

func TestEraIsCachedPerCommandLine(t *testing.T) {
	mcp.ForgetEra()
	cmd, log := fakeServer(t, "-era", "legacy")
	c1, err := mcp.Connect(context.Background(), mcp.Options{Command: cmd})
	if err != nil {
		t.Fatal(err)
	}
	c1.Close()
	n := len(wire(t, log))
	c2, err := mcp.Connect(context.Background(), mcp.Options{Command: cmd})
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if got := methods(wire(t, log)[n:]); got[0] != "initialize" {
		t.Errorf("the second connection probed again: %v", got)
	}
}

func TestStartFailure(t *testing.T) {
	_, err := mcp.Connect(context.Background(), mcp.Options{Name: "ghost", Command: transport.Command{Path: "no-such-mcp-server-xyz"}})
	if kind(err) != errs.Process || !strings.Contains(err.Error(), "ghost") || !strings.Contains(err.Error(), "no-such-mcp-server-xyz") {
		t.Fatalf("%v", err)
	}
}

func eachEra(t *testing.T, f func(t *testing.T, era string)) {
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) { f(t, era) })
	}
}

func TestToolsPaginationAndCalls(t *testing.T) {
	eachEra(t, func(t *testing.T, era string) {
		cmd, _ := fakeServer(t, "-era", era, "-tools", "30", "-page", "7")
		c := connect(t, mcp.Options{Command: cmd})
		ctx := context.Background()
		tools, err := c.Tools(ctx)
		if err != nil || len(tools) != 43 || tools[42].Name != "tool_30" {
			t.Fatalf("%d tools, %v", len(tools), err)
		}
		r, err := c.CallTool(ctx, "add", json.RawMessage(`{"a":2,"b":3}`), mcp.CallOptions{})
		if err != nil || r.Text() != "5" || string(r.StructuredContent) != `{"sum":5}` {
			t.Fatalf("add: %+v %v", r, err)
		}
		r, err = c.CallTool(ctx, "fail", nil, mcp.CallOptions{})
		if err != nil || !r.IsError || r.Text() != "it failed" {
			t.Fatalf("an isError result is a result, not an error: %+v %v", r, err)
		}
		_, err = c.CallTool(ctx, "echo", json.RawMessage(`{"msg":"typo"}`), mcp.CallOptions{})
		if kind(err) != errs.Invalid || !strings.Contains(err.Error(), "message") {
			t.Errorf("schema check: %v", err)
		}
		_, err = c.CallTool(ctx, "add", json.RawMessage(`{"a":"two","b":3}`), mcp.CallOptions{})
		if kind(err) != errs.Invalid || !strings.Contains(err.Error(), "argument a is a string, want a number") {
			t.Errorf("schema check: %v", err)
		}
		_, err = c.CallTool(ctx, "nope", nil, mcp.CallOptions{})
		if kind(err) != errs.NotFound || !strings.Contains(err.Error(), `has no tool "nope"`) || !strings.Contains(err.Error(), "add, ask") {
			t.Errorf("unknown tool: %v", err)
		}
	})
}

func TestResourcesPromptsCompletion(t *testing.T) {
	eachEra(t, func(t *testing.T, era string) {
		cmd, _ := fakeServer(t, "-era", era)
		c := connect(t, mcp.Options{Command: cmd})
		ctx := context.Background()
		res, err := c.Resources(ctx)
		if err != nil || len(res) != 1 || !strings.Contains(string(res[0]), "test://static") {
			t.Fatalf("%s %v", res, err)
		}
		tpl, err := c.Templates(ctx)
		if err != nil || len(tpl) != 1 {
			t.Fatalf("%s %v", tpl, err)
		}
		read, err := c.ReadResource(ctx, "test://items/7")
		if err != nil || !strings.Contains(string(read), "content of test://items/7") {
			t.Fatalf("%s %v", read, err)
		}
		_, err = c.ReadResource(ctx, "test://missing")
		if kind(err) != errs.NotFound {
			t.Errorf("missing resource: kind %v (%v)", kind(err), err)
		}
		if _, ok := mcp.ServerError(err); !ok {
			t.Errorf("the server's error is not reachable: %v", err)
		}
		prompts, err := c.Prompts(ctx)
		if err != nil || len(prompts) != 1 {
			t.Fatalf("%s %v", prompts, err)
		}
		p, err := c.GetPrompt(ctx, "greet", map[string]string{"name": "Ada"})
		if err != nil || !strings.Contains(string(p), "Hello, Ada") {
			t.Fatalf("%s %v", p, err)
		}
		comp, err := c.Complete(ctx, json.RawMessage(`{"type":"ref/prompt","name":"greet"}`), "name", "al", nil)
		if err != nil || !strings.Contains(string(comp), "alice") {
			t.Fatalf("%s %v", comp, err)
		}
	})
}

func TestProgressAndInactivityTimeout(t *testing.T) {
	cmd, log := fakeServer(t, "-era", "legacy")
	c := connect(t, mcp.Options{Command: cmd})
	ctx := context.Background()

	var mu sync.Mutex
	var seen []float64
	r, err := c.CallTool(ctx, "slow", json.RawMessage(`{"seconds":0.5,"progress":true}`), mcp.CallOptions{
		Progress: func(p mcp.Progress) { mu.Lock(); seen = append(seen, p.Progress); mu.Unlock() }})
	if err != nil || r.Text() != "slept" {
		t.Fatalf("%v %v", r, err)
	}
	mu.Lock()
	if len(seen) != 5 || seen[4] != 5 {
		t.Errorf("progress %v", seen)
	}
	mu.Unlock()

	// The timings below leave a wide margin for a loaded machine: progress
	// comes every 20 ms against timeouts of 300 ms and more.

	// Progress keeps a timeout alive: 2 s of work, 600 ms timeout.
	if _, err := c.CallTool(ctx, "slow", json.RawMessage(`{"seconds":2,"progress":true,"step_ms":20}`), mcp.CallOptions{Timeout: 600 * time.Millisecond}); err != nil {
		t.Errorf("progress should extend the timeout: %v", err)
	}

	// Without progress the timeout fires (long before the work is done),
	// and the server is told.
	_, err = c.CallTool(ctx, "slow", json.RawMessage(`{"seconds":60}`), mcp.CallOptions{Timeout: 200 * time.Millisecond})
	if kind(err) != errs.Timeout || !strings.Contains(err.Error(), "no answer or progress for 200ms (timeout = 200ms)") {
		t.Errorf("timeout: %v", err)
	}
	cancelled := waitWire(t, log, "notifications/cancelled")
	if !strings.Contains(string(cancelled["params"]), "requestId") {
		t.Errorf("cancelled %s", cancelled["params"])
	}

	// Progress extends the wait at most to ten times the timeout.
	_, err = c.CallTool(ctx, "slow", json.RawMessage(`{"seconds":60,"progress":true,"step_ms":20}`), mcp.CallOptions{Timeout: 300 * time.Millisecond})
	if kind(err) != errs.Timeout || !strings.Contains(err.Error(), "ten times the timeout of 300ms") {
		t.Errorf("10× cap: %v", err)
	}
}

func TestCancellation(t *testing.T) {
	cmd, log := fakeServer(t, "-era", "modern")
	c := connect(t, mcp.Options{Command: cmd})
	// Cancel once the server is working on it (its first progress).
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := c.CallTool(ctx, "slow", json.RawMessage(`{"seconds":60,"progress":true,"step_ms":20}`), mcp.CallOptions{
		Progress: func(mcp.Progress) { cancel() }})
	if kind(err) != errs.Cancelled {
		t.Fatalf("%v", err)
	}
	waitWire(t, log, "notifications/cancelled")
	// A context whose cause has a kind keeps it (a Lua task.timeout).
	ctx2, cancel2 := context.WithCancelCause(context.Background())
	cancel2(errs.New(errs.Timeout, "", "task.timeout: timed out after 1s"))
	_, err = c.CallTool(ctx2, "echo", json.RawMessage(`{"message":"x"}`), mcp.CallOptions{})
	if kind(err) != errs.Timeout {
		t.Errorf("%v", err)
	}
}

// A server that dies during a call fails it with its exit status and
// stderr, as unknown_outcome (the tool may have run: it is not sent again
// to the restarted server), and the next call starts it again.
func TestCrashFailsInFlightAndRestarts(t *testing.T) {
	cmd, log := fakeServer(t, "-era", "legacy")
	rec := &trace.Recorder{}
	c := connect(t, mcp.Options{Name: "crashy", Command: cmd, Trace: rec})
	ctx := context.Background()
	_, err := c.CallTool(ctx, "crash", nil, mcp.CallOptions{})
	if kind(err) != errs.UnknownOutcome || !strings.Contains(err.Error(), "exited with status 3") || !strings.Contains(err.Error(), "fatal: the crash tool was called") ||
		!strings.Contains(err.Error(), "may have run") {
		t.Fatalf("crash: kind %v: %v", kind(err), err)
	}
	r, err := c.CallTool(ctx, "echo", json.RawMessage(`{"message":"back"}`), mcp.CallOptions{})
	if err != nil || r.Text() != "back" {
		t.Fatalf("after restart: %v %v", r, err)
	}
	crashes := 0
	for _, m := range wire(t, log) {
		if strings.Contains(string(m["params"]), `"name":"crash"`) {
			crashes++
		}
	}
	if crashes != 1 {
		t.Errorf("the crash tool was sent %d times, want 1", crashes)
	}
	var pids []int
	for _, e := range rec.Events() {
		if e.Kind == trace.ProcessStarted {
			pids = append(pids, e.PID)
		}
	}
	if len(pids) != 2 {
		t.Fatalf("starts %v", pids)
	}
	// The crashed process was reaped: no zombie.
	if processExists(pids[0]) {
		t.Errorf("crashed pid %d still exists", pids[0])
	}
}

func TestOversizedMessageAndJunk(t *testing.T) {
	cmd, _ := fakeServer(t, "-era", "legacy", "-quirk", "junk-lines")
	rec := &trace.Recorder{}
	c := connect(t, mcp.Options{Command: cmd, MaxMessage: 1 << 20, Trace: rec})
	ctx := context.Background()
	_, err := c.CallTool(ctx, "big", json.RawMessage(`{"bytes":2000000}`), mcp.CallOptions{Timeout: 5 * time.Second})
	if kind(err) != errs.Protocol || !strings.Contains(err.Error(), "1048576") {
		t.Errorf("oversize: %v", err)
	}
	r, err := c.CallTool(ctx, "echo", json.RawMessage(`{"message":"after the big one"}`), mcp.CallOptions{})
	if err != nil || r.Text() != "after the big one" {
		t.Fatalf("%v %v", r, err)
	}
	// The same process goes on: the oversized message was dropped, not fatal.
	starts, junk := 0, 0
	for _, e := range rec.Events() {
		switch e.Kind {
		case trace.ProcessStarted:
			starts++
		case trace.JunkSkipped:
			junk++
		}
	}
	if starts != 1 || junk == 0 {
		t.Errorf("%d process starts, %d junk lines skipped", starts, junk)
	}
}

func TestResultTypes(t *testing.T) {
	cmd, _ := fakeServer(t, "-era", "modern", "-quirk", "no-result-type")
	c := connect(t, mcp.Options{Command: cmd})
	if _, err := c.CallTool(context.Background(), "echo", json.RawMessage(`{"message":"x"}`), mcp.CallOptions{}); err != nil {
		t.Errorf("a missing resultType means complete: %v", err)
	}
	cmd, _ = fakeServer(t, "-era", "modern", "-quirk", "unknown-result-type")
	mcp.ForgetEra()
	c2, err := mcp.Connect(context.Background(), mcp.Options{Command: cmd})
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	_, err = c2.ReadResource(context.Background(), "test://x")
	if kind(err) != errs.Protocol || !strings.Contains(err.Error(), `resultType "mystery"`) {
		t.Errorf("unknown resultType: %v", err)
	}
}

func callbacks(calls *[]string, mu *sync.Mutex) mcp.Options {
	rec := func(s string) { mu.Lock(); *calls = append(*calls, s); mu.Unlock() }
	return mcp.Options{
		Elicit: func(ctx context.Context, p json.RawMessage) (json.RawMessage, error) {
			rec("elicit")
			return json.RawMessage(`{"action":"accept","content":{"name":"Ada"}}`), nil
		},
		Sample: func(ctx context.Context, p json.RawMessage) (json.RawMessage, error) {
			rec("sample")
			return json.RawMessage(`{"role":"assistant","content":{"type":"text","text":"hi"},"model":"test"}`), nil
		},
		Roots: func(ctx context.Context) ([]mcp.Root, error) {
			rec("roots")
			return []mcp.Root{{URI: "file:///tmp", Name: "tmp"}}, nil
		},
	}
}

func TestServerAsksTheClient(t *testing.T) {
	eachEra(t, func(t *testing.T, era string) {
		var calls []string
		var mu sync.Mutex
		o := callbacks(&calls, &mu)
		cmd, log := fakeServer(t, "-era", era)
		o.Command = cmd
		c := connect(t, o)
		ctx := context.Background()
		for tool, want := range map[string]string{"ask": `"name":"Ada"`, "sample": `"text":"hi"`, "roots": `file:///tmp`} {
			r, err := c.CallTool(ctx, tool, nil, mcp.CallOptions{})
			if err != nil || r.IsError || !strings.Contains(r.Text(), want) {
				t.Errorf("%s: %+v %v", tool, r, err)
			}
		}
		mu.Lock()
		if len(calls) != 3 {
			t.Errorf("callbacks %v", calls)
		}
		mu.Unlock()
		if era == "modern" {
			// Each retry is a new request with a new id, carrying the
			// responses and the state echoed byte for byte (the server
			// rejects an altered state).
			ids := map[string]bool{}
			retries := 0
			for _, m := range wire(t, log) {
				if string(m["method"]) != `"tools/call"` {
					continue
				}
				if ids[string(m["id"])] {
					t.Errorf("id %s reused", m["id"])
				}
				ids[string(m["id"])] = true
				if strings.Contains(string(m["params"]), `"inputResponses"`) {
					retries++
					if !strings.Contains(string(m["params"]), `"requestState":"opaque \"state\" \u00e9\/x"`) {
						t.Errorf("requestState not echoed byte for byte: %s", m["params"])
					}
				}
			}
			if retries != 3 {
				t.Errorf("%d retries", retries)
			}
			r, err := c.CallTool(ctx, "state_only", nil, mcp.CallOptions{})
			if err != nil || r.Text() != "resumed from step-1" {
				t.Errorf("state-only input_required: %+v %v", r, err)
			}
		}
	})
}

func TestCapabilitiesOnlyWithCallbacks(t *testing.T) {
	cmd, log := fakeServer(t, "-era", "legacy")
	c := connect(t, mcp.Options{Command: cmd})
	init := waitWire(t, log, "initialize")
	if !strings.Contains(string(init["params"]), `"capabilities":{}`) {
		t.Errorf("capabilities advertised without callbacks: %s", init["params"])
	}
	// The server asks anyway: it gets an error, the call goes on.
	r, err := c.CallTool(context.Background(), "ask", nil, mcp.CallOptions{})
	if err != nil || !r.IsError || !strings.Contains(r.Text(), "-32601") {
		t.Errorf("%+v %v", r, err)
	}
}

// Declared extensions reach the server in both eras: in initialize's
// capabilities, and in every modern request's clientCapabilities, where a
// tool call that may become a task adds the tasks extension beside them.
func TestExtensionsDeclared(t *testing.T) {
	eachEra(t, func(t *testing.T, era string) {
		cmd, log := fakeServer(t, "-era", era)
		c := connect(t, mcp.Options{Command: cmd, Extensions: map[string]json.RawMessage{"io.modelcontextprotocol/skills": nil, "com.example/x": json.RawMessage(`{"a":1}`)}})
		if _, err := c.CallTool(context.Background(), "echo", json.RawMessage(`{"message":"x"}`), mcp.CallOptions{}); err != nil {
			t.Fatal(err)
		}
		want := `"extensions":{"com.example/x":{"a":1},"io.modelcontextprotocol/skills":{}}`
		if era == "legacy" {
			if init := waitWire(t, log, "initialize"); !strings.Contains(string(init["params"]), want) {
				t.Errorf("initialize: %s", init["params"])
			}
			return
		}
		call := waitWire(t, log, "tools/call")
		withTasks := `"extensions":{"com.example/x":{"a":1},"io.modelcontextprotocol/skills":{},"io.modelcontextprotocol/tasks":{}}`
		if !strings.Contains(string(call["params"]), withTasks) {
			t.Errorf("tools/call: %s", call["params"])
		}
		if list := waitWire(t, log, "tools/list"); !strings.Contains(string(list["params"]), want) {
			t.Errorf("tools/list: %s", list["params"])
		}
	})
}

func TestTasks(t *testing.T) {
	eachEra(t, func(t *testing.T, era string) {
		var calls []string
		var mu sync.Mutex
		o := callbacks(&calls, &mu)
		cmd, log := fakeServer(t, "-era", era)
		o.Command = cmd
		c := connect(t, o)
		var statuses []string
		r, err := c.CallTool(context.Background(), "long_task", json.RawMessage(`{"seconds":0.3}`), mcp.CallOptions{Task: true,
			Progress: func(p mcp.Progress) { mu.Lock(); statuses = append(statuses, p.Status); mu.Unlock() }})
		if err != nil || r.Text() != "task finished" {
			t.Fatalf("%+v %v", r, err)
		}
		mu.Lock()
		if !contains(statuses, "working") || !contains(statuses, "completed") {
			t.Errorf("statuses %v", statuses)
		}
		if era == "modern" && !contains(calls, "elicit") {
			t.Errorf("the task's input request was not answered: %v", calls)
		}
		mu.Unlock()
		got := methods(wire(t, log))
		if !contains(got, "tasks/get") {
			t.Errorf("wire %v", got)
		}
		if era == "modern" && !contains(got, "tasks/update") {
			t.Errorf("wire %v", got)
		}
		// Cancelling the caller once the task runs cancels the task.
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		_, err = c.CallTool(ctx, "long_task", json.RawMessage(`{"seconds":60}`), mcp.CallOptions{Task: true,
			Progress: func(p mcp.Progress) {
				if p.Status != "" {
					cancel()
				}
			}})
		if kind(err) != errs.Cancelled {
			t.Errorf("%v", err)
		}
		waitWire(t, log, "tasks/cancel")
	})
}

// A task's progress reaches the caller's progress callback as a plain
// call's does: legacy, notifications/progress on the call's token after
// the task was created; modern, on the token of a tasks/get.
func TestTaskProgressReachesCaller(t *testing.T) {
	eachEra(t, func(t *testing.T, era string) {
		cmd, _ := fakeServer(t, "-era", era)
		c := connect(t, mcp.Options{Command: cmd})
		var mu sync.Mutex
		var messages []string
		r, err := c.CallTool(context.Background(), "long_task", json.RawMessage(`{"seconds":0.1,"progress":true}`), mcp.CallOptions{Task: true,
			Progress: func(p mcp.Progress) {
				if p.Status == "" {
					mu.Lock()
					messages = append(messages, p.Message)
					mu.Unlock()
				}
			}})
		if err != nil || r.Text() != "task finished" {
			t.Fatalf("%+v %v", r, err)
		}
		mu.Lock()
		defer mu.Unlock()
		want := "task step 2"
		if era == "modern" {
			want = "task poll 1"
		}
		if !contains(messages, want) {
			t.Errorf("progress messages %q lack %q", messages, want)
		}
	})
}

func TestNotifications(t *testing.T) {
	eachEra(t, func(t *testing.T, era string) {
		got := make(chan string, 16)
		cmd, _ := fakeServer(t, "-era", era)
		c := connect(t, mcp.Options{Command: cmd, OnNotification: func(method string, params json.RawMessage) {
			got <- method + " " + string(params)
		}})
		ctx := context.Background()
		if err := c.Subscribe(ctx, "test://static"); err != nil {
			t.Fatal(err)
		}
		wait := func(prefix string) {
			t.Helper()
			timeout := time.After(5 * time.Second)
			for {
				select {
				case s := <-got:
					if strings.HasPrefix(s, prefix) {
						return
					}
				case <-timeout:
					t.Fatalf("no %s", prefix)
				}
			}
		}
		wait("notifications/resources/updated")
		if era == "legacy" {
			if _, err := c.CallTool(ctx, "notify", nil, mcp.CallOptions{}); err != nil {
				t.Fatal(err)
			}
			wait("notifications/tools/list_changed")
			wait("notifications/message")
			if err := c.SetLogLevel(ctx, "debug"); err != nil {
				t.Fatal(err)
			}
			wait("notifications/message")
		}
		if err := c.SetLogLevel(ctx, "loud"); kind(err) != errs.Invalid {
			t.Errorf("bad level: %v", err)
		}
	})
}

func TestModernLogLevelRidesOnRequests(t *testing.T) {
	cmd, log := fakeServer(t, "-era", "modern")
	c := connect(t, mcp.Options{Command: cmd})
	ctx := context.Background()
	if err := c.SetLogLevel(ctx, "warning"); err != nil {
		t.Fatal(err)
	}
	c.CallTool(ctx, "echo", json.RawMessage(`{"message":"x"}`), mcp.CallOptions{})
	msgs := wire(t, log)
	last := msgs[len(msgs)-1]
	if !strings.Contains(string(last["params"]), `"io.modelcontextprotocol/logLevel":"warning"`) {
		t.Errorf("%s", last["params"])
	}
	if contains(methods(msgs), "logging/setLevel") {
		t.Error("modern clients must not send logging/setLevel")
	}
}

func TestTraceNamesEnvNotValues(t *testing.T) {
	cmd, _ := fakeServer(t, "-era", "legacy")
	cmd.Env = map[string]string{"SECRET_TOKEN": "hunter2-do-not-print"}
	rec := &trace.Recorder{}
	c := connect(t, mcp.Options{Command: cmd, Trace: rec})
	c.CallTool(context.Background(), "echo", json.RawMessage(`{"message":"x"}`), mcp.CallOptions{})
	all, _ := json.Marshal(rec.Events())
	if strings.Contains(string(all), "hunter2") {
		t.Fatal("a secret reached the trace")
	}
	if !strings.Contains(string(all), "SECRET_TOKEN") {
		t.Error("the env name should be traced")
	}
	kinds := map[trace.Kind]bool{}
	for _, e := range rec.Events() {
		kinds[e.Kind] = true
	}
	for _, k := range []trace.Kind{trace.ProcessStarted, trace.RequestSent, trace.Response, trace.ToolsRefreshed, trace.ToolCallStart, trace.ToolCallEnd, trace.EraChosen} {
		if !kinds[k] {
			t.Errorf("no %s event", k)
		}
	}
}

func TestCloseFailsCallsAndStopsTheServer(t *testing.T) {
	cmd, log := fakeServer(t, "-era", "legacy")
	rec := &trace.Recorder{}
	c := connect(t, mcp.Options{Command: cmd, Trace: rec})
	done := make(chan error, 1)
	go func() {
		_, err := c.CallTool(context.Background(), "slow", json.RawMessage(`{"seconds":10}`), mcp.CallOptions{})
		done <- err
	}()
	waitWire(t, log, "tools/call") // the call is in flight
	c.Close()
	select {
	case err := <-done:
		if k := kind(err); k != errs.Closed && k != errs.Process {
			t.Errorf("in-flight call: %v (kind %v)", err, k)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("in-flight call not failed by Close")
	}
	if _, err := c.CallTool(context.Background(), "echo", nil, mcp.CallOptions{}); kind(err) != errs.Closed {
		t.Errorf("after Close: %v", err)
	}
	for _, e := range rec.Events() {
		if e.Kind == trace.ProcessStarted {
			if processExists(e.PID) {
				t.Errorf("pid %d survives Close", e.PID)
			}
		}
	}
}

var _ = fmt.Sprint

func TestPingIsAnswered(t *testing.T) {
	cmd, _ := fakeServer(t, "-era", "legacy")
	c := connect(t, mcp.Options{Command: cmd})
	r, err := c.CallTool(context.Background(), "ping_client", nil, mcp.CallOptions{})
	if err != nil || r.Text() != "ping answered: {}" {
		t.Fatalf("%+v %v", r, err)
	}
}

func TestRestartBacksOff(t *testing.T) {
	cmd, _ := fakeServer(t, "-era", "legacy")
	c := connect(t, mcp.Options{Command: cmd})
	ctx := context.Background()
	var gaps []time.Duration
	for i := 0; i < 3; i++ {
		c.CallTool(ctx, "crash", nil, mcp.CallOptions{})
		start := time.Now()
		if _, err := c.CallTool(ctx, "echo", json.RawMessage(`{"message":"x"}`), mcp.CallOptions{}); err != nil {
			t.Fatal(err)
		}
		gaps = append(gaps, time.Since(start))
	}
	// A server that keeps dying right after starting is restarted later
	// and later: 0.25 s, then 0.5 s.
	if gaps[1] < 200*time.Millisecond || gaps[2] < 450*time.Millisecond {
		t.Errorf("restart delays %v", gaps)
	}
}

// sinkFunc is a trace.Sink of one function.
type sinkFunc func(trace.Event)

func (f sinkFunc) Emit(e trace.Event) { f(e) }
