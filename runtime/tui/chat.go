package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/luagent/luagent/runtime/approval"
	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/chat"
	"github.com/luagent/luagent/runtime/cmdfile"
	"github.com/luagent/luagent/runtime/errs"
	rhub "github.com/luagent/luagent/runtime/hub"
	"github.com/luagent/luagent/runtime/llm"
	"github.com/luagent/luagent/runtime/memory"
	"github.com/luagent/luagent/runtime/project"
	"github.com/luagent/luagent/runtime/render"
	"github.com/luagent/luagent/runtime/secret"
	"github.com/luagent/luagent/runtime/session"
	"github.com/luagent/luagent/runtime/visible"
)

// ChatConfig configures Chat.
type ChatConfig struct {
	// Lua is the session's Lua side (luabind/chatlua).
	Lua chat.Lua
	// Home is luagent's folder (the catalog, sessions, chat_history).
	Home string
	// Out and Err are the terminal's (or the pipe's) output. LuaOut and
	// LuaErr are where the Lua state prints and logs: the line editor
	// makes them prompt-aware and the /mcp manager holds them while it
	// has the screen.
	Out, Err       io.Writer
	LuaOut, LuaErr *SwapWriter
	// Interrupts subscribes ch to SIGINT until the returned stop (the
	// host's one signal registration).
	Interrupts func(ch chan<- os.Signal) (stop func())

	// AgentFile is --agent's file ("" builds the default agent).
	AgentFile string
	// Model is --model ("" keeps the agent's own, or the default's);
	// ModelNote is printed at the start when the model was not chosen.
	Model     string
	ModelNote string
	// ModelGiven says --model was given: a resumed conversation then
	// keeps it rather than the model it was saved with.
	ModelGiven bool
	// FallbackModels are --fallback-model's (none: the agent's own, or
	// config.json's fallbackModels).
	FallbackModels []string
	// Servers are --server's: the catalog servers the agent is offered
	// (and the only ones started); none: all.
	Servers []string
	Yes     bool
	// CodeMode is --code-mode: the model gets run_lua instead of the tools.
	CodeMode bool
	// MaxTurns and MaxCost are --max-turns and --max-cost (0: the
	// agent's own): each agent of the session gets them.
	MaxTurns int
	MaxCost  float64
	// ContextWindow is --context-window (0: the agent's own).
	ContextWindow int
	// Resume is --resume's: a session id (or the start of one), "latest"
	// (the latest session of this folder), or a conversation file saved
	// before sessions ("" starts a new session). chat_session.go.
	Resume string
	// Catalog is the catalog's entries (for /mcp's transports).
	Catalog []*catalog.Server
	// Secrets are values never to print (the providers' keys).
	Secrets []string
	// Perms are the permission rules' sources (nil: no rules): chat asks
	// whether to trust a project folder, and saves "always" answers.
	Perms *project.Setup
	// Memory is the project memory for the agent's system prompt
	// (runtime/memory; nil: none); NoMemory says --no-memory left it out.
	Memory   *memory.Memory
	NoMemory bool
	// Notify is how the terminal rings (runtime/notify's Bell, OSC9 or
	// Off; "" is Off).
	Notify string
	// SessionSecrets are more values a session file never holds (the
	// environment's and the catalog's secrets); Version is luagent's, for
	// the session's header.
	SessionSecrets []string
	Version        string
	// Commands loads the command files (runtime/cmdfile; nil: none),
	// called once the project's trust is settled; CommandPrompt computes
	// a .lua command's prompt (luabind/cmdlua). chat_files.go.
	Commands func() *cmdfile.Set
	// Agents loads the agent files (nil: none), offered to the agent as
	// tools; read when Commands is.
	Agents        func() *cmdfile.AgentSet
	CommandPrompt func(ctx context.Context, c *cmdfile.Command, args string) (string, error)
}

// Exit codes Chat returns.
const (
	exitOK    = 0
	exitError = 1
)

const (
	chatPrompt     = "> "
	chatContPrompt = ".. "
)

// ChatBanner is printed when a chat starts.
const ChatBanner = "luagent chat — model %s. /help lists the commands; end a line with \\ to continue it; Ctrl-C cancels a turn, Ctrl-D exits."

