package session

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/luagent/luagent/runtime/sessionid"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/luagent/luagent/runtime/agent"
	"github.com/luagent/luagent/runtime/cost"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/llm"
	"github.com/luagent/luagent/runtime/secret"
)

// echoTool answers with its "text" argument, repeated n times.
func echoTool() agent.LocalTool {
	return agent.LocalTool{Name: "echo", Description: "echo text",
		Schema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"},"n":{"type":"integer"}}}`),
		Call: func(_ context.Context, args json.RawMessage) (agent.Result, error) {
			var a struct {
				Text string `json:"text"`
				N    int    `json:"n"`
			}
			json.Unmarshal(args, &a)
			return agent.TextResult(strings.Repeat(a.Text, max(1, a.N)), false), nil
		}}
}

func newAgent(tools ...agent.LocalTool) *agent.Agent {
	return agent.New(agent.Config{Model: llm.NewMock(""), Tools: tools, Yes: true})
}

func store(t testing.TB) *Store { return &Store{Dir: filepath.Join(t.TempDir(), "sessions")} }

func ask(t testing.TB, a *agent.Agent, prompt string) {
	t.Helper()
	if _, _, err := a.Ask(context.Background(), prompt); err != nil {
		t.Fatal(err)
	}
}

func llmMessages(ms []agent.Message) []llm.Message {
	out := make([]llm.Message, len(ms))
	for i, m := range ms {
		out[i] = m.LLM()
	}
	return out
}

