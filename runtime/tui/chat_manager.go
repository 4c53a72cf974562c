package tui

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/chat"
	"github.com/luagent/luagent/runtime/errs"
	rhub "github.com/luagent/luagent/runtime/hub"
	"github.com/luagent/luagent/runtime/tui/manager"
)

// mcpManager is /mcp on a terminal: the full-screen manager
// (runtime/tui/manager), between two prompts (the line editor is not
// reading then). It returns when the manager closes (q, Esc), and prints
// what the manager did, one line per action, and the status line if it
// changed. What the session printed meanwhile is held, so it does not
// draw over the screen, and printed after — but for the status lines
// (watch's "[...]"), which the last one sums up.
func (t *chatTerm) mcpManager(ctx context.Context) {
	t.mu.Lock()
	before := t.status
	t.mu.Unlock()
	login := func(ctx context.Context, name string) error {
		octx, done := t.op(ctx, 10*time.Minute)
		defer done()
		return t.s.Reauthorize(octx, name)
	}
	isStatus := func(line string) bool { return strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") }
	log, err := RunManager(ctx, ManagerOptions{Servers: t.s.Servers, Home: t.cfg.Home, Redact: t.shown, Login: login, Drop: isStatus,
		Out: t.cfg.LuaOut, Err: t.cfg.LuaErr})
	if err != nil {
		t.fail(errs.Errorf(errs.Internal, "chat", "the /mcp manager failed: %v; /mcp NAME and /mcp restart|enable|disable|auth NAME work without it", err))
	}
	for _, l := range log {
		t.say("  %s", l)
	}
	t.mu.Lock()
	now := t.status
	t.mu.Unlock()
	if now != before && now != "" {
		t.say("[%s]", now)
	}
}

// ManagerOptions configure RunManager.
type ManagerOptions struct {
	// Servers are the servers shown, over the catalog at Home's path.
	Servers *chat.Servers
	Home    string
	// Redact is what every outside string passes (nil: none).
	Redact func(string) string
	// Login runs a server's OAuth login, the terminal handed to it (the
	// manager's a).
	Login func(ctx context.Context, name string) error
	// Drop says which held lines are news no more.
	Drop func(line string) bool
	// Out and Err are the host's output, held while the manager has the
	// screen.
	Out, Err *SwapWriter
}

// RunManager runs the /mcp manager full screen (runtime/tui/manager)
// until it closes, and returns what it did, a line per action, and the
// terminal's error (each caller says what works without the manager).
// The host's output is held meanwhile and printed after, but for the
// lines Drop says are news no more.
func RunManager(ctx context.Context, o ManagerOptions) ([]string, error) {
	s, redact, login, drop := o.Servers, o.Redact, o.Login, o.Drop
	var held heldOutput
	oldOut, oldErr := o.Out.swap(&held), o.Err.swap(&held)
	path := catalog.Path(o.Home)
	m := manager.New(manager.Options{
		Backend: serversBackend{s: s, path: path},
		Path:    path,
		Redact:  redact,
		Authorize: func(name string) tea.Cmd {
			return tea.Exec(&authExec{ctx: ctx, name: name, login: login}, func(err error) tea.Msg {
				return manager.AuthDoneMsg{Name: name, Err: err}
			})
		},
	})
	// The session's own handler keeps SIGINT (Ctrl-C is a key in the
	// manager's raw mode, and ends a login the manager hands the terminal
	// to); SIGTERM keeps its default.
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithoutSignalHandler(), tea.WithInput(os.Stdin), tea.WithOutput(os.Stdout))
	stop := s.Hub().Subscribe(func(rhub.Event) { p.Send(manager.StatusMsg{}) })
	final, err := p.Run()
	stop()
	o.Out.Set(oldOut)
	o.Err.Set(oldErr)
	held.flushTo(oldOut, drop)
	if ctx.Err() != nil {
		err = nil // the session is ending
	}
	var log []string
	if fm, ok := final.(manager.Model); ok {
		log = fm.Log()
	}
	return log, err
}

// serversBackend is the manager's Backend: the servers, their hub and the
// catalog file.
type serversBackend struct {
	s    *chat.Servers
	path string
}

func (b serversBackend) Status() []rhub.State       { return b.s.Hub().Status() }
func (b serversBackend) Catalog() []*catalog.Server { return b.s.Catalog() }
func (b serversBackend) Details(ctx context.Context, name string) (chat.Details, error) {
	return b.s.Details(ctx, name)
}
func (b serversBackend) Restart(name string) error { return b.s.Restart(name) }
func (b serversBackend) SetEnabled(ctx context.Context, name string, on bool) error {
	return b.s.SetEnabled(ctx, b.path, name, on)
}
func (b serversBackend) Remove(ctx context.Context, name string) error {
	return b.s.Remove(ctx, b.path, name)
}
func (b serversBackend) Add(ctx context.Context, e *catalog.Server) error {
	return b.s.Add(ctx, b.path, e)
}
func (b serversBackend) Reload() (chat.Reloaded, error) { return b.s.Reload(b.path) }

// authExec is a login the manager hands the terminal to (tea.Exec): the
// same path as /mcp auth NAME, the URL printed by the OAuth flow, Ctrl-C
// giving up; the manager's screen comes back when it ends.
type authExec struct {
	ctx   context.Context
	name  string
	login func(ctx context.Context, name string) error
	out   io.Writer
}

func (a *authExec) SetStdin(io.Reader)    {}
func (a *authExec) SetStdout(w io.Writer) { a.out = w }
func (a *authExec) SetStderr(io.Writer)   {}

func (a *authExec) Run() error {
	if a.out == nil {
		a.out = os.Stdout
	}
	// The OAuth flow announces the URL when it has one: a login that
	// fails before must not leave a promise of it behind.
	fmt.Fprintf(a.out, "\nauthorizing %s (Ctrl-C gives up)\n", a.name)
	// The manager shows the outcome; tea.Exec reports only the error.
	return a.login(a.ctx, a.name)
}

// swap sets the writer's target and returns the one it had.
func (s *SwapWriter) swap(w io.Writer) io.Writer {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.w
	s.w = w
	return old
}

// heldOutput keeps what is written until flushTo.
type heldOutput struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (h *heldOutput) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.buf.Write(p)
}

func (h *heldOutput) flushTo(w io.Writer, drop func(line string) bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out bytes.Buffer
	for _, l := range strings.SplitAfter(h.buf.String(), "\n") {
		if l != "" && !drop(strings.TrimRight(l, "\n")) {
			out.WriteString(l)
		}
	}
	h.buf.Reset()
	if out.Len() > 0 {
		w.Write(out.Bytes())
	}
}