// Chat runs `luagent chat`: a conversation with an agent over the
// catalog's servers, started in the background. On a terminal it edits
// lines (history in Home/chat_history, Tab completion); otherwise it
// reads plain lines, approval answers included. It returns the exit code.
// The Lua state's loop must run meanwhile (luabind/host runs it).
func Chat(ctx context.Context, in io.Reader, interactive bool, c ChatConfig) int {
	t := &chatTerm{cfg: c, mask: secret.NewMasker(c.Secrets), tty: interactive, lua: c.Lua, prompts: map[string][]string{}, running: map[string]int{}}
	if interactive {
		t.rd = t.newReader()
	} else {
		t.rd = NewPlainReader(in)
	}
	t.out, t.errw = c.Out, c.Err
	t.counted()
	t.r = render.New(render.Options{Text: t.out, Shown: t.shown, Live: interactive})
	return t.run(ctx)
}

// chatTerm is the terminal side of a chat session.
type chatTerm struct {
	cfg  ChatConfig
	mask *secret.Masker // cfg.Secrets
	tty  bool
	rd   LineReader
	lua  chat.Lua
	s    *chat.Session
	r    *render.Renderer // the turn's events (under mu)
	out  io.Writer
	errw io.Writer

	mu       sync.Mutex // output, r and the fields below
	status   string     // the last status line shown
	statusAt uint64     // seq after it was printed (chat_startup.go)
	seq      outputSeq
	settled  atomic.Bool // piped: the servers' start settled

	statusMu sync.Mutex // showStatus, one at a time

	pmu     sync.Mutex
	prompts map[string][]string // server -> prompt names (completion)

	cancelOp func() // cancels a running /command (Ctrl-C)
	opMu     sync.Mutex

	store *session.Store // the sessions folder (chat_session.go)

	askMu sync.Mutex // one question at a time: approvals, forms
	// working is set while a turn or a command runs: only then may a
	// question take the terminal (at the prompt, the line editor has it).
	working atomic.Bool
	running map[string]int // servers with tool calls in flight (under mu)

	memorySkipped atomic.Bool // the agent opted out of the project memory

	files *cmdfile.Set   // the command files (chat_files.go)
	rules approval.Rules // the chat's permission rules (nil: none)
}

func (t *chatTerm) newReader() LineReader {
	return NewLineEditor(filepath.Join(t.cfg.Home, "chat_history"), func(line string, pos int) (string, []string, string) {
		head, cands := chat.Complete(line[:pos], t.serverNames(), t.promptNames)
		if head == "" && strings.HasPrefix(line[:pos], "/") && !strings.ContainsAny(line[:pos], " \t") {
			cands = append(cands, t.fileNames(line[:pos])...)
			sort.Strings(cands)
		}
		if len(cands) == 0 {
			return line[:pos], nil, line[pos:]
		}
		return head, cands, line[pos:]
	}, t.cfg.LuaOut, t.cfg.LuaErr)
}

// shown is s for the terminal: the secrets masked and its control
// characters visible (visible.Text). Every line a chat prints passes it:
// most quote what a server or the model said, and only luagent's own
// styling (the progress line's redraw) may write escapes.
func (t *chatTerm) shown(s string) string { return visible.Text(t.mask.String(s)) }

// say prints a line of the session's own (not the model's).
func (t *chatTerm) say(format string, a ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.endAnswerLocked()
	fmt.Fprintln(t.out, t.shown(fmt.Sprintf(format, a...)))
}

// ask reads an answer to a question; without a terminal the question is
// printed as a line (plain lines show no prompt).
func (t *chatTerm) ask(prompt string) (string, error) {
	if !t.tty {
		t.say("%s", strings.TrimRight(prompt, " "))
	}
	return t.rd.ReadLine(visible.Line(prompt)) // a form's field is the server's
}

// asking takes the one question at a time (askMu; the prompt's read holds
// it too). It is not ok when no turn runs — nobody is there to answer —
// or when the question's turn ended while it waited for the terminal.
func (t *chatTerm) asking(ctx context.Context) (release func(), ok bool) {
	if !t.working.Load() || ctx.Err() != nil {
		return func() {}, false
	}
	t.askMu.Lock()
	if !t.working.Load() || ctx.Err() != nil {
		t.askMu.Unlock()
		return func() {}, false
	}
	return t.askMu.Unlock, true
}

