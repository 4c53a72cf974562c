package host

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"

	"github.com/luagent/luagent/luabind/chatlua"
	"github.com/luagent/luagent/luabind/cmdlua"
	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/chat"
	"github.com/luagent/luagent/runtime/tui"
	"github.com/luagent/luagent/runtime/visible"
)

// ChatConfig configures Host.Chat: tui.ChatConfig's options of the
// command line (the host fills in the rest).
type ChatConfig = tui.ChatConfig

// ChatBanner is printed when a chat starts.
const ChatBanner = tui.ChatBanner

// Chat runs `luagent chat` (tui.Chat) with this host's Lua state as the
// session's Lua side (luabind/chatlua), its loop running meanwhile. It
// returns the exit code.
func (h *Host) Chat(ctx context.Context, in io.Reader, interactive bool, c ChatConfig) int {
	c.Lua = chatlua.NewLua(h.Loop, h.LoadAgentFile)
	if c.CommandPrompt == nil {
		c.CommandPrompt = cmdlua.Prompt // a .lua command file, in the sandbox
	}
	c.Home = h.cfg.Home
	c.Out, c.Err = h.Stdout(), h.Stderr()
	c.LuaOut, c.LuaErr = h.out, h.errw
	c.Interrupts = func(ch chan<- os.Signal) func() { return subscribeSignals(ch, os.Interrupt) }
	code := ExitOK
	go func() {
		defer h.Loop.Post(h.Loop.Stop)
		code = tui.Chat(ctx, in, interactive, c)
	}()
	h.Loop.Run(ctx, sched.UntilStopped)
	return code
}

// replMCP is the REPL's /mcp: the catalog's servers in the hub agents
// share (agent.default_hub(), started on first use), in the manager on a
// terminal, else as a status list.
func (h *Host) replMCP(ctx context.Context, tty bool, op *atomic.Pointer[context.CancelFunc]) {
	cfg, err := catalog.Load(catalog.Path(h.cfg.Home))
	if err != nil {
		fmt.Fprintf(h.cfg.Stderr, "luagent: %s\n", visible.Text(err.Error()))
		return
	}
	if len(cfg.Servers) == 0 && !tty {
		fmt.Fprint(h.cfg.Stdout, chat.MCPList(nil, nil))
		return
	}
	hb, err := chatlua.NewLua(h.Loop, h.LoadAgentFile).DefaultHub(ctx)
	if err != nil {
		fmt.Fprintf(h.cfg.Stderr, "luagent: %s\n", visible.Text(err.Error()))
		return
	}
	if !tty {
		fmt.Fprint(h.cfg.Stdout, visible.Text(chat.MCPList(hb.Status(), cfg.Servers)))
		return
	}
	s := chat.NewServers(hb, cfg.Servers)
	login := func(ctx context.Context, name string) error {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
		defer cancel()
		op.Store(&cancel)
		defer op.Store(nil)
		return s.Reauthorize(ctx, name)
	}
	log, err := tui.RunManager(ctx, tui.ManagerOptions{Servers: s, Home: h.cfg.Home, Login: login,
		Drop: func(string) bool { return false }, Out: h.out, Err: h.errw})
	if err != nil {
		fmt.Fprintf(h.cfg.Stderr, "luagent: the /mcp manager failed: %v; =agent.default_hub():status() lists the servers without it\n", err)
	}
	for _, l := range log {
		fmt.Fprintf(h.cfg.Stdout, "  %s\n", visible.Text(l))
	}
}
