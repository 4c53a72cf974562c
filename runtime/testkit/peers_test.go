package testkit

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// These tests drive each peer with plain JSON lines (no client library), so
// they prove the peers themselves work and pin the facts in README.md.

const testTimeout = 30 * time.Second

var modernMeta = map[string]any{
	"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
	"io.modelcontextprotocol/clientCapabilities": map[string]any{},
}

func TestLegacyHandshakeAndToolsList(t *testing.T) {
	fsRoot := t.TempDir()
	if err := os.WriteFile(filepath.Join(fsRoot, "a.txt"), []byte("hello peers\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		start func(t *testing.T) (string, []string)
		want  []string
	}{
		{"everything", func(t *testing.T) (string, []string) { return Everything(t) },
			[]string{"echo", "get-sum", "get-tiny-image", "get-structured-content", "trigger-long-running-operation",
				"toggle-simulated-logging", "toggle-subscriber-updates", "get-resource-links"}},
		{"filesystem", func(t *testing.T) (string, []string) { return Filesystem(t, fsRoot) },
			[]string{"read_text_file", "read_file", "write_file", "edit_file", "list_directory", "directory_tree",
				"search_files", "get_file_info", "list_allowed_directories"}},
		{"gosdk-modern", func(t *testing.T) (string, []string) {
			cmd, args := GoSDKServer(t, "modern")
			return cmd, append(args, "-tools", "3")
		}, []string{"echo", "add", "slow", "ask", "sample", "roots", "tool_1", "tool_2", "tool_3"}},
		{"gosdk-legacy", func(t *testing.T) (string, []string) { return GoSDKServer(t, "legacy") },
			[]string{"echo", "add", "slow", "ask", "sample", "roots"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cmd, args := tc.start(t)
			p := startPeer(t, cmd, args...)
			init := p.call(1, "initialize", map[string]any{
				"protocolVersion": "2025-11-25",
				"capabilities":    map[string]any{},
				"clientInfo":      map[string]any{"name": "luagent-peers-test", "version": "0"},
			})
			var ir struct {
				ProtocolVersion string `json:"protocolVersion"`
				ServerInfo      struct{ Name string }
			}
			init.result(t, &ir)
			if ir.ProtocolVersion != "2025-11-25" {
				t.Errorf("initialize negotiated %q, want 2025-11-25", ir.ProtocolVersion)
			}
			p.notify("notifications/initialized", nil)

			var tl struct {
				Tools []struct{ Name string }
			}
			p.call(2, "tools/list", nil).result(t, &tl)
			var names []string
			for _, tool := range tl.Tools {
				names = append(names, tool.Name)
			}
			for _, w := range tc.want {
				if !slices.Contains(names, w) {
					t.Errorf("%s (%s): tools/list lacks %q; got %v", tc.name, ir.ServerInfo.Name, w, names)
				}
			}
			if tc.name == "filesystem" {
				var res struct {
					Content []struct{ Text string }
				}
				p.call(3, "tools/call", map[string]any{"name": "read_text_file",
					"arguments": map[string]any{"path": filepath.Join(fsRoot, "a.txt")}}).result(t, &res)
				if len(res.Content) != 1 || res.Content[0].Text != "hello peers\n" {
					t.Errorf("read_text_file = %+v", res)
				}
			}
		})
	}
}

// TestDiscoverProbe pins how each peer answers a first-message server/discover
// (README.md, "server/discover at a glance").
func TestDiscoverProbe(t *testing.T) {
	cases := []struct {
		name  string
		start func(t *testing.T) (string, []string)
		code  int // 0: a DiscoverResult is expected
	}{
		{"everything", func(t *testing.T) (string, []string) { return Everything(t) }, -32601},
		{"filesystem", func(t *testing.T) (string, []string) { return Filesystem(t, t.TempDir()) }, -32601},
		{"gosdk-modern", func(t *testing.T) (string, []string) { return GoSDKServer(t, "modern") }, 0},
		{"gosdk-modern-only", func(t *testing.T) (string, []string) { return GoSDKServer(t, "modern-only") }, 0},
		{"gosdk-legacy", func(t *testing.T) (string, []string) { return GoSDKServer(t, "legacy") }, -32601},
		{"gosdk-sdk-legacy", func(t *testing.T) (string, []string) { return GoSDKServer(t, "sdk-legacy") }, -32022},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cmd, args := tc.start(t)
			p := startPeer(t, cmd, args...)
			r := p.call("d1", "server/discover", map[string]any{"_meta": modernMeta})
			if tc.code != 0 {
				if r.Error == nil || r.Error.Code != tc.code {
					t.Fatalf("server/discover = %s, want error %d", r.raw, tc.code)
				}
				return
			}
			var dr struct {
				ResultType        string   `json:"resultType"`
				SupportedVersions []string `json:"supportedVersions"`
			}
			r.result(t, &dr)
			if dr.ResultType != "complete" || !slices.Contains(dr.SupportedVersions, "2026-07-28") {
				t.Errorf("server/discover = %s", r.raw)
			}
			if tc.name == "gosdk-modern-only" {
				r := p.call(2, "initialize", map[string]any{"protocolVersion": "2025-11-25",
					"capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "0"}})
				if r.Error == nil || r.Error.Code != -32022 {
					t.Errorf("initialize on modern-only = %s, want -32022", r.raw)
				}
			}
		})
	}
}

// TestGoSDKModernMRTR checks the ask tool's input_required round trip.
func TestGoSDKModernMRTR(t *testing.T) {
	cmd, args := GoSDKServer(t, "modern")
	p := startPeer(t, cmd, args...)
	meta := map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{}},
	}
	var first struct {
		ResultType    string                     `json:"resultType"`
		RequestState  string                     `json:"requestState"`
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
	}
	p.call(1, "tools/call", map[string]any{"name": "ask", "arguments": map[string]any{}, "_meta": meta}).result(t, &first)
	if first.ResultType != "input_required" || first.InputRequests["name"] == nil {
		t.Fatalf("first ask = %+v", first)
	}
	var second struct {
		ResultType string `json:"resultType"`
		Content    []struct{ Text string }
	}
	p.call(2, "tools/call", map[string]any{"name": "ask", "arguments": map[string]any{}, "_meta": meta,
		"requestState":   first.RequestState,
		"inputResponses": map[string]any{"name": map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}},
	}).result(t, &second)
	if second.ResultType != "complete" || len(second.Content) != 1 || second.Content[0].Text != "hello Ada" {
		t.Errorf("retried ask = %+v", second)
	}
}