func (t *chatTerm) fail(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.endAnswerLocked()
	fmt.Fprintf(t.errw, "%s: %s\n", errs.KindOf(err), t.shown(render.OneLine(err.Error(), 400)))
}

func (t *chatTerm) run(ctx context.Context) int {
	defer t.rd.Close()
	o := chat.BuildOptions{Name: "chat", AgentFile: t.cfg.AgentFile, Model: t.cfg.Model, FallbackModels: t.cfg.FallbackModels, Servers: t.cfg.Servers, Yes: t.cfg.Yes, CodeMode: t.cfg.CodeMode, ContextWindow: t.cfg.ContextWindow, Elicit: t.elicit}
	o.Memory, o.MemorySkipped = t.cfg.Memory.Prompt(), func() { t.memorySkipped.Store(true) }
	if t.cfg.AgentFile != "" {
		if err := t.lua.LoadAgent(t.cfg.AgentFile); err != nil {
			fmt.Fprintf(t.errw, "luagent: %s\n", visible.Text(err.Error()))
			return exitError
		}
	}
	t.store = t.sessionStore()
	prior, conv, err := t.resumed()
	if err != nil {
		fmt.Fprintf(t.errw, "luagent: %s\n", visible.Text(sessionErr(err)))
		return exitError
	}
	rules, err := t.permissionRules()
	if err != nil {
		fmt.Fprintf(t.errw, "luagent: %s: %s\n", errs.KindOf(err), t.shown(err.Error()))
		return exitError
	}
	t.rules = rules
	t.loadFiles()
	o.Subagents = t.loadAgents()
	o.Warn = func(msg string) { fmt.Fprintf(t.errw, "luagent: %s\n", t.shown(msg)) } // an agent file that fails
	ag, err := t.lua.Build(ctx, o)
	if err != nil {
		fmt.Fprintf(t.errw, "luagent: %s: %s\n", errs.KindOf(err), t.shown(err.Error()))
		return exitError
	}
	hb := ag.Agent().Hub()
	t.s = chat.New(chat.Options{Agent: ag, UI: t, Hub: hb, Catalog: t.cfg.Catalog, AgentFile: t.cfg.AgentFile, Lua: t.lua, Rules: rules,
		MaxTurns: t.cfg.MaxTurns, MaxCost: t.cfg.MaxCost})
	w, err := t.openSession(prior, conv)
	switch {
	case err != nil && (prior != nil || conv != nil):
		fmt.Fprintf(t.errw, "luagent: %s\n", visible.Text(sessionErr(err)))
		return exitError
	case err != nil: // a new session that cannot be saved: the chat goes on unsaved
		fmt.Fprintf(t.errw, "luagent: this chat is not saved: %s\n", t.shown(sessionErr(err)))
	default:
		t.s.SetRecord(w)
	}
	// A resumed conversation's model is settled first, so only the model
	// the chat goes on with is named.
	var resumed string
	switch {
	case conv != nil:
		resumed = t.resumeModel(ctx, conv.Model)
	case prior != nil:
		resumed = t.resumeModel(ctx, prior.LastModel())
	}
	if t.cfg.ModelNote != "" && t.s.Agent() == ag {
		fmt.Fprintln(t.errw, t.cfg.ModelNote)
	}
	t.say(ChatBanner, modelName(t.s.Agent()))
	for _, n := range t.cfg.Memory.Notes() {
		t.say("%s", n)
	}
	if conv != nil || prior != nil {
		if conv != nil {
			t.say("resumed %s: %d messages, %d turns (now session %s)", t.cfg.Resume, len(conv.Messages), len(conv.Turns), w.ID())
		} else {
			t.say("resumed session %s: %d turns", prior.ID, prior.Turns())
			if prior.Dropped > 0 {
				t.say("(a turn that did not finish was left out: the session goes on after its last complete turn)")
			}
		}
		if resumed != "" {
			t.say("%s", resumed)
		}
	}
	if hb != nil {
		defer t.watch(hb)()
	}

	sigs := make(chan os.Signal, 1)
	defer t.cfg.Interrupts(sigs)()
	go func() {
		for range sigs {
			if !t.s.Cancel() {
				t.opMu.Lock()
				c := t.cancelOp
				t.opMu.Unlock()
				if c != nil {
					c()
				}
			}
		}
	}()

	t.awaitServers(ctx, hb) // after the signals: Ctrl-C ends the wait
	var buf []string
	aborted := false
	for {
		p := chatPrompt
		if len(buf) > 0 {
			p = chatContPrompt
		}
		// A question of a turn that was cancelled but has not yet stopped
		// (a form, an approval, /meta's confirmation) waits for this
		// read instead of reading the terminal beside it, and then finds
		// its turn over.
		t.askMu.Lock()
		line, err := t.rd.ReadLine(p)
		t.askMu.Unlock()
		if errors.Is(err, ErrAborted) {
			// Ctrl-C clears the line; a second one at the empty prompt it
			// leaves ends the session.
			if aborted && len(buf) == 0 {
				break
			}
			if len(buf) == 0 && t.tty {
				t.say("(Ctrl-C again or Ctrl-D to leave)")
			}
			aborted, buf = true, nil
			continue
		}
		aborted = false
		if err != nil {
			break
		}
		if strings.HasSuffix(line, "\\") {
			buf = append(buf, strings.TrimSuffix(line, "\\"))
			continue
		}
		buf = append(buf, line)
		text := strings.Join(buf, "\n")
		buf = nil
		if strings.TrimSpace(text) == "" {
			continue
		}
		t.rd.AddHistory(text)
		t.working.Store(true)
		if chat.IsCommand(text) {
			ok := t.command(ctx, text)
			t.working.Store(false)
			if !ok {
				break
			}
			continue
		}
		t.turn(ctx, func(ctx context.Context) (string, error) { return t.s.Turn(ctx, chat.Unescape(text)) })
		t.working.Store(false)
	}
	for _, n := range t.s.End(context.WithoutCancel(ctx), "prompt_input_exit") { // SessionEnd hooks
		t.say("%s", n)
	}
	t.saveOnExit()
	return exitOK
}

