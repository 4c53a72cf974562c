// Package agent is the native half of Lua's agent module: it adapts
// runtime/agent and runtime/llm to Lua, and stdlib/agent.lua writes the
// surface (agent.new, a:ask, a:stream, the default policy) over it.
//
//	local native = require "agent._native"
//	local ud = native.new{ model = "mock", hub = h, tools = {...}, approve = fn }
//	local text, transcript = ud:ask("prompt", on_event)
//
// Lua functions given to it (tools' handlers, the policy, hooks, a model)
// become Go callbacks of the agent's loop; each call runs as a task on the
// Lua loop, so it may wait (call MCP tools, sleep) like any script code.
package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/luabind/value"
	ragent "github.com/luagent/luagent/runtime/agent"
	"github.com/luagent/luagent/runtime/approval"
	"github.com/luagent/luagent/runtime/cost"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/hooks"
	"github.com/luagent/luagent/runtime/hub"
	"github.com/luagent/luagent/runtime/llm"
	"github.com/luagent/luagent/runtime/trace"
)

// Config is what the module needs from its host.
type Config struct {
	// Lookup reads environment variables for the providers' keys and base
	// URLs (nil: the process environment).
	Lookup func(string) (string, bool)
	Trace  trace.Sink
	// Models returns the configured models (the catalog's "models") and
	// its default ("model"), read when a model is named or left out; nil
	// means none.
	Models func() (models map[string]llm.ModelConfig, def string, err error)
	// FallbackModels returns the catalog's "fallbackModels": what an
	// agent.new without fallback_models whose model is named (or left
	// out) falls back to (nil: none).
	FallbackModels func() []string
	// Home is luagent's folder: the user's skills are in Home/skills (""
	// for none).
	Home string
	// Params are the command line's parameter values (--set, --set-json,
	// --params-file); ParamsJSON names those that are JSON text. Version
	// is the binary's, the default version of a server of agents.
	Params     map[string]string
	ParamsJSON map[string]bool
	Version    string
	// APIKeysFile is the agents-exe keys file agents-exe agent files'
	// apiKeyId name keys of ("": DefaultAPIKeysFile, if it exists).
	APIKeysFile string
	// CodeMode runs code mode's snippets (luabind/codemode.Run; nil: an
	// agent with code_mode is an error).
	CodeMode ragent.CodeRunner
	// ToolSearch returns the catalog's toolSearch and toolSearchThreshold
	// ("" and 0: the defaults), what an agent.new without tool_search and
	// tool_search_threshold gets (nil: the defaults).
	ToolSearch func() (mode string, threshold int)
	// Project returns, for an agent made in dir, the command hooks it
	// runs (the catalog's "hooks" and its project's) and the permission
	// rules it is decided by (the user's config.json and its project's;
	// nil: none); read once when an agent is made (nil: neither). ask,
	// chat and acp replace the rules with their own set (the same files,
	// and the command line's --allow and --deny).
	Project func(dir string) (hooks.Config, approval.Rules, error)
	// ContextWindow is the window of an agent.new without context_window,
	// by its model's name (a spec or a configured name): the host's
	// --context-window, else the catalog's models.NAME.contextWindow, else
	// a known model's (nil, or 0: the model's known window, if any).
	ContextWindow func(spec string) int
}

type module struct {
	lp  *sched.Loop
	cfg Config
}

const agentType = "agent"

// luaAgent is one agent.new value.
type luaAgent struct {
	a   *ragent.Agent
	cfg ragent.Config // a's, for ask_fresh's agents
	// slots bound the fresh asks running at once (max_concurrent).
	slots chan struct{}
	mu    sync.Mutex // one ask at a time; guards sink
	// sink receives the running ask's events (nil: nobody listens).
	sink func(ragent.Event)
	smu  sync.Mutex
}

// Preload registers "agent._native".
func Preload(lp *sched.Loop, cfg Config) {
	lp.L.PreloadModule("agent._native", func(L *lua.LState) int {
		L.Push(Open(lp, cfg))
		return 1
	})
}

// Open builds the native module's table.
func Open(lp *sched.Loop, cfg Config) *lua.LTable {
	L := lp.L
	m := &module{lp: lp, cfg: cfg}
	mod := L.CreateTable(0, 4)
	L.SetFuncs(mod, map[string]lua.LGFunction{
		"new":             m.newAgent,
		"params":          m.params,
		"model":           m.newModel,
		"load_file":       m.loadFile,
		"default_approve": defaultApprove,
		"session_info":    m.sessionInfo, // session.go
	})
	mod.RawSetString("version", lua.LString(cfg.Version))
	return mod
}

