package chatlua_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luagent/luagent/luabind/chatlua"
	"github.com/luagent/luagent/luabind/host"
	"github.com/luagent/luagent/luabind/sched"
	ragent "github.com/luagent/luagent/runtime/agent"
	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/chat"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/hub"
	"github.com/luagent/luagent/runtime/testkit"
)

const metaSecret = "sk-meta-SECRET-77"

// metaModel answers the main agent with a count and, as the catalog
// agent, saves the server "two" (echo, with a secret in env) and reports
// what the tool said.
const metaModel = `
local cmd, secret = %q, %q
return agent.new{ model = function(req)
  local last = req.messages[#req.messages]
  local text = last.parts and last.parts[1] and last.parts[1].text or ""
  if not (req.system or ""):find("catalog agent", 1, true) then
    return { text = "main sees " .. #req.messages .. " messages" }
  end
  if last.role == "user" then
    return { tool_calls = { { name = "save_server", arguments = { name = "two", command = cmd, env = { TOKEN = secret } } } } }
  end
  return { text = "tool said: " .. text }
end }
`

type quietUI struct{}

func (quietUI) Event(ragent.Event)                                 {}
func (quietUI) Approve(context.Context, ragent.Call) chat.Approval { return chat.Approval{} }

// metaSession is a chat session over a real host whose catalog holds the
// echo server "one", with its Lua side.
func metaSession(t *testing.T) (*chat.Session, *chatlua.Lua, string) {
	t.Helper()
	echo := testkit.Build(t, "runtime/testkit/servers/echo")
	home := t.TempDir()
	path := catalog.Path(home)
	if err := os.WriteFile(path, fmt.Appendf(nil, `{"version": 1, "mcpServers": {"one": {"command": %q}}}`, echo), 0o600); err != nil {
		t.Fatal(err)
	}
	h := host.New(host.Config{Home: home, Interactive: true})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		h.Loop.Run(context.Background(), sched.UntilStopped)
	}()
	t.Cleanup(func() {
		h.Loop.Post(h.Loop.Stop)
		<-stopped
		h.Close()
	})
	file := filepath.Join(home, "meta_agent.lua")
	if err := os.WriteFile(file, fmt.Appendf(nil, metaModel, echo, metaSecret), 0o600); err != nil {
		t.Fatal(err)
	}
	l := chatlua.NewLua(h.Loop, h.LoadAgentFile)
	if err := l.LoadAgent(file); err != nil {
		t.Fatal(err)
	}
	ag, err := l.Build(context.Background(), chat.BuildOptions{AgentFile: file})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := catalog.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	s := chat.New(chat.Options{Agent: ag, UI: quietUI{}, Hub: ag.Agent().Hub(), Catalog: cfg.Servers})
	return s, l, path
}

// shown records what the catalog agent showed: the previews and the
// tool results.
type shown struct {
	mu    sync.Mutex
	texts []string
}

func (w *shown) add(s string) {
	w.mu.Lock()
	w.texts = append(w.texts, s)
	w.mu.Unlock()
}

func (w *shown) all() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.texts, "\n")
}

func TestMetaSaveDeclinedThenConfirmed(t *testing.T) {
	s, l, path := metaSession(t)
	ctx := context.Background()
	h := s.Hub()
	ready := make(chan struct{}, 1)
	defer h.Subscribe(func(ev hub.Event) {
		if ev.State.Name == "two" && ev.State.Status == hub.Ready {
			select {
			case ready <- struct{}{}:
			default:
			}
		}
	})()
	var out shown
	answer := false
	var saved []string
	builds := 0
	var last chat.Agent
	build := func(ctx context.Context) (a chat.Agent, err error) {
		builds++
		defer func() { last = a }()
		return l.BuildMeta(ctx, chat.MetaOptions{Path: path,
			Confirm: func(_ context.Context, text string) bool { out.add(text); return answer },
			Saved: func(name, op string) string {
				saved = append(saved, op+" "+name)
				if err := s.ApplyCatalog(path); err != nil {
					return err.Error()
				}
				return name + " is starting"
			}})
	}
	sink := func(e ragent.Event) {
		if e.Type == ragent.EventToolEnd && e.Result != nil {
			for _, c := range e.Result.Content {
				out.add(string(c))
			}
		}
	}

	// Declined: the file stays byte for byte; the model hears it.
	before, _ := os.ReadFile(path)
	text, err := s.MetaTurn(ctx, "add the echo server as two", build, sink)
	if err != nil || !strings.HasPrefix(text, "tool said: the user declined: nothing was saved") {
		t.Fatalf("declined: %q, %v", text, err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
		t.Errorf("a declined save changed the file:\n%s", after)
	}

	// Confirmed: on disk, read back by the catalog, and the hub starts it.
	answer = true
	text, err = s.MetaTurn(ctx, "add it after all", build, sink)
	if err != nil || text != "tool said: saved (the user confirmed): add two; two is starting" {
		t.Fatalf("confirmed: %q, %v", text, err)
	}
	cfg, err := catalog.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if e := cfg.Server("two"); e == nil || e.Env["TOKEN"].Value != metaSecret || cfg.Server("one") == nil {
		t.Fatalf("the saved catalog has %+v", e)
	}
	select {
	case <-ready:
	case <-time.After(30 * time.Second):
		t.Fatalf("two never got ready: %+v", h.Status())
	}
	if len(saved) != 1 || saved[0] != "add two" {
		t.Errorf("saved %q, want one add", saved)
	}
	if got := out.all(); strings.Contains(got, metaSecret) || !strings.Contains(got, `"TOKEN": "<hidden>"`) {
		t.Errorf("what the catalog agent showed:\n%s", got)
	}

	// The chat's own conversation never saw those turns.
	if text, err := s.Turn(ctx, "hello"); err != nil || text != "main sees 1 messages" {
		t.Errorf("main turn after /meta: %q, %v", text, err)
	}

	// Built once; /model makes it again, on the new model (the mock
	// calls list_servers, the first tool).
	if builds != 1 {
		t.Errorf("built %d times for one model", builds)
	}
	ag, err := l.WithModel(ctx, "mock")
	if err != nil {
		t.Fatal(err)
	}
	s.SetAgent(ag)
	if text, err := s.MetaTurn(ctx, "thanks", build, sink); err != nil || builds != 2 || !strings.HasPrefix(text, "The tool returned") || !strings.Contains(text, "two") {
		t.Errorf("after /model mock: %q, %v, built %d times", text, err, builds)
	}

	// /clear starts /meta's conversation over as well as the chat's.
	if n := len(last.Agent().Messages()); n == 0 {
		t.Fatal("the catalog agent has no conversation to clear")
	}
	s.Clear()
	if n := len(last.Agent().Messages()); n != 0 {
		t.Errorf("after /clear the catalog agent still has %d messages", n)
	}
}

func TestMetaBuildFails(t *testing.T) {
	s, l, path := metaSession(t)
	// The catalog agent is built on first use: a failing build is the
	// turn's error, and the session stays usable.
	_, err := s.MetaTurn(context.Background(), "x", func(context.Context) (chat.Agent, error) {
		return nil, errs.New(errs.Invalid, "test", "no agent")
	}, nil)
	if errs.KindOf(err) != errs.Invalid {
		t.Errorf("a failed build: %v", err)
	}
	if _, err := l.BuildMeta(context.Background(), chat.MetaOptions{Path: path}); err != nil {
		t.Errorf("BuildMeta: %v", err)
	}
}