// resumeModel goes on with the model a conversation was saved with,
// unless --model or --agent chose one, and returns what to say of it.
func (t *chatTerm) resumeModel(ctx context.Context, saved string) string {
	if saved == "" || t.cfg.ModelGiven || t.cfg.AgentFile != "" || saved == modelName(t.s.Agent()) {
		return ""
	}
	ag, err := t.s.SetModel(ctx, saved)
	if err != nil {
		return fmt.Sprintf("the conversation was with %s, which is not available here (%s): going on with %s", saved, render.OneLine(err.Error(), 200), modelName(t.s.Agent()))
	}
	return fmt.Sprintf("model: %s (the one the conversation was saved with)", modelName(ag))
}

func modelName(ag chat.Agent) string {
	if m := ag.Agent().Model(); m != nil {
		return m.Name()
	}
	return "(none)"
}

// turn runs one turn and ends its output.
func (t *chatTerm) turn(ctx context.Context, run func(context.Context) (string, error)) {
	start := time.Now()
	_, err := run(ctx)
	took := time.Since(start)
	defer t.turnEnded(took, err)
	t.mu.Lock()
	t.r.Finish()
	t.mu.Unlock()
	// The session file has the turn already (each message as it
	// completed), so a crash or a closed terminal loses nothing.
	if err != nil {
		if errs.KindOf(err) == errs.Cancelled {
			t.say("(cancelled; the conversation goes on)")
			return
		}
		t.fail(err)
	}
}

func (t *chatTerm) saveOnExit() {
	if t.s == nil {
		return
	}
	if w := t.endSession(); w != nil {
		t.say("saved the conversation to %s (luagent chat --resume %s continues it)", w.Path(), w.ID())
	}
}

// op runs a slash command's work with a context Ctrl-C cancels.
func (t *chatTerm) op(ctx context.Context, timeout time.Duration) (context.Context, func()) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	t.opMu.Lock()
	t.cancelOp = cancel
	t.opMu.Unlock()
	return ctx, func() {
		t.opMu.Lock()
		t.cancelOp = nil
		t.opMu.Unlock()
		cancel()
	}
}