func optString(t *lua.LTable, k string) string {
	if s, ok := t.RawGetString(k).(lua.LString); ok {
		return string(s)
	}
	return ""
}

func optNumber(t *lua.LTable, k string) float64 {
	if n, ok := t.RawGetString(k).(lua.LNumber); ok {
		return float64(n)
	}
	return 0
}

func optFunc(t *lua.LTable, k string) *lua.LFunction {
	if t == nil {
		return nil
	}
	f, _ := t.RawGetString(k).(*lua.LFunction)
	return f
}

// native.new(opts) -> agent
func (m *module) newAgent(L *lua.LState) int {
	opts := L.CheckTable(1)
	fail := func(err error) { L.Error(sched.ErrorValueOf(L, err), 0) }
	model, err := m.resolveModel(L, opts.RawGetString("model"))
	if err != nil {
		fail(err)
	}
	if model, err = m.withFallbacks(L, model, opts); err != nil {
		fail(err)
	}
	la := &luaAgent{}
	cfg := ragent.Config{
		Name:        optString(opts, "name"),
		Model:       model,
		System:      optString(opts, "system"),
		MaxTurns:    int(optNumber(opts, "max_turns")),
		TokenBudget: int(optNumber(opts, "token_budget")),
		MaxCost:     optNumber(opts, "max_cost"),
		Prices:      m.prices(),
		Timeout:     time.Duration(optNumber(opts, "timeout") * float64(time.Second)),
		Yes:         lua.LVAsBool(opts.RawGetString("yes")),
		Trace:       m.cfg.Trace,
		OnEvent: func(e ragent.Event) {
			la.smu.Lock()
			sink := la.sink
			la.smu.Unlock()
			if sink != nil {
				sink(e)
			}
		},
	}
	if cfg.MaxCost < 0 || cfg.MaxCost != cfg.MaxCost {
		fail(errs.New(errs.Invalid, "agent.new", "max_cost must be a number of USD above 0 (leave it out for no bound)"))
	}
	if t, ok := opts.RawGetString("price").(*lua.LTable); ok {
		// price = {input=, output=, cached_input=, cache_write=}: the
		// agent's model's price in USD per million tokens (a Lua
		// function model, a server luagent has no list price for).
		p := cost.Price{Input: optNumber(t, "input"), Output: optNumber(t, "output"),
			CachedInput: optNumber(t, "cached_input"), CacheWrite: optNumber(t, "cache_write")}
		if err := p.Check(); err != nil {
			fail(errs.New(errs.Invalid, "agent.new", "price: "+err.Error()))
		}
		cfg.Prices.Set(model.Name(), p)
	}
	switch h := opts.RawGetString("hub").(type) {
	case *lua.LUserData:
		hh, ok := h.Value.(interface{ Hub() *hub.Hub })
		if !ok {
			fail(errs.New(errs.Invalid, "agent.new", "hub must be an mcp.hub() value"))
		}
		cfg.Hub = hh.Hub()
	case *lua.LNilType, lua.LBool:
	default:
		fail(errs.Errorf(errs.Invalid, "agent.new", "hub must be an mcp.hub() value, not %s", h.Type()))
	}
	if t, ok := opts.RawGetString("servers").(*lua.LTable); ok {
		cfg.Servers = []string{}
		for i := 1; i <= t.Len(); i++ {
			cfg.Servers = append(cfg.Servers, lua.LVAsString(t.RawGetInt(i)))
		}
	}
	if t, ok := opts.RawGetString("tools").(*lua.LTable); ok {
		for i := 1; i <= t.Len(); i++ {
			tt, ok := t.RawGetInt(i).(*lua.LTable)
			if !ok {
				fail(errs.Errorf(errs.Invalid, "agent.new", "tools[%d] must be a table {name=, handler=}", i))
			}
			lt, err := m.localTool(tt)
			if err != nil {
				fail(err)
			}
			cfg.Tools = append(cfg.Tools, lt)
		}
	}
	if fn := optFunc(opts, "approve"); fn != nil {
		cfg.Approve = m.decider(fn, "approve")
	}
	if fn := optFunc(opts, "ask"); fn != nil {
		cfg.Ask = m.decider(fn, "ask")
	}
	if cfg.Rules, err = permissionsOf(opts.RawGetString("permissions")); err != nil {
		fail(err)
	}
	if cfg.Skills, err = m.skillSource(opts.RawGetString("skills"), cfg.Hub); err != nil {
		fail(err)
	}
	luaHooks, _ := opts.RawGetString("hooks").(*lua.LTable)
	m.bindHooks(luaHooks, &cfg)
	// dir is the agent's project folder: its hooks and rules are that
	// project's (an ACP session's; default: the working folder).
	dir := optString(opts, "dir")
	if dir == "" {
		dir, _ = os.Getwd()
	} else if dir, err = filepath.Abs(dir); err != nil {
		fail(errs.Errorf(errs.Invalid, "agent.new", "dir: %v", err))
	}
	var cmdHooks hooks.Config
	var rules approval.Rules
	if m.cfg.Project != nil {
		if cmdHooks, rules, err = m.cfg.Project(dir); err != nil {
			fail(err)
		}
	}
	if cfg.HookSet, err = m.hookSet(luaHooks, cmdHooks, dir); err != nil { // hooks.go
		fail(err)
	}
	cfg.Subagent = lua.LVAsBool(opts.RawGetString("subagent"))
	if cfg.CodeMode, err = codeModeOf(opts.RawGetString("code_mode"), m.cfg.CodeMode); err != nil {
		fail(err)
	}
	if err := bindingsAndSecrets(opts, &cfg); err != nil {
		fail(err)
	}
	if cfg.ToolSearch, cfg.MetaToolThreshold, err = m.toolSearch(opts); err != nil {
		fail(err)
	}
	if err := m.contextOptions(opts, &cfg); err != nil { // context.go
		fail(err)
	}
	n := int(optNumber(opts, "max_concurrent"))
	if n <= 0 {
		n = DefaultMaxConcurrent
	}
	la.cfg, la.slots = cfg, make(chan struct{}, n)
	la.a = ragent.New(cfg)
	if rules != nil {
		la.a.SetRules(rules)
	}
	if cfg.Hub != nil {
		// The hub's servers with "sampling": true sample through this
		// agent's model and policy (the agent made last), unless the hub
		// has an on_sample.
		cfg.Hub.SetSampler(la.a.Sample)
	}
	ud := L.NewUserData()
	ud.Value = la
	ud.Metatable = m.agentMT(L)
	L.Push(ud)
	return 1
}