func jsonOf(t testing.TB, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A session records each ask as a complete turn; Load gives back the
// conversation the agent had, and a resumed agent goes on from it.
func TestRecordLoadResume(t *testing.T) {
	s := store(t)
	w, err := s.Create(Header{Cwd: "/work", Model: "mock", Command: "ask"})
	if err != nil {
		t.Fatal(err)
	}
	a := newAgent(echoTool())
	a.SetRecorder(w)
	ask(t, a, "echo text=hello")
	ask(t, a, "echo text=again")
	w.Close()

	sess, err := s.Load(w.ID())
	if err != nil {
		t.Fatal(err)
	}
	if sess.Turns() != 2 || sess.Dropped != 0 || sess.Damaged != 0 || sess.LastTurn != 2 {
		t.Fatalf("turns %d dropped %d damaged %d last %d", sess.Turns(), sess.Dropped, sess.Damaged, sess.LastTurn)
	}
	var want []agent.Message
	for _, m := range a.Messages() {
		want = append(want, agent.MessageOf(m))
	}
	if got := jsonOf(t, sess.Messages()); got != jsonOf(t, want) {
		t.Fatalf("messages:\n%s\nwant\n%s", got, jsonOf(t, want))
	}
	if sess.FirstPrompt() != "echo text=hello" || sess.Cwd != "/work" || sess.Command != "ask" || sess.LastModel() != "mock" {
		t.Fatalf("header %+v first %q", sess.Header, sess.FirstPrompt())
	}
	// The tool's result line keeps the call's record and full result.
	var calls int
	for _, e := range sess.Entries {
		if e.Call != nil {
			calls++
			if e.Call.Result == nil || !strings.Contains(jsonOf(t, e.Call.Result), "hello") && !strings.Contains(jsonOf(t, e.Call.Result), "again") {
				t.Fatalf("call record %+v", e.Call)
			}
		}
	}
	if calls != 2 {
		t.Fatalf("%d call records", calls)
	}

	// Resumed: the next turn is numbered after the last.
	w2, sess2, err := s.Append(w.ID())
	if err != nil {
		t.Fatal(err)
	}
	b := newAgent(echoTool())
	b.Seed(llmMessages(sess2.Messages()))
	b.SetRecorder(w2)
	ask(t, b, "echo text=third")
	w2.Close()
	sess3, _ := s.Load(w.ID())
	if sess3.Turns() != 3 || sess3.Ends[2].Turn != 3 || len(sess3.Messages()) != len(b.Messages()) {
		t.Fatalf("after resume: %d turns, %d messages, agent %d", sess3.Turns(), len(sess3.Messages()), len(b.Messages()))
	}
}

// A run killed mid-turn leaves messages without a turn_end and maybe a
// line cut short: the reader leaves them out, and a resumed session's
// next turn follows the last one in the file.
func TestUnfinishedTurnLeftOut(t *testing.T) {
	s := store(t)
	w, err := s.Create(Header{Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	a := newAgent()
	a.SetRecorder(w)
	ask(t, a, "first")
	// Turn 2: the prompt written, then the process dies mid-line.
	w.Message(agent.Message{Role: "user", Parts: []agent.Part{{Type: "text", Text: "second"}}}, nil)
	w.mu.Lock()
	w.f.Write([]byte(`{"type":"message","turn":2,"message":{"role":"assis`))
	w.mu.Unlock()
	w.Close()

	sess, err := s.Load(w.ID())
	if err != nil {
		t.Fatal(err)
	}
	if sess.Turns() != 1 || len(sess.Messages()) != 2 || sess.Dropped != 1 || sess.Damaged != 1 || sess.LastTurn != 2 {
		t.Fatalf("turns %d messages %d dropped %d damaged %d last %d", sess.Turns(), len(sess.Messages()), sess.Dropped, sess.Damaged, sess.LastTurn)
	}
	w2, sess2, err := s.Append(w.ID())
	if err != nil {
		t.Fatal(err)
	}
	b := newAgent()
	b.Seed(llmMessages(sess2.Messages()))
	b.SetRecorder(w2)
	ask(t, b, "third")
	w2.Close()
	sess3, _ := s.Load(w.ID())
	texts := []string{}
	for _, m := range sess3.Messages() {
		texts = append(texts, textOf(m))
	}
	if got := strings.Join(texts, "|"); got != "first|mock: first|third|mock: third" || sess3.Ends[1].Turn != 3 {
		t.Fatalf("messages %q, ends %+v", got, sess3.Ends)
	}
}

// The sessions folder is 0700 and each file 0600.
func TestFileModes(t *testing.T) {
	s := store(t)
	w, err := s.Create(Header{})
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	for path, want := range map[string]os.FileMode{s.Dir: 0o700, w.Path(): 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", path, fi.Mode().Perm(), want)
		}
	}
}

// Secrets never reach the file: in a prompt, the model's text, a tool's
// arguments and result, the header.
func TestSecretsMasked(t *testing.T) {
	const key = "sk-live-0123456789abcdef"
	s := store(t)
	s.Mask = secret.NewMasker([]string{key, `quo"te-secret`})
	w, err := s.Create(Header{Cwd: "/home/" + key})
	if err != nil {
		t.Fatal(err)
	}
	a := newAgent(echoTool())
	a.SetRecorder(w)
	ask(t, a, "echo text="+key)
	ask(t, a, `echo text=quo"te-secret`)
	w.Close()
	b, _ := os.ReadFile(w.Path())
	if bytes.Contains(b, []byte(key)) || bytes.Contains(b, []byte(`quo\"te`)) {
		t.Fatalf("a secret in the file:\n%s", b)
	}
	if !bytes.Contains(b, []byte(secret.Mask)) {
		t.Fatalf("no mask in the file:\n%s", b)
	}
	if sess, err := s.Load(w.ID()); err != nil || sess.Damaged != 0 || sess.Turns() != 2 {
		t.Fatalf("load: %v %+v", err, sess)
	}
}

// A line over the line cap is cut (the file says so) while the model saw
// the whole result; a file at its cap ends with a capped line, the user
// is told once, and its complete turns still load.
func TestCaps(t *testing.T) {
	s := store(t)
	s.MaxLine = 4 << 10
	var warned []string
	s.Warn = func(m string) { warned = append(warned, m) }
	w, err := s.Create(Header{})
	if err != nil {
		t.Fatal(err)
	}
	a := newAgent(echoTool())
	a.SetRecorder(w)
	text, _, err := a.Ask(context.Background(), "echo text=abcdefgh n=2000")
	if err != nil || !strings.Contains(text, strings.Repeat("abcdefgh", 2000)) {
		t.Fatalf("the model's view was cut: %v %d", err, len(text))
	}
	w.Close()
	b, _ := os.ReadFile(w.Path())
	for _, l := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
		if int64(len(l))+1 > s.MaxLine {
			t.Fatalf("a line of %d bytes over the cap %d", len(l), s.MaxLine)
		}
	}
	if !bytes.Contains(b, []byte(`"cut":true`)) || !bytes.Contains(b, []byte("line cap")) {
		t.Fatalf("no cut line:\n%.2000s", b)
	}
	sess, err := s.Load(w.ID())
	if err != nil || sess.Turns() != 1 || sess.Damaged != 0 {
		t.Fatalf("load: %v %+v", err, sess)
	}

	// The file cap.
	s.MaxLine, s.MaxFile = 0, 2<<10
	w, err = s.Create(Header{})
	if err != nil {
		t.Fatal(err)
	}
	a = newAgent(echoTool())
	a.SetRecorder(w)
	ask(t, a, "echo text=short")
	ask(t, a, "echo text=abcdefgh n=200")
	ask(t, a, "echo text=more")
	w.Close()
	if len(warned) != 1 || !strings.Contains(warned[0], "2 KiB cap") {
		t.Fatalf("warned %q", warned)
	}
	fi, _ := os.Stat(w.Path())
	if fi.Size() > s.MaxFile+512 {
		t.Fatalf("file of %d bytes, cap %d", fi.Size(), s.MaxFile)
	}
	sess, err = s.Load(w.ID())
	if err != nil || !sess.Capped || sess.Turns() != 1 {
		t.Fatalf("load: %v capped %v turns %d", err, sess.Capped, sess.Turns())
	}
	// Resumed, it saves nothing more and says so.
	w2, _, err := s.Append(w.ID())
	if err != nil {
		t.Fatal(err)
	}
	w2.Close()
	if len(warned) != 2 {
		t.Fatalf("warned %q", warned)
	}
}

// Two runs never share a file: a session has one writer at a time, and
// writers of different sessions at once leave each file whole.
func TestConcurrentRuns(t *testing.T) {
	s := store(t)
	var wg sync.WaitGroup
	ids := make([]string, 4)
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w, err := s.Create(Header{Cwd: "/c"})
			if err != nil {
				t.Error(err)
				return
			}
			defer w.Close()
			ids[i] = w.ID()
			a := newAgent(echoTool())
			a.SetRecorder(w)
			for range 5 {
				if _, _, err := a.Ask(context.Background(), "echo text=x"); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	for _, id := range ids {
		sess, err := s.Load(id)
		if err != nil || sess.Turns() != 5 || sess.Damaged != 0 {
			t.Fatalf("%s: %v %+v", id, err, sess)
		}
	}
	w, _, err := s.Append(ids[0])
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, _, err := s.Append(ids[0]); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("a second writer: %v", err)
	}
	if err := s.Remove(ids[0]); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("remove while in use: %v", err)
	}
}

