// Package host assembles a Lua state, its scheduler loop and the modules
// every script has (json, inspect, task, log, env) into the modes a user
// runs: the REPL, a script file, a -e chunk.
package host

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/luagent/luagent/luabind/codemode"
	agentmod "github.com/luagent/luagent/luabind/mod/agent"
	catalogmod "github.com/luagent/luagent/luabind/mod/catalog"
	envmod "github.com/luagent/luagent/luabind/mod/env"
	"github.com/luagent/luagent/luabind/mod/helpdoc"
	jsonmod "github.com/luagent/luagent/luabind/mod/json"
	logmod "github.com/luagent/luagent/luabind/mod/log"
	mcpmod "github.com/luagent/luagent/luabind/mod/mcp"
	"github.com/luagent/luagent/luabind/mod/mcpclient"
	taskmod "github.com/luagent/luagent/luabind/mod/task"
	"github.com/luagent/luagent/luabind/preload"
	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/luabind/vm"
	"github.com/luagent/luagent/runtime/approval"
	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/hooks"
	"github.com/luagent/luagent/runtime/llm"
	"github.com/luagent/luagent/runtime/project"
	"github.com/luagent/luagent/runtime/trace"
	"github.com/luagent/luagent/runtime/tui"
	"github.com/luagent/luagent/runtime/visible"
	"github.com/luagent/luagent/stdlib"
	lua "github.com/yuin/gopher-lua"
)

// Config configures a Host.
type Config struct {
	// Home is luagent's folder (LUAGENT_HOME, else ~/.luagent).
	Home string
	// Clean skips Home/init.lua.
	Clean bool
	// ScriptDir is the folder of the user's script (run FILE, serve FILE,
	// an agent file), which require searches for the script's modules
	// (after luagent's built-in ones); "" (the REPL, -e, a script on stdin)
	// searches no folder of its own, not even the working folder.
	ScriptDir string
	// LuaPath is the LUA_PATH value.
	LuaPath string
	Profile vm.Profile
	// Grants are the modules a sandboxed host has beyond its base (see
	// Grants); ignored in the Full profile.
	Grants []string
	// Limits bound what each run of a sandboxed host may use: a task
	// spawned from outside Lua (the script's main task, a request's
	// handler) gets its own budget and the tasks it spawns share it. Zero
	// fields take vm's defaults; ignored in the Full profile.
	Limits vm.Limits
	// TimeLimit bounds every task of the host (meant for the sandbox).
	TimeLimit time.Duration
	Stdout    io.Writer
	Stderr    io.Writer
	// Exit ends the process (os.exit); nil means os.Exit.
	Exit func(code int)
	// Env looks up environment variables for the env module; nil reads the
	// process environment.
	Env envmod.Lookup
	// Trace receives protocol and process events (--trace, -v); may be nil.
	Trace trace.Sink
	// Params are --set and --params-file values, for the catalog's env
	// references (mcp.hub) and agents' params; ParamsJSON names those that
	// are JSON text (--set-json). Version is the binary's.
	Params     map[string]string
	ParamsJSON map[string]bool
	Version    string
	// Interactive is set when the session is the REPL: mcp.hub() starts
	// servers progressively under the catalog's "auto" strategy.
	Interactive bool
	// APIKeysFile is the agents-exe keys file (--api-keys; "": agents-exe's
	// default, ~/.config/agents-exe/secret-keys).
	APIKeysFile string
}

// Host is one Lua state with its loop and standard modules.
type Host struct {
	cfg    Config
	out    *tui.SwapWriter
	errw   *tui.SwapWriter
	L      *lua.LState
	Loop   *sched.Loop
	served *lua.FunctionProto // the script serve runs (for workers)
	Logger *logmod.Logger

	// unobserved counts task failures nobody waited for.
	unobserved int
}

// CatalogModels reads the "models" of the catalog in home (none when
// there is no catalog) as the providers take them, and its default model.
func CatalogModels(home string) (map[string]llm.ModelConfig, string, error) {
	if home == "" {
		return nil, "", nil
	}
	c, err := loadCatalog(home)
	if err != nil {
		return nil, "", err
	}
	out := make(map[string]llm.ModelConfig, len(c.Models))
	for _, m := range c.Models {
		out[m.Name] = llm.ModelConfig{Provider: m.Provider, BaseURL: m.BaseURL, APIKeyEnv: m.APIKeyEnv, Model: m.Model, Price: m.Price, ContextWindow: m.ContextWindow}
	}
	return out, c.DefaultModel, nil
}

// CatalogFallbackModels returns the catalog's fallbackModels (none when
// the file is missing or does not load: the commands that read the
// catalog say why).
func CatalogFallbackModels(home string) []string {
	if home == "" {
		return nil
	}
	c, err := loadCatalog(home)
	if err != nil {
		return nil
	}
	return c.FallbackModels
}