// prices are the configured models' prices by name (config.json's
// models.NAME.price, else the list price of the provider's model the
// name stands for) over the built-in table of runtime/cost.
func (m *module) prices() *cost.Table {
	t := &cost.Table{}
	if m.cfg.Models == nil {
		return t
	}
	models, _, err := m.cfg.Models()
	if err != nil {
		return t // the model's own resolution says what is wrong
	}
	for name, mc := range models {
		if mc.Price != nil {
			t.Set(name, *mc.Price)
		} else if p, ok := cost.Lookup(mc.Model); ok && mc.Provider != llm.ProviderOllama && mc.BaseURL == "" {
			t.Set(name, p)
		}
	}
	return t
}

// toolSearch is the agent's tool search mode and threshold: tool_search
// and tool_search_threshold, each else the catalog's (config.json's
// toolSearch, toolSearchThreshold), else the defaults.
func (m *module) toolSearch(opts *lua.LTable) (string, int, error) {
	mode, threshold := "", 0
	if m.cfg.ToolSearch != nil {
		mode, threshold = m.cfg.ToolSearch()
	}
	switch v := opts.RawGetString("tool_search").(type) {
	case *lua.LNilType:
	case lua.LString:
		mode = string(v)
	default:
		return "", 0, errs.Errorf(errs.Invalid, "agent.new", `tool_search must be "auto", "always" or "never", not a %s`, v.Type())
	}
	switch mode {
	case "", ragent.ToolSearchAuto, ragent.ToolSearchAlways, ragent.ToolSearchNever:
	default:
		return "", 0, errs.Errorf(errs.Invalid, "agent.new", `tool_search must be "auto", "always" or "never", not %q`, mode)
	}
	switch v := opts.RawGetString("tool_search_threshold").(type) {
	case *lua.LNilType:
	case lua.LNumber:
		if f := float64(v); f != float64(int(f)) || f < 1 || f > 1<<31-1 {
			return "", 0, errs.Errorf(errs.Invalid, "agent.new", "tool_search_threshold must be a whole number, 1 or more, not %v", v)
		}
		threshold = int(v)
	default:
		return "", 0, errs.Errorf(errs.Invalid, "agent.new", "tool_search_threshold must be a whole number, 1 or more, not a %s", v.Type())
	}
	return mode, threshold, nil
}