// command runs a slash command; false ends the session.
func (t *chatTerm) command(ctx context.Context, line string) bool {
	if fc, args := t.fileCommand(line); fc != nil {
		t.runFile(ctx, fc, args)
		return true
	}
	c, err := chat.ParseCommand(line)
	if err != nil {
		t.fail(err)
		return true
	}
	switch c.Name {
	case "quit":
		return false
	case "memory":
		t.showMemory()
	case "cost":
		t.say("%s", chat.CostReport(t.s.Agent().Agent().Costs()))
	case "compact":
		t.compact(ctx, c.Rest) // chat_context.go
	case "context":
		t.showContext()
	case "help":
		var b strings.Builder
		b.WriteString("commands:\n")
		for _, cmd := range chat.Commands {
			fmt.Fprintf(&b, "  %-38s %s\n", cmd.Usage, cmd.Help)
		}
		t.fileHelp(&b)
		b.WriteString("a plain line goes to the agent (//text sends /text); end a line with \\ to continue it on the next.\n")
		b.WriteString("Ctrl-C cancels a running turn; at the prompt it clears the line, twice leaves. Ctrl-D leaves.")
		t.say("%s", b.String())
	case "mcp":
		if len(c.Args) > 0 {
			t.mcpVerb(ctx, c.Args)
			return true
		}
		hb := t.s.Hub()
		if hb == nil {
			t.say("this agent has no MCP servers (its hub is off)")
			return true
		}
		if t.tty {
			t.mcpManager(ctx)
			return true
		}
		t.say("%s", strings.TrimRight(chat.MCPList(hb.Status(), t.s.Catalog()), "\n"))
	case "meta":
		t.meta(ctx, c.Rest)
	case "model":
		if len(c.Args) == 0 {
			t.say("model: %s", modelName(t.s.Agent()))
			return true
		}
		octx, done := t.op(ctx, time.Minute)
		ag, err := t.s.SetModel(octx, c.Args[0])
		done()
		if err != nil {
			t.fail(err)
			return true
		}
		t.say("model: %s (the conversation goes on)", modelName(ag))
	case "clear":
		if w := t.endSession(); w != nil {
			t.say("the last conversation is saved in %s (session %s)", w.Path(), w.ID())
		}
		t.s.Clear()
		w, err := t.openSession(nil, nil)
		if err != nil {
			t.fail(err)
			return true
		}
		t.s.SetRecord(w)
		t.say("new conversation (session %s)", w.ID())
	case "save":
		if len(c.Args) != 1 {
			t.fail(errs.New(errs.Invalid, "chat", "/save needs one file: /save chat.json"))
			return true
		}
		if err := t.s.Save(c.Args[0]); err != nil {
			t.fail(err)
			return true
		}
		t.say("saved the conversation to %s", c.Args[0])
	case "lua":
		if c.Rest == "" {
			t.fail(errs.New(errs.Invalid, "chat", "/lua needs a line of Lua: /lua 1+1"))
			return true
		}
		octx, done := t.op(ctx, 24*time.Hour)
		out, err := t.s.Eval(octx, c.Rest)
		done()
		if err != nil {
			t.fail(err)
			return true
		}
		if out != "" {
			t.say("%s", out)
		}
	}
	return true
}

// mcpVerb is /mcp with arguments: prompt, restart, enable, disable, or a
// server's name to inspect it.
func (t *chatTerm) mcpVerb(ctx context.Context, args []string) {
	verb := args[0]
	switch verb {
	case "prompt":
		t.mcpPrompt(ctx, args[1:])
		return
	case "restart", "enable", "disable", "auth":
		if len(args) != 2 {
			t.fail(errs.Errorf(errs.Invalid, "chat", "/mcp %s needs one server: /mcp %s NAME", verb, verb))
			return
		}
		var err error
		switch verb {
		case "restart":
			err = t.s.Restart(args[1])
		case "auth":
			// The login waits for the browser: Ctrl-C gives up.
			octx, done := t.op(ctx, 10*time.Minute)
			err = t.s.Reauthorize(octx, args[1])
			done()
		default:
			octx, done := t.op(ctx, 30*time.Second)
			err = t.s.SetEnabled(octx, catalog.Path(t.cfg.Home), args[1], verb == "enable")
			done()
		}
		if err != nil {
			t.fail(err)
			return
		}
		t.say("%s: %s (the conversation goes on)", args[1], map[string]string{"restart": "restarting", "enable": "enabled, starting",
			"disable": "disabled, stopped", "auth": "authorized, restarting"}[verb])
		return
	}
	if len(args) != 1 {
		t.fail(errs.Errorf(errs.Invalid, "chat", "unknown /mcp %s: /help lists the /mcp commands", verb))
		return
	}
	octx, done := t.op(ctx, 30*time.Second)
	out, err := t.s.Inspect(octx, verb)
	done()
	if err != nil {
		t.fail(err)
		return
	}
	t.say("%s", out)
}