// CatalogToolSearch returns the catalog's toolSearch and
// toolSearchThreshold ("" and 0 when the file is missing or does not load:
// the defaults, and the commands that read the catalog say why it does
// not load).
func CatalogToolSearch(home string) (mode string, threshold int) {
	if home == "" {
		return "", 0
	}
	c, err := loadCatalog(home)
	if err != nil {
		return "", 0
	}
	return c.ToolSearch, c.ToolSearchThreshold
}

// CatalogProject is what the catalog and the project dir is in give
// every agent made there ("": the working folder's), read once: the
// command hooks (the catalog's, and the project file's in a trusted
// folder; project hooks that do not parse are left out, as ask and chat
// say when they read the file) and the permission rules (the user's, the
// project's deny and ask rules and its allow rules in a trusted folder;
// nil: none). A catalog or project file that does not load, or rules that
// do not parse, are an error: an agent must not run without the deny
// rules its user wrote.
func CatalogProject(home, dir string) (hooks.Config, approval.Rules, error) {
	if home == "" {
		return hooks.Config{}, nil, nil
	}
	c, err := loadCatalog(home)
	if err != nil {
		return hooks.Config{}, nil, err
	}
	if dir == "" {
		if dir, err = os.Getwd(); err != nil {
			return hooks.Config{}, nil, errs.Errorf(errs.Invalid, "permissions", "cannot tell the working folder, so not its project's rules: %v", err)
		}
	}
	s, err := project.NewSetup(home, dir, c, nil, nil)
	if err != nil {
		return hooks.Config{}, nil, err
	}
	hs := c.HooksFrom(catalog.Path(home))
	if ph, _, err := s.Hooks(); err == nil {
		hs = hs.Merge(ph)
	}
	r, err := s.Rules()
	if err != nil || r.Len() == 0 {
		return hs, nil, err
	}
	return hs, r, nil
}

// Home returns luagent's folder: $LUAGENT_HOME, else ~/.luagent.
func Home() string {
	if h := os.Getenv("LUAGENT_HOME"); h != "" {
		return h
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".luagent")
	}
	return ".luagent"
}

// New builds a host. Its loop is not running yet.
func New(cfg Config) *Host {
	if cfg.Stdout == nil {
		cfg.Stdout = os.Stdout
	}
	if cfg.Stderr == nil {
		cfg.Stderr = os.Stderr
	}
	if cfg.Exit == nil {
		cfg.Exit = os.Exit
	}
	go warmSignals()
	out, errw := tui.NewSwapWriter(cfg.Stdout), tui.NewSwapWriter(cfg.Stderr)
	cfg.Stdout, cfg.Stderr = out, errw
	var paths []string
	if cfg.Profile == vm.Full {
		paths = vm.SearchPath(cfg.ScriptDir, cfg.Home, cfg.LuaPath)
	}
	sandboxed := cfg.Profile == vm.Sandbox
	grants := map[string]bool{}
	if sandboxed {
		if err := CheckGrants(cfg.Grants); err != nil {
			panic("host: " + err.Error())
		}
		for _, g := range cfg.Grants {
			grants[g] = true
		}
		if grants["agent"] {
			grants["mcp"] = true // agent.lua runs over mcp
		}
	}
	L := vm.New(vm.Options{
		Profile:  cfg.Profile,
		Stdout:   cfg.Stdout,
		Exit:     cfg.Exit,
		Paths:    paths,
		Embedded: stdlib.FS,
	})
	h := &Host{cfg: cfg, L: L, out: out, errw: errw}
	h.Logger = &logmod.Logger{W: cfg.Stderr, Level: logmod.Info}
	if lvl, ok := logmod.ParseLevel(os.Getenv("LUAGENT_LOG")); ok {
		h.Logger.Level = lvl
	}
	lopts := sched.Options{OnUnobserved: h.reportUnobserved, TimeLimit: cfg.TimeLimit}
	if sandboxed {
		lopts.TaskContext = vm.TaskContext(cfg.Limits)
	}
	h.Loop = sched.New(L, lopts)
	taskmod.Preload(h.Loop)
	jsonmod.Preload(L)
	logmod.Preload(L, h.Logger)
	if sandboxed {
		h.preloadGranted(grants)
	} else {
		envmod.Preload(L, cfg.Env)
		h.preloadMCP()
		h.preloadAgent()
		helpdoc.Preload(L)
		h.globals([]string{"json", "task", "log", "env"}, []string{"inspect", "mcp", "help", "agent"})
	}
	// arg[-1] is the interpreter, as in standalone Lua, for init.lua, -e
	// and the REPL too; a script's arg adds its own (setArg).
	arg := L.CreateTable(0, 1)
	arg.RawSetInt(-1, lua.LString(Executable()))
	L.SetGlobal("arg", arg)
	return h
}