// peer is a server process spoken to with raw JSON lines.
type peer struct {
	t      *testing.T
	ctx    context.Context
	stdin  io.WriteCloser
	lines  chan []byte
	stderr *Buffer
	mu     sync.Mutex // serializes writes
}

type response struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	raw []byte
}

func (r *response) result(t *testing.T, v any) {
	t.Helper()
	if r.Error != nil || r.Result == nil {
		t.Fatalf("unexpected response %s", r.raw)
	}
	if err := json.Unmarshal(r.Result, v); err != nil {
		t.Fatalf("decoding %s: %v", r.raw, err)
	}
}

func startPeer(t *testing.T, name string, args ...string) *peer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	cmd := exec.Command(name, args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &peer{t: t, ctx: ctx, stdin: stdin, lines: make(chan []byte, 64), stderr: &Buffer{}}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(p.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64*1024), 16<<20)
		for sc.Scan() {
			select {
			case p.lines <- bytes.Clone(sc.Bytes()):
			case <-ctx.Done():
				return
			}
		}
	}()
	t.Cleanup(func() {
		stdin.Close() // polite shutdown first, as the spec asks
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		cancel()
		if t.Failed() {
			t.Logf("%s stderr:\n%s", filepath.Base(name), strings.TrimSpace(p.stderr.String()))
		}
	})
	return p
}

func (p *peer) send(msg map[string]any) {
	p.t.Helper()
	msg["jsonrpc"] = "2.0"
	data, err := json.Marshal(msg)
	if err != nil {
		p.t.Fatal(err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, err := p.stdin.Write(append(data, '\n')); err != nil {
		p.t.Fatalf("writing to peer: %v", err)
	}
}

func (p *peer) notify(method string, params any) {
	p.t.Helper()
	msg := map[string]any{"method": method}
	if params != nil {
		msg["params"] = params
	}
	p.send(msg)
}

// call sends a request and returns its response, skipping notifications and
// refusing any server→client request with -32601.
func (p *peer) call(id any, method string, params any) *response {
	p.t.Helper()
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	p.send(msg)
	wantID, _ := json.Marshal(id)
	for {
		select {
		case line, ok := <-p.lines:
			if !ok {
				p.t.Fatalf("%s: peer closed stdout before answering", method)
			}
			var r response
			if err := json.Unmarshal(line, &r); err != nil {
				p.t.Fatalf("peer wrote a non-JSON line %q: %v", line, err)
			}
			r.raw = line
			switch {
			case r.Method != "" && r.ID != nil: // server→client request
				p.send(map[string]any{"id": r.ID, "error": map[string]any{"code": -32601, "message": "not supported by test"}})
			case r.Method != "": // notification
			case bytes.Equal(r.ID, wantID):
				return &r
			}
		case <-p.ctx.Done():
			p.t.Fatalf("%s: no response within %v", method, testTimeout)
		}
	}
}
