package acp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	ragent "github.com/luagent/luagent/runtime/agent"
	"github.com/luagent/luagent/runtime/errs"
)

// fakeAgent is a Handler with scripted sessions.
type fakeAgent struct {
	srv *Server
}

func (f *fakeAgent) Authenticate(ctx context.Context, id string) error {
	return errs.New(errs.Auth, "authenticate", "FAKE_KEY is not set")
}

func (f *fakeAgent) NewSession(ctx context.Context, req NewSessionRequest) (Session, error) {
	return &fakeSession{f: f, id: "s1", cwd: req.Cwd, servers: len(req.MCPServers)}, nil
}

func (f *fakeAgent) LoadSession(ctx context.Context, req LoadSessionRequest, replay func(Update)) (Session, error) {
	if req.SessionID != "old" {
		return nil, errs.Errorf(errs.NotFound, "load", "no session %q", req.SessionID)
	}
	b := TextBlock("earlier")
	replay(Update{SessionUpdate: UpdateUserMessage, Content: &b})
	return &fakeSession{f: f, id: "old", cwd: req.Cwd}, nil
}

type fakeSession struct {
	f       *fakeAgent
	id, cwd string
	servers int
	mu      sync.Mutex
	mode    string
}

func (s *fakeSession) ID() string { return s.id }
func (s *fakeSession) Modes() *SessionModeState {
	return &SessionModeState{CurrentModeID: "default", AvailableModes: []SessionMode{{ID: "default", Name: "Ask"}, {ID: "yes", Name: "Allow all"}}}
}
func (s *fakeSession) SetMode(id string) error {
	if id != "default" && id != "yes" {
		return errs.Errorf(errs.Invalid, "set_mode", "no mode %q", id)
	}
	s.mu.Lock()
	s.mode = id
	s.mu.Unlock()
	return nil
}
func (s *fakeSession) Close() {}

func (s *fakeSession) Prompt(ctx context.Context, prompt []ContentBlock, update func(Update)) (StopReason, error) {
	text, err := PromptText(prompt)
	if err != nil {
		return "", err
	}
	chunk := func(s string) {
		b := TextBlock(s)
		update(Update{SessionUpdate: UpdateAgentMessage, Content: &b})
	}
	switch text {
	case "hello":
		chunk("hi ")
		chunk("there (" + string(rune('0'+s.servers)) + " servers)")
	case "tool":
		c := ragent.Call{ID: "c1", Name: "write_file", Arguments: json.RawMessage(`{"path":"a.txt"}`)}
		tc := ToolCallOf(c, s.cwd, StatusPending)
		update(Update{SessionUpdate: UpdateToolCall, ToolCall: tc})
		choice, err := s.f.srv.RequestPermission(ctx, s.id, *tc, []PermissionOption{
			{OptionID: "allow", Name: "Allow", Kind: AllowOnce}, {OptionID: "reject", Name: "Reject", Kind: RejectOnce}})
		if err != nil {
			return "", err
		}
		if choice == "allow" {
			update(Update{SessionUpdate: UpdateToolCallUpd, ToolCall: &ToolCall{ToolCallID: "c1", Status: StatusCompleted, Content: textContent("done")}})
		} else {
			update(Update{SessionUpdate: UpdateToolCallUpd, ToolCall: &ToolCall{ToolCallID: "c1", Status: StatusFailed, Content: textContent("rejected")}})
		}
	case "slow":
		chunk("waiting")
		<-ctx.Done()
	case "fail":
		return "", errs.New(errs.Runtime, "model", "the model failed")
	}
	return StopEndTurn, nil
}

// runTranscript plays a testdata transcript: "> " lines are sent, each
// "< " line is the next line the agent writes (compared as JSON).
func runTranscript(t *testing.T, path string) {
	f, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	fa := &fakeAgent{}
	srv := NewServer(fa, Options{Info: Implementation{Name: "fake", Version: "0.0.1"},
		Capabilities: AgentCapabilities{LoadSession: true, PromptCapabilities: PromptCapabilities{EmbeddedContext: true}, MCPCapabilities: MCPCapabilities{HTTP: true}},
		AuthMethods:  []AuthMethod{{ID: "env", Name: "Key in the environment"}}})
	fa.srv = srv
	done := make(chan error, 1)
	go func() { done <- srv.Serve(context.Background(), inR, outW); outW.Close() }()
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	for n, line := range strings.Split(string(f), "\n") {
		switch {
		case strings.HasPrefix(line, "> "):
			if _, err := io.WriteString(inW, line[2:]+"\n"); err != nil {
				t.Fatalf("line %d: %v", n+1, err)
			}
		case strings.HasPrefix(line, "< "):
			var got string
			select {
			case got = <-lines:
			case <-time.After(10 * time.Second):
				t.Fatalf("line %d: no answer, wanted %s", n+1, line[2:])
			}
			if !sameJSON(got, line[2:]) {
				t.Errorf("line %d:\n got %s\nwant %s", n+1, got, line[2:])
			}
		}
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Errorf("Serve: %v", err)
	}
	if extra, ok := <-lines; ok {
		t.Errorf("an extra line: %s", extra)
	}
}

func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return a == b
	}
	return reflect.DeepEqual(x, y)
}