func (h *Host) preloadMCP() {
	cfg, L := h.cfg, h.L
	debug := func(server, line string) { h.Logger.Log(logmod.Debug, "["+server+"] "+line) }
	mcpmod.Preload(h.Loop, mcpmod.Config{Trace: cfg.Trace, Log: debug, Warn: func(server, line string) {
		h.Logger.Log(logmod.Warn, "["+server+"] "+line)
	}})
	mcpclient.Preload(h.Loop, mcpclient.Config{Trace: cfg.Trace, Log: debug, Home: cfg.Home, Params: cfg.Params, Interactive: cfg.Interactive})
	catalogmod.Preload(L, catalogmod.Config{Home: cfg.Home})
	// mcp and agent are built in (over their natives: the server's
	// mcp._native, the client's and the catalog's, agent._native): a
	// script's own agent.lua (an agent file, say) must not shadow them.
	preload.Embedded(L, "mcp", "mcp")
	preload.Embedded(L, "mcp._features", "mcp_features")
}

func (h *Host) preloadAgent() {
	cfg := h.cfg
	agentmod.Preload(h.Loop, agentmod.Config{Lookup: cfg.Env, Trace: cfg.Trace, Home: cfg.Home, Models: func() (map[string]llm.ModelConfig, string, error) {
		return CatalogModels(cfg.Home)
	}, Params: cfg.Params, ParamsJSON: cfg.ParamsJSON, Version: cfg.Version, CodeMode: codemode.Run, APIKeysFile: cfg.APIKeysFile,
		ToolSearch:     func() (string, int) { return CatalogToolSearch(cfg.Home) },
		FallbackModels: func() []string { return CatalogFallbackModels(cfg.Home) },
		Project:        func(dir string) (hooks.Config, approval.Rules, error) { return CatalogProject(cfg.Home, dir) },
		ContextWindow: func(spec string) int { // models.NAME.contextWindow, else a known model's
			models, _, _ := CatalogModels(cfg.Home)
			return llm.WindowOf(spec, models)
		}})
	preload.Embedded(h.L, "agent", "agent")
}

// globals sets the modules named in eager as globals now and those in lazy
// as globals that load on first use. Both are luagent's own modules,
// loaded from the binary (vm.RequireBuiltin), never found on a path.
func (h *Host) globals(eager, lazy []string) {
	L := h.L
	for _, name := range eager {
		m, err := vm.RequireBuiltin(L, name)
		if err != nil {
			panic(fmt.Sprintf("host: loading module %s: %v", name, err))
		}
		L.SetGlobal(name, m)
	}
	// The costlier modules load on first use: compiling inspect.lua and
	// building mcp's types was most of a server's start-up.
	for _, name := range lazy {
		lazyGlobal(L, name)
	}
}

// lazyLoader is the metatable key of a lazy global's loader (lazyGlobal).
const lazyLoader = "__luagent_load"

// loadLazy returns the module behind a lazy global's stand-in, loading it
// (v itself for any other value, or when loading fails). Completion and
// the REPL's printing see the module, not the stand-in.
func loadLazy(L *lua.LState, v lua.LValue) lua.LValue {
	tb, ok := v.(*lua.LTable)
	if !ok || tb.Metatable == nil {
		return v
	}
	mt, ok := tb.Metatable.(*lua.LTable)
	if !ok {
		return v
	}
	load, ok := mt.RawGetString(lazyLoader).(*lua.LFunction)
	if !ok {
		return v
	}
	if err := L.CallByParam(lua.P{Fn: load, NRet: 1, Protect: true}); err != nil {
		return v
	}
	m := L.Get(-1)
	L.Pop(1)
	return m
}

// lazyGlobal makes the global name a stand-in that loads the built-in
// module on first use (indexing or calling it) and then replaces itself.
func lazyGlobal(L *lua.LState, name string) {
	load := func(L *lua.LState) lua.LValue {
		m, err := vm.RequireBuiltin(L, name)
		if err != nil {
			L.RaiseError("loading module %s: %v", name, err)
		}
		L.G.Global.RawSetString(name, m)
		return m
	}
	mt := L.CreateTable(0, 4)
	mt.RawSetString(lazyLoader, L.NewFunction(func(L *lua.LState) int {
		L.Push(load(L))
		return 1
	}))
	mt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		L.Push(L.GetField(load(L), L.CheckString(2)))
		return 1
	}))
	mt.RawSetString("__call", L.NewFunction(func(L *lua.LState) int {
		m := load(L)
		top := L.GetTop()
		L.Push(m)
		for i := 2; i <= top; i++ {
			L.Push(L.Get(i))
		}
		L.Call(top-1, lua.MultRet)
		return L.GetTop() - top
	}))
	mt.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString("module " + name + " (not loaded yet)"))
		return 1
	}))
	stub := L.CreateTable(0, 0)
	stub.Metatable = mt
	L.G.Global.RawSetString(name, stub)
}