// mcpPrompt is /mcp prompt SERVER PROMPT k=v...: the prompt's messages
// are shown, then sent as the next turn; any failure sends nothing.
func (t *chatTerm) mcpPrompt(ctx context.Context, args []string) {
	if len(args) < 2 {
		t.fail(errs.New(errs.Invalid, "chat", "/mcp prompt needs a server and a prompt: /mcp prompt SERVER PROMPT [k=v ...]"))
		return
	}
	kv, err := chat.ParseKV(args[2:])
	if err != nil {
		t.fail(err)
		return
	}
	octx, done := t.op(ctx, time.Minute)
	msgs, err := t.s.FetchPrompt(octx, args[0], args[1], kv)
	done()
	if err != nil {
		t.fail(err)
		return
	}
	t.mu.Lock()
	fmt.Fprintln(t.out, t.shown(fmt.Sprintf("prompt %s › %s:", args[0], args[1])))
	for _, m := range msgs {
		fmt.Fprintln(t.out, t.shown(fmt.Sprintf("  [%s] %s", m.Role, partsText(m))))
	}
	t.mu.Unlock()
	t.turn(ctx, func(ctx context.Context) (string, error) { return t.s.Submit(ctx, msgs) })
}

func partsText(m llm.Message) string {
	var out []string
	for _, p := range m.Parts {
		if p.Type == "text" {
			out = append(out, p.Text)
		} else {
			out = append(out, "["+p.Type+"]")
		}
	}
	return strings.Join(out, " ")
}

// watch shows the servers' progress as they start: the status line when
// it changes, and each failure once; the servers stopping at the end are
// not news (stop unsubscribes).
func (t *chatTerm) watch(hb *rhub.Hub) (stop func()) {
	// Subscribed before the first look, so a server ready in between is
	// not missed (the line would stay at "0/2 servers ready").
	stop = hb.Subscribe(func(ev rhub.Event) {
		st := ev.State
		switch st.Status {
		case rhub.Failed:
			if st.Err != nil {
				t.say("  %s failed: %s", st.Name, render.OneLine(st.Err.Error(), 300))
			}
		case rhub.NeedsAuth:
			t.say("  %s needs authorization (luagent mcp login, or /mcp later)", st.Name)
		case rhub.Ready:
			go t.cachePrompts(hb, st)
		}
		t.showStatus(hb)
	})
	for _, st := range hb.Status() {
		if st.Status == rhub.Ready {
			go t.cachePrompts(hb, st)
		}
	}
	t.showStatus(hb)
	return stop
}

// showStatus prints the status line when it changed. Reading the states
// and printing are one step, so a line read earlier is never printed
// after a later one.
func (t *chatTerm) showStatus(hb *rhub.Hub) {
	t.statusMu.Lock()
	defer t.statusMu.Unlock()
	t.printStatus(chat.StatusLine(hb.Status()))
}

func (t *chatTerm) cachePrompts(hb *rhub.Hub, st rhub.State) {
	if st.Info.Capabilities.Prompts == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	items, err := hb.Prompts(ctx, st.Name)
	if err != nil {
		return
	}
	var names []string
	for _, it := range items {
		if n := promptName(it.Raw); n != "" {
			names = append(names, n)
		}
	}
	t.pmu.Lock()
	t.prompts[st.Name] = names
	t.pmu.Unlock()
}

func (t *chatTerm) serverNames() []string {
	if t.s == nil || t.s.Hub() == nil {
		return nil
	}
	var out []string
	for _, st := range t.s.Hub().Status() {
		out = append(out, st.Name)
	}
	return out
}

func (t *chatTerm) promptNames(server string) []string {
	t.pmu.Lock()
	defer t.pmu.Unlock()
	return t.prompts[server]
}

// endAnswerLocked ends a line of answer text (and a progress line)
// before other output.
func (t *chatTerm) endAnswerLocked() { t.r.EndAnswer() }