func TestListLatestRemoveFork(t *testing.T) {
	s := store(t)
	if l, err := s.List(); err != nil || len(l) != 0 {
		t.Fatalf("empty: %v %v", l, err)
	}
	mk := func(cwd, prompt string) string {
		w, err := s.Create(Header{Cwd: cwd, Model: "mock"})
		if err != nil {
			t.Fatal(err)
		}
		a := newAgent()
		a.SetRecorder(w)
		ask(t, a, prompt)
		w.Close()
		return w.ID()
	}
	a1 := mk("/a", "one")
	b1 := mk("/b", "two")
	a2 := mk("/a", "three")
	// The mtimes may tie: make the order certain.
	now := mustStat(t, s.Path(a2)).ModTime()
	os.Chtimes(s.Path(a1), now.Add(-2e9), now.Add(-2e9))
	os.Chtimes(s.Path(b1), now.Add(-1e9), now.Add(-1e9))
	l, err := s.List()
	if err != nil || len(l) != 3 || l[0].ID != a2 || l[1].ID != b1 || l[2].ID != a1 || l[0].FirstPrompt != "three" || l[0].Turns != 1 || l[0].Model != "mock" {
		t.Fatalf("list %v: %+v", err, l)
	}
	if i, err := s.Latest("/a"); err != nil || i.ID != a2 {
		t.Fatalf("latest /a: %v %v", i, err)
	}
	if _, err := s.Latest("/none"); errs.KindOf(err) != errs.NotFound {
		t.Fatalf("latest /none: %v", err)
	}
	if _, err := s.Load(a1[:8]); err != nil {
		t.Fatalf("by prefix: %v", err)
	}
	for _, bad := range []string{sessionid.New(), "../../etc/passwd", "zz", ""} {
		if _, err := s.Load(bad); errs.KindOf(err) != errs.NotFound {
			t.Errorf("load %q: %v", bad, err)
		}
		if err := s.Remove(bad); errs.KindOf(err) != errs.NotFound {
			t.Errorf("remove %q: %v", bad, err)
		}
	}
	// Fork: a new id with the old history.
	old, _ := s.Load(a1)
	w, err := s.Fork(old, Header{Cwd: "/a"})
	if err != nil {
		t.Fatal(err)
	}
	a := newAgent()
	a.Seed(llmMessages(old.Messages()))
	a.SetRecorder(w)
	ask(t, a, "four")
	w.Close()
	f, _ := s.Load(w.ID())
	if f.ID == a1 || f.ForkedFrom != a1 || f.Turns() != 2 || f.FirstPrompt() != "one" || f.Ends[1].Turn != 2 {
		t.Fatalf("fork %+v", f)
	}
	if again, _ := s.Load(a1); again.Turns() != 1 {
		t.Fatalf("the forked session changed: %d turns", again.Turns())
	}
	if err := s.Remove(a1); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load(a1); errs.KindOf(err) != errs.NotFound {
		t.Fatalf("after rm: %v", err)
	}
}