// Stdout and Stderr are where the host writes.
func (h *Host) Stdout() io.Writer { return h.cfg.Stdout }
func (h *Host) Stderr() io.Writer { return h.cfg.Stderr }

func (h *Host) reportUnobserved(t *sched.Task, f *sched.Failure) {
	h.unobserved++
	who := "a task"
	if t != nil {
		who = fmt.Sprintf("task %d", t.ID)
		if t.Name != "" {
			who += " (" + t.Name + ")"
		}
	}
	fmt.Fprintf(h.cfg.Stderr, "luagent: %s failed and nobody awaited it: %s\n", who, visible.Text(f.Message))
	if f.Traceback != "" && f.Kind != errs.Cancelled && f.Kind != errs.Timeout {
		fmt.Fprintln(h.cfg.Stderr, f.Traceback)
	}
}

// Load compiles a chunk from src and returns it as a function of this state.
//
// In a sandboxed host the compile is budgeted as a run is (Config.Limits):
// a file handed to run --sandbox or serve --sandbox may be hostile, and
// parsing it takes time and memory before any task runs.
func (h *Host) Load(src []byte, name string) (*lua.LFunction, error) {
	if h.cfg.Profile != vm.Sandbox {
		return vm.LoadChunk(h.L, src, name)
	}
	b, stop := vm.BudgetContext(context.Background(), h.cfg.Limits)
	defer stop()
	h.L.SetContext(b)
	defer h.L.RemoveContext()
	return vm.LoadChunk(h.L, src, name)
}

// LoadAgentFile compiles an agent file (ask --agent, chat --agent): Lua,
// or an agents-exe JSON agent file (agentmod.LoadFile, the one loader
// serve and mcp-server --agent-file use too).
func (h *Host) LoadAgentFile(src []byte, name string) (*lua.LFunction, error) {
	return agentmod.LoadFile(h.L, src, name, h.Load)
}

// RunTask spawns fn(args...) as a task and runs the loop until that task
// finishes, leaving other tasks suspended or queued. It returns the task.
func (h *Host) RunTask(ctx context.Context, fn *lua.LFunction, args []lua.LValue, name string) *sched.Task {
	t := h.Loop.Spawn(fn, args, sched.SpawnOptions{Name: name})
	t.OnDone(func(*sched.Task) { h.Loop.Stop() })
	h.Loop.Run(ctx, sched.UntilStopped)
	return t
}

// RunInit runs Home/init.lua, if it exists and Clean is not set. An error in
// it is reported and the host carries on, as Neovim does with init.lua.
func (h *Host) RunInit(ctx context.Context) {
	if h.cfg.Clean || h.cfg.Home == "" {
		return
	}
	path := filepath.Join(h.cfg.Home, "init.lua")
	src, err := os.ReadFile(path)
	if err != nil {
		return
	}
	fn, err := h.Load(src, path)
	if err != nil {
		fmt.Fprintf(h.cfg.Stderr, "luagent: %v (init.lua skipped; --clean starts without it)\n", err)
		return
	}
	t := h.RunTask(ctx, fn, nil, "init.lua")
	if f := t.Failure(); f != nil {
		h.printFailure(f)
		fmt.Fprintln(h.cfg.Stderr, "luagent: init.lua failed; carrying on (--clean starts without it)")
	}
}

// printFailure writes "luagent: message" and the script's part of the Lua
// traceback; one line for an interruption, or for a mistake luagent
// reported itself (kind invalid: its message says what to do).
func (h *Host) printFailure(f *sched.Failure) {
	fmt.Fprintf(h.cfg.Stderr, "luagent: %s\n", visible.Text(f.Message)) // it may quote a server
	if f.Kind == errs.Cancelled || f.Kind == errs.Timeout || f.Kind == errs.Invalid {
		return
	}
	if tb := scriptTraceback(f.Traceback); tb != "" {
		fmt.Fprintln(h.cfg.Stderr, tb)
	}
}

// scriptTraceback is tb without the frames of Go functions and luagent's
// own Lua (the user's code is what they can change), or "" when no frame
// is left.
func scriptTraceback(tb string) string {
	lines := strings.Split(tb, "\n")
	var kept []string
	for _, l := range lines[min(1, len(lines)):] {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "[Go]") || strings.HasPrefix(t, "luagent/") {
			continue
		}
		kept = append(kept, l)
	}
	if len(kept) == 0 {
		return ""
	}
	return lines[0] + "\n" + strings.Join(kept, "\n")
}

// Close shuts down what the scripts opened (server processes) and releases
// the state.
func (h *Host) Close() {
	h.Loop.Close()
	h.L.Close()
}