func TestTranscripts(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.txt")
	if len(files) == 0 {
		t.Fatal("no transcripts")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) { runTranscript(t, f) })
	}
}

// Serve ends when the input ends, cancelling the running prompts.
func TestServeEndsRunningPrompts(t *testing.T) {
	fa := &fakeAgent{}
	srv := NewServer(fa, Options{})
	fa.srv = srv
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(context.Background(), inR, outW); outW.Close() }()
	sc := bufio.NewScanner(outR)
	io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`+"\n")
	sc.Scan()
	io.WriteString(inW, `{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"slow"}]}}`+"\n")
	sc.Scan() // "waiting": the prompt runs
	inW.Close()
	var rest []string
	for sc.Scan() {
		rest = append(rest, sc.Text())
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if len(rest) != 1 || !strings.Contains(rest[0], `"id":2,"result":{"stopReason":"cancelled"}`) {
		t.Errorf("output: %q", rest)
	}
}

// Requests beyond MaxInFlight are refused, not queued without bound.
func TestMaxInFlight(t *testing.T) {
	block := make(chan struct{})
	h := (&blockingAgent{block: block}).init()
	srv := NewServer(h, Options{MaxInFlight: 1, AuthMethods: []AuthMethod{{ID: "x", Name: "x"}}})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go srv.Serve(context.Background(), inR, outW)
	sc := bufio.NewScanner(outR)
	io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"authenticate","params":{"methodId":"x"}}`+"\n")
	<-h.started
	io.WriteString(inW, `{"jsonrpc":"2.0","id":2,"method":"authenticate","params":{"methodId":"x"}}`+"\n")
	if !sc.Scan() || !strings.Contains(sc.Text(), `"id":2,"error":{"code":-32603,"message":"too many requests in flight (1)`) {
		t.Fatalf("second request: %s", sc.Text())
	}
	close(block)
	if !sc.Scan() || !strings.Contains(sc.Text(), `"id":1,"result":{}`) {
		t.Fatalf("first request: %s", sc.Text())
	}
	inW.Close()
}

type blockingAgent struct {
	fakeAgent
	block   chan struct{}
	once    sync.Once
	started chan struct{}
}

func (b *blockingAgent) Authenticate(ctx context.Context, id string) error {
	b.once.Do(func() { close(b.started) })
	<-b.block
	return nil
}

func (b *blockingAgent) init() *blockingAgent { b.started = make(chan struct{}); return b }

// FuzzServer: whatever lines come first, the server answers a later
// initialize, and every line it writes is one JSON-RPC 2.0 message.
func FuzzServer(f *testing.F) {
	for _, name := range []string{"initialize.txt", "session.txt", "errors.txt"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		var in []string
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "> ") {
				in = append(in, l[2:])
			}
		}
		f.Add([]byte(strings.Join(in, "\n")))
	}
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"id\":[1],\"method\":\"x\"}\n\x00\xff\n{}"))
	f.Fuzz(func(t *testing.T, in []byte) {
		fa := &fakeAgent{}
		srv := NewServer(fa, Options{MaxLine: 1 << 16, AuthMethods: []AuthMethod{{ID: "env", Name: "env"}}})
		fa.srv = srv
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		done := make(chan error, 1)
		go func() { done <- srv.Serve(context.Background(), inR, outW); outW.Close() }()
		found := make(chan bool, 1)
		go func() {
			sc := bufio.NewScanner(outR)
			sc.Buffer(nil, 1<<20)
			ok := false
			for sc.Scan() {
				var m struct {
					JSONRPC string          `json:"jsonrpc"`
					ID      json.RawMessage `json:"id"`
				}
				if json.Unmarshal(sc.Bytes(), &m) != nil || m.JSONRPC != "2.0" {
					t.Errorf("not a JSON-RPC message: %q", sc.Text())
				}
				if string(m.ID) == `"fuzz-end"` {
					ok = true
				}
			}
			found <- ok
		}()
		go func() {
			inW.Write(in)
			io.WriteString(inW, "\n{\"jsonrpc\":\"2.0\",\"id\":\"fuzz-end\",\"method\":\"initialize\",\"params\":{\"protocolVersion\":1}}\n")
			inW.Close()
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("Serve did not end")
		}
		if !<-found {
			t.Error("no answer to the last initialize")
		}
	})
}

// A client that stops reading the agent's output does not stop the agent
// reading its input: lines that each get a reply (parse errors here) are
// all read, and the request after them reaches its handler.
func TestClientNotReadingDoesNotBlockTheReader(t *testing.T) {
	block := make(chan struct{})
	h := (&blockingAgent{block: block}).init()
	srv := NewServer(h, Options{AuthMethods: []AuthMethod{{ID: "x", Name: "x"}}})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe() // nobody reads outR until the end
	done := make(chan error, 1)
	go func() { done <- srv.Serve(context.Background(), inR, outW) }()
	go func() {
		for range 50 {
			io.WriteString(inW, "not json\n")
		}
		io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"authenticate","params":{"methodId":"x"}}`+"\n")
	}()
	select {
	case <-h.started:
	case <-time.After(20 * time.Second):
		t.Fatal("the request after 50 junk lines never reached its handler: the reader waits for a client that does not read")
	}
	close(block)
	outR.Close() // the client goes away: the held output fails, Serve ends
	inW.Close()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("Serve did not end after its client went away")
	}
}
