package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/luagent/luagent/runtime/testkit"
)

// anthropicStandIn answers the Messages API's requests with script's
// handlers in turn (the last repeats), counting them.
type anthropicStandIn struct {
	*httptest.Server
	mu sync.Mutex
	n  int
}

func newAnthropicStandIn(t *testing.T, script ...http.HandlerFunc) *anthropicStandIn {
	s := &anthropicStandIn{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		s.mu.Lock()
		i := s.n
		s.n++
		s.mu.Unlock()
		if r.URL.Path != "/v1/messages" || r.Header.Get("anthropic-version") == "" {
			http.Error(w, "not the Messages API", 404)
			return
		}
		script[min(i, len(script)-1)](w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *anthropicStandIn) requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

func anthropicError(status int, typ, msg string, header ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"type":"error","error":{"type":%q,"message":%q},"request_id":"req_1"}`, typ, msg)
	}
}

// anthropicText streams a whole text answer as the Messages API does.
func anthropicText(text string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range []string{
			`event: message_start` + "\n" + `data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-backup","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":9,"output_tokens":1}}}`,
			`event: content_block_start` + "\n" + `data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
			`event: content_block_delta` + "\n" + fmt.Sprintf(`data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":%q}}`, text),
			`event: content_block_stop` + "\n" + `data: {"type":"content_block_stop","index":0}`,
			`event: message_delta` + "\n" + `data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":4}}`,
			`event: message_stop` + "\n" + `data: {"type":"message_stop"}`,
		} {
			fmt.Fprint(w, e, "\n\n")
			w.(http.Flusher).Flush()
		}
	}
}

// retryHome is a LUAGENT_HOME whose config.json names the two stand-ins
// as models primary and backup (fallbackModels: fallbacks).
func retryHome(t *testing.T, primary, backup string, fallbacks ...string) string {
	home := t.TempDir()
	cfg := map[string]any{"version": 1, "mcpServers": map[string]any{}, "models": map[string]any{
		"primary": map[string]any{"provider": "anthropic", "baseUrl": primary, "apiKeyEnv": "PRIMARY_KEY", "model": "claude-primary"},
		"backup":  map[string]any{"provider": "anthropic", "baseUrl": backup, "apiKeyEnv": "BACKUP_KEY", "model": "claude-backup"},
	}}
	if len(fallbacks) > 0 {
		cfg["fallbackModels"] = fallbacks
	}
	b, _ := json.Marshal(cfg)
	writeFile(t, home, "config.json", string(b))
	return home
}

