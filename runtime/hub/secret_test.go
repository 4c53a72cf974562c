package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/testkit"
	"github.com/luagent/luagent/runtime/trace"
)

// An env value reaches the child's environment and nothing else: not its
// command line (ps, /proc/PID/cmdline), not a --trace JSONL or -v line,
// not a status, an error or an event.
func TestSecretEnv(t *testing.T) {
	const secret = "s3cr3t-VALUE-91f2"
	var jsonl, human, logs testkit.Buffer
	rec := &trace.Recorder{}
	alpha := luaServer(t, "alpha")
	alpha.Env = map[string]catalog.EnvValue{"API_TOKEN": {Param: "token"}, "PLAIN": {FromEnv: "HUB_TEST_SECRET"}}
	crash := shServer("crash", "echo started >&2; exit 4", 10*time.Second)
	crash.Env = map[string]catalog.EnvValue{"API_TOKEN": {Value: secret}}
	missing := luaServer(t, "missing")
	missing.Env = map[string]catalog.EnvValue{"API_TOKEN": {Param: "absent"}}
	gone := &catalog.Server{Name: "gone", Enabled: true, Command: "/nonexistent/server", Env: map[string]catalog.EnvValue{"API_TOKEN": {Value: secret}}}

	var evs testkit.Buffer
	h := New([]*catalog.Server{alpha, crash, missing, gone}, Options{
		Params:    catalog.Params{"token": secret},
		LookupEnv: func(k string) (string, bool) { return secret + "-env", k == "HUB_TEST_SECRET" },
		Trace:     trace.Multi{trace.NewJSONL(&jsonl), trace.NewHuman(&human), rec},
		Logf:      func(f string, a ...any) { fmt.Fprintf(&logs, f+"\n", a...) },
	})
	defer h.Close()
	cancel := h.Subscribe(func(e Event) { fmt.Fprintf(&evs, "%+v %v\n", e, e.State.Err) })
	h.Start()
	ctx := context.Background()
	h.Wait(ctx)

	// The child has it.
	r, err := h.Call(ctx, "alpha__env", json.RawMessage(`{"name":"API_TOKEN"}`), CallOptions{})
	if err != nil || r.Text() != secret {
		t.Fatalf("the child's env: %v %v", r, err)
	}
	var pid int
	for _, e := range rec.Events() {
		if e.Kind == trace.ProcessStarted && e.Server == "alpha" {
			pid = e.PID
		}
	}
	if pid == 0 {
		t.Fatal("no process_started event for alpha")
	}
	environ, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if len(environ) > 0 && !strings.Contains(string(environ), "API_TOKEN="+secret) {
		t.Errorf("the value is not in the child's environment")
	}
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		t.Logf("no /proc here: %v", err)
	}
	ps, _ := exec.Command("ps", "-eo", "args").Output()

	var shown []string
	st := byName(h.Status())
	for _, name := range []string{"crash", "missing", "gone"} {
		if st[name].Status != Failed || st[name].Err == nil {
			t.Errorf("%s: %s %v", name, st[name].Status, st[name].Err)
		}
	}
	if !strings.Contains(st["missing"].Err.Error(), "--set absent=VALUE") {
		t.Errorf("missing param: %v", st["missing"].Err)
	}
	for _, s := range st {
		shown = append(shown, fmt.Sprintf("%+v", s))
		if s.Err != nil {
			shown = append(shown, s.Err.Error())
		}
	}
	h.Close()
	cancel()
	shown = append(shown, evs.String())
	for what, text := range map[string]string{"cmdline": string(cmdline), "ps": string(ps), "trace JSONL": jsonl.String(),
		"-v trace": human.String(), "log": logs.String(), "statuses and events": strings.Join(shown, "\n")} {
		if strings.Contains(text, secret) {
			t.Errorf("the secret is in the %s:\n%s", what, text)
		}
	}
	if !strings.Contains(jsonl.String(), "API_TOKEN") {
		t.Error("the trace does not name the variable")
	}
}

// A server that prints its env's secrets to stderr and then exits, at
// start or in a call: the statuses, the errors, the stderr lines (the
// hub's OnStderr, a status's Stderr) and the traces show <secret>, never
// the value — a parameter's and a literal's alike.
func TestSecretEnvMaskedInStderr(t *testing.T) {
	const secret = "s3cr3t-STDERR-5e0a"
	var jsonl, human, lines testkit.Buffer
	crash := shServer("crash", `echo "crash: token $API_TOKEN rejected" >&2; exit 4`, 10*time.Second)
	crash.Env = map[string]catalog.EnvValue{"API_TOKEN": {Param: "token"}}
	lit := shServer("lit", `echo "lit: key $KEY" >&2; exit 5`, 10*time.Second)
	lit.Env = map[string]catalog.EnvValue{"KEY": {Value: secret + "-lit"}, "SHORT": {Value: "ro"}}
	late := luaServer(t, "late")
	late.Command, late.Args = "sh", append([]string{"-c", `echo "late: token $API_TOKEN" >&2; exec "$0" "$@"`, late.Command}, late.Args...)
	late.Env = map[string]catalog.EnvValue{"API_TOKEN": {Param: "token"}}

	h := New([]*catalog.Server{crash, lit, late}, Options{
		Params:   catalog.Params{"token": secret},
		Trace:    trace.Multi{trace.NewJSONL(&jsonl), trace.NewHuman(&human)},
		OnStderr: func(server, line string) { fmt.Fprintf(&lines, "[%s] %s\n", server, line) },
	})
	defer h.Close()
	ch, cancel := events(h)
	defer cancel()
	h.Start()
	ctx := context.Background()
	h.Wait(ctx)
	_, callErr := h.Call(ctx, "late__die", json.RawMessage(`{}`), CallOptions{})
	if callErr == nil || !strings.Contains(callErr.Error(), "late: token <secret>") {
		t.Errorf("the call into a dying server: %v", callErr)
	}
	until(t, ch, "late failed", func(e Event) bool { return e.State.Name == "late" && e.State.Status == Failed })

	st := byName(h.Status())
	for name, want := range map[string]string{"crash": "crash: token <secret> rejected", "lit": "lit: key <secret>", "late": "late: token <secret>"} {
		if st[name].Status != Failed || st[name].Err == nil || !strings.Contains(st[name].Err.Error(), want) || !slices.Contains(st[name].Stderr, want) {
			t.Errorf("%s: %s, error %v, stderr %q; want %q in both", name, st[name].Status, st[name].Err, st[name].Stderr, want)
		}
	}
	h.Close()
	shown := []string{callErr.Error()}
	for _, s := range st {
		shown = append(shown, fmt.Sprintf("%+v %v", s, s.Err))
	}
	for what, text := range map[string]string{"trace JSONL": jsonl.String(), "-v trace": human.String(),
		"stderr lines": lines.String(), "statuses and errors": strings.Join(shown, "\n")} {
		if strings.Contains(text, "s3cr3t") {
			t.Errorf("the secret is in the %s:\n%s", what, text)
		}
	}
	if !strings.Contains(lines.String(), "[crash] crash: token <secret> rejected") {
		t.Errorf("stderr lines:\n%s", lines.String())
	}
}