func (m *module) agentMT(L *lua.LState) *lua.LTable {
	if mt, ok := L.GetTypeMetatable(agentType).(*lua.LTable); ok {
		return mt
	}
	mt := L.NewTypeMetatable(agentType)
	methods := L.CreateTable(0, 3)
	methods.RawSetString("ask", m.lp.Async("agent:ask", m.ask))
	methods.RawSetString("ask_fresh", m.lp.Async("agent:ask_fresh", m.askFresh))
	methods.RawSetString("sample", m.lp.Async("agent:sample", m.sample))
	methods.RawSetString("compact", m.lp.Async("agent:compact", m.compactNow)) // context.go
	methods.RawSetString("pin", L.NewFunction(m.pin))
	methods.RawSetString("context", L.NewFunction(m.contextReport))
	methods.RawSetString("on", L.NewFunction(m.on))           // hooks.go
	methods.RawSetString("record", L.NewFunction(m.record))   // session.go
	methods.RawSetString("session", L.NewFunction(m.session)) // session.go
	methods.RawSetString("reset", L.NewFunction(func(L *lua.LState) int {
		m.checkAgent(L).a.Reset()
		return 0
	}))
	methods.RawSetString("costs", L.NewFunction(func(L *lua.LState) int {
		raw, _ := json.Marshal(m.checkAgent(L).a.Costs())
		v, err := value.Decode(L, raw)
		if err != nil {
			L.RaiseError("%s", err.Error())
		}
		L.Push(v)
		return 1
	}))
	methods.RawSetString("messages", L.NewFunction(func(L *lua.LState) int {
		var msgs []ragent.Message
		for _, msg := range m.checkAgent(L).a.Messages() {
			msgs = append(msgs, ragent.MessageOf(msg))
		}
		raw, _ := json.Marshal(msgs)
		if msgs == nil {
			raw = []byte("[]")
		}
		v, err := value.Decode(L, raw)
		if err != nil {
			L.RaiseError("%s", err.Error())
		}
		L.Push(v)
		return 1
	}))
	mt.RawSetString("__index", methods)
	mt.RawSetString("__metatable", lua.LString(agentType))
	return mt
}

func (m *module) checkAgent(L *lua.LState) *luaAgent {
	return value.Check[*luaAgent](L, 1, "agent expected (call it as a:method(...))")
}

// ud:ask(prompt [, on_event]) -> text, transcript. A failed ask raises an
// error table with kind, message and transcript.
func (m *module) ask(L *lua.LState) sched.Start {
	la := m.checkAgent(L)
	prompt := L.CheckString(2)
	onEvent := L.OptFunction(3, nil)
	return func(ctx context.Context, done func(sched.Completion)) {
		go func() {
			la.mu.Lock()
			defer la.mu.Unlock()
			if onEvent != nil {
				la.smu.Lock()
				la.sink = func(e ragent.Event) { m.deliver(ctx, onEvent, e) }
				la.smu.Unlock()
				defer func() {
					la.smu.Lock()
					la.sink = nil
					la.smu.Unlock()
				}()
			}
			text, tr, err := la.a.Ask(ctx, prompt)
			done(askCompletion(text, tr, err))
		}()
	}
}

// deliver runs on_event(event) as a task and waits for it, so events reach
// Lua in order and all before the ask returns.
func (m *module) deliver(ctx context.Context, fn *lua.LFunction, e ragent.Event) {
	if e.Type == ragent.EventResponse {
		return // the text deltas and the calls say it to Lua already
	}
	raw := eventJSON(e)
	_, _ = m.callLua(ctx, fn, "on_event", decodeArgs(raw), func(*lua.LState, []lua.LValue) (any, error) { return nil, nil })
}