// The provider answers 429 with retry-after, then 529, then says the
// prompt is too long: stream-json shows two api_retry lines, then the
// fallback (config.json's fallbackModels) answering, its model named.
func TestAskRetryThenFallbackStreamJSON(t *testing.T) {
	primary := newAnthropicStandIn(t,
		anthropicError(429, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit", "retry-after-ms", "5"),
		anthropicError(529, "overloaded_error", "Overloaded", "retry-after-ms", "7"),
		anthropicError(400, "invalid_request_error", "prompt is too long: 208310 tokens > 200000 maximum"))
	backup := newAnthropicStandIn(t, anthropicText("from the backup"))
	home := retryHome(t, primary.URL, backup.URL, "backup")
	env := []string{"LUAGENT_HOME=" + home, "PRIMARY_KEY=sk-ant-PRIMARY-1", "BACKUP_KEY=sk-ant-BACKUP-2"}
	r := luagent(t, "", env, "ask", "--output-format", "stream-json", "--model", "primary", "hi")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not JSON: %q", l)
		}
		lines = append(lines, m)
	}
	kinds := []string{}
	for _, m := range lines {
		kinds = append(kinds, fmt.Sprint(m["type"], "/", m["subtype"]))
	}
	if strings.Join(kinds, " ") != "system/init system/api_retry system/api_retry system/informational assistant/<nil> result/success" {
		t.Fatalf("lines %v\n%s", kinds, r.stdout)
	}
	for i, want := range []map[string]any{
		{"attempt": 1.0, "max_retries": 4.0, "retry_delay_ms": 5.0, "error_status": 429.0, "error": "rate_limit"},
		{"attempt": 2.0, "max_retries": 4.0, "retry_delay_ms": 7.0, "error_status": 529.0, "error": "overloaded"},
	} {
		for k, v := range want {
			if lines[1+i][k] != v {
				t.Errorf("api_retry %d: %s = %v, want %v", i+1, k, lines[1+i][k], v)
			}
		}
	}
	fb, _ := lines[3]["model_fallback"].(map[string]any)
	if lines[3]["tag"] != "model_fallback" || fb["from"] != "primary" || fb["to"] != "backup" || fb["error_kind"] != "context_length" {
		t.Errorf("fallback line %v", lines[3])
	}
	if msg, _ := lines[4]["message"].(map[string]any); msg["model"] != "backup" {
		t.Errorf("the answer's model: %v", lines[4])
	}
	if lines[5]["result"] != "from the backup" {
		t.Errorf("result %v", lines[5])
	}
	if primary.requests() != 3 || backup.requests() != 1 {
		t.Errorf("%d requests to the primary, %d to the backup: want 3 and 1", primary.requests(), backup.requests())
	}
	if strings.Contains(r.stdout+r.stderr, "PRIMARY-1") || strings.Contains(r.stdout+r.stderr, "BACKUP-2") {
		t.Errorf("a key in the output")
	}
	// The lines type-check as the Agent SDK's (when scripts/sdktypes is installed).
	dir := filepath.Join(testkit.RepoRoot(t), "scripts", "sdktypes")
	node, err := exec.LookPath("node")
	if _, serr := os.Stat(filepath.Join(dir, "node_modules", "typescript", "package.json")); serr != nil || err != nil {
		t.Logf("scripts/sdktypes not installed: the SDK type check is skipped")
		return
	}
	f := writeFile(t, t.TempDir(), "retry.jsonl", r.stdout)
	if out, err := exec.Command(node, filepath.Join(dir, "check.mjs"), f).CombinedOutput(); err != nil {
		t.Fatalf("the Agent SDK's types refuse the lines: %v\n%s", err, out)
	}
}

// In text mode the retries are status lines on stderr; --fallback-model
// names the fallback; a stream that broke after its text began is not
// sent again, and the fallback is not asked.
func TestAskRetryStatusAndFallbackFlag(t *testing.T) {
	primary := newAnthropicStandIn(t,
		anthropicError(529, "overloaded_error", "Overloaded", "retry-after-ms", "3"))
	backup := newAnthropicStandIn(t, anthropicText("from the backup"))
	home := retryHome(t, primary.URL, backup.URL)
	env := []string{"LUAGENT_HOME=" + home, "PRIMARY_KEY=k1", "BACKUP_KEY=k2"}
	r := luagent(t, "", env, "ask", "--model", "primary", "--fallback-model", "backup", "hi")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "from the backup" {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"↻ provider overloaded (529), retry 1/4 in 3ms", "↻ provider overloaded (529), retry 4/4 in 3ms",
		"↪ primary: provider overloaded (529): falling back to backup"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if primary.requests() != 5 || backup.requests() != 1 {
		t.Errorf("%d + %d requests, want 5 + 1", primary.requests(), backup.requests())
	}
}

// chat shows each retry and the fallback as a status line before the
// answer, and --fallback-model names the fallback.
func TestChatRetryStatusLines(t *testing.T) {
	primary := newAnthropicStandIn(t,
		anthropicError(429, "rate_limit_error", "slow down", "retry-after-ms", "4"),
		anthropicError(503, "api_error", "upstream unavailable", "retry-after-ms", "2"))
	backup := newAnthropicStandIn(t, anthropicText("from the backup"))
	home := retryHome(t, primary.URL, backup.URL)
	env := []string{"LUAGENT_HOME=" + home, "PRIMARY_KEY=k1", "BACKUP_KEY=k2"}
	r := luagent(t, "hello\n", env, "chat", "--model", "primary", "--fallback-model", "backup", "--no-notify")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	want := []string{"↻ rate limited (429), retry 1/4 in 4ms", "↻ provider error (503), retry 2/4 in 2ms", "↻ provider error (503), retry 4/4 in 2ms",
		"↪ primary: provider error (503): falling back to backup", "from the backup"}
	at := 0
	for _, w := range want {
		i := strings.Index(r.stdout[at:], w)
		if i < 0 {
			t.Fatalf("stdout lacks %q (in order):\n%s", w, r.stdout)
		}
		at += i + len(w)
	}
}