func mustStat(t *testing.T, p string) os.FileInfo {
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}

func TestParseRejects(t *testing.T) {
	for name, in := range map[string]string{
		"empty":     "",
		"not json":  "hello\n",
		"no header": `{"type":"message","turn":1,"message":{"role":"user"}}` + "\n",
		"format 2":  `{"type":"session","format":2,"id":"` + sessionid.New() + `"}` + "\n",
		"bad id":    `{"type":"session","format":1,"id":"../x"}` + "\n",
		"old chat":  `{"version": 1, "model": "mock", "messages": [], "turns": []}`,
	} {
		if _, err := Parse(strings.NewReader(in)); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
}

func FuzzParse(f *testing.F) {
	h := `{"type":"session","format":1,"id":"0f8fad5b-d9cb-469f-a165-70867728950e","cwd":"/x"}` + "\n"
	f.Add(h)
	f.Add(h + `{"type":"message","turn":1,"message":{"role":"user","parts":[{"type":"text","text":"hi"}]}}` + "\n" + `{"type":"turn_end","turn":1,"end":"answer"}` + "\n")
	f.Add(h + `{"type":"message","turn":2,"message":{"role":"user"}}` + "\n" + `{"type":"turn_end","turn":1}` + "\n" + `{"type":"capped"}`)
	f.Add(h + `{"type":"message","turn":-1,"call":{"result":{"content":[1]}}}` + "\n\n\x00")
	f.Add(h + `{"type":"message","turn":1,"message":{"role":"user"}}` + "\n" + `{"type":"compact_boundary","turn":1,"kept":9,"message":{"role":"user"}}` + "\n" + `{"type":"turn_end","turn":1}` + "\n" + `{"type":"compact_boundary","turn":2,"kept":-1}`)
	f.Fuzz(func(t *testing.T, in string) {
		s, err := Parse(strings.NewReader(in))
		if err != nil {
			return
		}
		if !sessionid.Valid(s.ID) || s.Turns() > strings.Count(in, "\n")+1 {
			t.Fatalf("parsed %+v", s)
		}
		if ms := s.Messages(); len(ms) > len(s.Entries)+1 {
			t.Fatalf("%d messages of %d entries", len(ms), len(s.Entries))
		}
		_ = s.FirstPrompt()
		_ = s.LastModel()
	})
}

func TestEnvSecrets(t *testing.T) {
	got := EnvSecrets([]string{"GITHUB_TOKEN=ghp_abcdef123", "PWD=/home/me/work", "OLDPWD=elsewhere-dir", "MY_API_KEY=/not/a/secret/path", "SHORT_KEY=abc", "HOME=/root", "PLAIN=visible-value", "DB_PASSWORD=hunter2hunter2", "XDG_SESSION_TYPE=wayland"})
	if strings.Join(got, ",") != "ghp_abcdef123,hunter2hunter2" {
		t.Fatalf("got %q", got)
	}
}

// Each turn_end line keeps its ask's cost and each model's usage; the
// session's cost is their sum, over the runs that appended to it.
func TestSessionCost(t *testing.T) {
	s := store(t)
	w, err := s.Create(Header{Cwd: "/work", Model: "mock", Command: "ask"})
	if err != nil {
		t.Fatal(err)
	}
	prices := &cost.Table{}
	prices.Set("mock", cost.Price{Input: 1e6, Output: 1e6}) // a dollar a token
	a := agent.New(agent.Config{Model: llm.NewMock(""), Prices: prices})
	a.SetRecorder(w)
	ask(t, a, "hello there")
	ask(t, a, "and again")
	w.Close()
	sess, err := s.Load(w.ID())
	if err != nil {
		t.Fatal(err)
	}
	usd, unknown := sess.Cost()
	if usd != a.Costs().TotalUSD || usd == 0 || unknown {
		t.Fatalf("session cost %v %v, agent's %v", usd, unknown, a.Costs().TotalUSD)
	}
	if mu := sess.Ends[0].ModelUsage["mock"]; mu.Requests != 1 || mu.CostUSD != sess.Ends[0].CostUSD {
		t.Fatalf("turn 1 model usage %+v", sess.Ends[0].ModelUsage)
	}
	// An unpriced run appended: the cost is then partly unknown.
	w2, _, err := s.Append(w.ID())
	if err != nil {
		t.Fatal(err)
	}
	b := newAgent()
	b.SetRecorder(w2)
	ask(t, b, "third")
	w2.Close()
	sess, _ = s.Load(w.ID())
	if usd2, unknown := sess.Cost(); usd2 != usd || !unknown {
		t.Fatalf("after an unpriced turn: %v %v", usd2, unknown)
	}
}