// eventJSON is an event as Lua sees it.
func eventJSON(e ragent.Event) json.RawMessage {
	out := map[string]any{"type": string(e.Type), "turn": e.Turn}
	if e.Text != "" {
		out["text"] = e.Text
	}
	if e.Call != nil {
		out["call"] = callJSON(*e.Call)
	}
	if e.Decision != "" {
		out["decision"] = string(e.Decision)
		out["reason"] = e.Reason
	}
	if e.Type == ragent.EventHook || e.Type == ragent.EventCompact { // a hook's message for the user; what a compaction did
		out["message"] = e.Message
	}
	if e.Type == ragent.EventRetry && e.Notice != nil { // the provider failing: a retry or a fallback
		n := e.Notice
		out["message"] = e.Message
		r := map[string]any{"type": n.Type, "model": n.Model, "kind": n.Kind.String(), "error": n.Message}
		if n.Type == llm.NoticeFallback {
			r["to"] = n.To
		} else {
			r["attempt"], r["max_retries"], r["wait"] = n.Attempt, n.MaxRetries, n.Wait.Seconds()
		}
		if n.Status > 0 {
			r["status"] = n.Status
		}
		out["retry"] = r
	}
	if c := e.Compaction; c != nil {
		out["trigger"], out["pre_tokens"], out["post_tokens"] = c.Trigger, c.PreTokens, c.PostTokens
	}
	if e.Type == ragent.EventToolProgress {
		out["progress"] = e.Progress
		if e.Total != 0 {
			out["total"] = e.Total
		}
		if e.Message != "" {
			out["message"] = e.Message
		}
	}
	if e.Result != nil {
		out["result"] = e.Result
	}
	if e.Duration != 0 {
		out["duration"] = e.Duration.Seconds()
	}
	if e.Err != nil {
		out["error"] = map[string]string{"kind": errs.KindOf(e.Err).String(), "message": e.Err.Error()}
	}
	if e.End != "" {
		out["end"] = string(e.End)
	}
	raw, _ := json.Marshal(out)
	return raw
}

// callJSON is a call as the policy and hooks see it: annotations always a
// table, readOnlyHint true for every call the runtime counts read-only
// (the meta-tools too), as approval.Default judges it.
func callJSON(c ragent.Call) map[string]any {
	ann := map[string]any{}
	if c.Annotations != nil {
		raw, _ := json.Marshal(c.Annotations)
		_ = json.Unmarshal(raw, &ann)
	}
	if c.ReadOnly {
		ann["readOnlyHint"] = true
	}
	args := c.Arguments
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	out := map[string]any{"id": c.ID, "name": c.Name, "tool": c.Tool, "kind": c.Kind,
		"arguments": args, "annotations": ann}
	if c.Server != "" {
		out["server"] = c.Server
	}
	if c.Qualified != "" {
		out["qualified"] = c.Qualified
	}
	if c.Parent != "" {
		out["parent"] = c.Parent
	}
	if c.Rule != nil {
		out["rule"] = map[string]string{"verdict": string(c.Rule.Verdict), "pattern": c.Rule.Pattern, "source": c.Rule.Source}
	}
	return out
}

func callRaw(c ragent.Call) json.RawMessage {
	raw, _ := json.Marshal(callJSON(c))
	return raw
}

// native.default_approve(call) -> decision, reason: approval.Default, the
// one default policy, on a Lua call table (a policy's argument); stdlib's
// agent.default_policy is this function.
func defaultApprove(L *lua.LState) int {
	t := L.CheckTable(1)
	c := ragent.Call{ID: optString(t, "id"), Name: optString(t, "name"), Tool: optString(t, "tool"), Server: optString(t, "server"),
		Qualified: optString(t, "qualified"), Kind: optString(t, "kind"), Parent: optString(t, "parent")}
	if ann, ok := t.RawGetString("annotations").(*lua.LTable); ok {
		raw, err := value.Encode(value.MarkObject(ann), value.EncodeOptions{})
		if err == nil {
			var a ragent.Annotations
			if json.Unmarshal(raw, &a) == nil {
				c.Annotations = &a
				c.ReadOnly = a.ReadOnly()
			}
		}
	}
	d, reason := approval.Default(context.Background(), c)
	L.Push(lua.LString(d))
	L.Push(lua.LString(reason))
	return 2
}

// askCompletion gives an ask's outcome to Lua: the text and the
// transcript, or an error value carrying the transcript.
func askCompletion(text string, tr *ragent.Transcript, err error) sched.Completion {
	raw, _ := json.Marshal(tr)
	return func(L *lua.LState) ([]lua.LValue, error) {
		trv, derr := value.Decode(L, raw)
		if derr != nil {
			return nil, derr
		}
		if err != nil {
			ev := sched.ErrorValueOf(L, err)
			ev.RawSetString("transcript", trv)
			return nil, &sched.Failure{Kind: errs.KindOf(err), Message: err.Error(), Value: ev}
		}
		return []lua.LValue{lua.LString(text), trv}, nil
	}
}
