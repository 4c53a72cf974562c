// Package codemode runs code mode's snippets (runtime/agent's run_lua):
// each run is a fresh sandboxed Lua state (luabind/vm's Sandbox profile)
// with a scheduler loop, and in it
//
//	tools.SERVER.TOOL{...}   the agent's tools as functions: each call goes
//	                         back to the agent (hooks, policy, timeouts) and
//	                         returns a table (structured content), a string
//	                         (text) or nil, err (denied, failed, isError)
//	help(tools.x.y)          prints a tool's schemas; help() lists the tools
//	json, inspect, task      and string, table, math, print (captured)
//
// under the run's limits (wall time, instructions, memory, tool calls).
//
//	a := agent.New(agent.Config{..., CodeMode: agent.CodeMode{Mode: agent.CodeOnly, Run: codemode.Run}})
package codemode

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	jsonmod "github.com/luagent/luagent/luabind/mod/json"
	taskmod "github.com/luagent/luagent/luabind/mod/task"
	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/luabind/value"
	"github.com/luagent/luagent/luabind/vm"
	ragent "github.com/luagent/luagent/runtime/agent"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/stdlib"
	lua "github.com/yuin/gopher-lua"
)

// Chunk is the snippet's chunk name: errors read "snippet:3: ...".
const Chunk = "snippet"

// run is one snippet's state.
type run struct {
	r     *ragent.CodeRun
	ctx   context.Context // Run's: its values (the agent's span) go with every call
	lim   ragent.CodeLimits
	lp    *sched.Loop
	out   *capture
	calls int
	wg    sync.WaitGroup // tool calls in flight
	byFn  map[*lua.LFunction]*ragent.CodeTool
}

// Run is a ragent.CodeRunner: it runs r.Code in a fresh sandbox and
// returns what it printed and returned, or an error whose kind is syntax,
// limit, timeout, cancelled or runtime, with the output so far. It returns
// once every tool call the snippet started has ended (those still running
// when the snippet ends are cancelled).
func Run(ctx context.Context, r *ragent.CodeRun) (ragent.CodeOutput, error) {
	lim := r.Limits.WithDefaults()
	rn := &run{r: r, ctx: ctx, lim: lim, out: &capture{max: lim.Output}, byFn: map[*lua.LFunction]*ragent.CodeTool{}}
	L := vm.New(vm.Options{Profile: vm.Sandbox, Stdout: rn.out, Embedded: stdlib.FS})
	defer L.Close()
	vl := vm.Limits{Time: lim.Time, Instructions: lim.Instructions, MemoryBytes: lim.MemoryBytes}
	rn.lp = sched.New(L, sched.Options{TaskContext: vm.TaskContext(vl), OnUnobserved: func(_ *sched.Task, f *sched.Failure) {
		// A task the snippet spawned and never awaited: its failure is
		// worth a line of the output the model reads.
		fmt.Fprintf(rn.out, "[a task the snippet spawned failed: %s]\n", f.Message)
	}})
	defer rn.lp.Close()
	if err := rn.setup(); err != nil {
		return ragent.CodeOutput{}, err
	}
	// The budget starts before the snippet compiles: parsing and compiling
	// take the run's time and memory like the code itself.
	cctx, cancel := context.WithCancelCause(ctx)
	bctx, stop := vm.BudgetContext(cctx, vl)
	L.SetContext(bctx)
	fn, err := vm.LoadChunk(L, []byte(r.Code), Chunk)
	L.RemoveContext()
	if err != nil {
		stop()
		cancel(nil)
		var out ragent.CodeOutput
		return out, cutError(err, lim.Output, &out)
	}
	t := rn.lp.Spawn(fn, nil, sched.SpawnOptions{Name: Chunk, Context: bctx, Cancel: cancel})
	t.OnDone(func(*sched.Task) { rn.lp.Stop() })
	// The loop ends with the snippet's task, which ends with ctx: a
	// cancelled turn fails the task's wait and stops its Lua code.
	_ = rn.lp.Run(context.Background(), sched.UntilStopped)
	rn.lp.FlushUnobserved()
	var out ragent.CodeOutput
	var ferr error
	if f := t.Failure(); f != nil {
		ferr = &errs.Error{Kind: f.Kind, Msg: f.Message}
	} else {
		out.Values = encodeAll(t.Results())
	}
	// Calls still running (in tasks the snippet spawned) are stopped, and
	// waited for: the agent records them under this run.
	stop()
	cancel(errs.New(errs.Cancelled, "", "the snippet has ended"))
	rn.lp.Cancel(errs.New(errs.Cancelled, "", "the snippet has ended"))
	rn.wg.Wait()
	out.Output, out.Dropped = rn.out.String(), rn.out.dropped
	if ferr != nil {
		ferr = cutError(ferr, lim.Output, &out)
	}
	return out, ferr
}

// cutError is err with its message cut to max bytes (on a rune boundary),
// as capture cuts printed output: an error value of megabytes would
// otherwise go to the model, the transcript and the trace, and with the
// conversation into every later request. out.ErrorDropped counts the
// bytes left out.
func cutError(err error, max int, out *ragent.CodeOutput) error {
	msg := err.Error()
	if len(msg) <= max {
		return err
	}
	cut := max
	for cut > 0 && msg[cut]&0xC0 == 0x80 {
		cut--
	}
	out.ErrorDropped = len(msg) - cut
	return &errs.Error{Kind: errs.KindOf(err), Msg: msg[:cut]}
}

// setup gives the state json (metered), task, inspect (loaded on first
// use), tools and help.
func (rn *run) setup() error {
	L := rn.lp.L
	taskmod.Preload(rn.lp)
	jsonmod.Preload(L)
	for _, name := range []string{"json", "task"} {
		m, err := vm.RequireBuiltin(L, name)
		if err != nil {
			return errs.Errorf(errs.Internal, "run_lua", "loading %s: %v", name, err)
		}
		L.SetGlobal(name, m)
	}
	if j, ok := L.GetGlobal("json").(*lua.LTable); ok {
		jsonmod.MeterSandbox(L, j)
	}
	// inspect.lua compiles under the meters at its first use: most
	// snippets never pay for it. Until then inspect is a stand-in that
	// loads it when called or indexed.
	load := func(L *lua.LState) lua.LValue {
		m, err := vm.RequireBuiltin(L, "inspect")
		if ae, ok := err.(*lua.ApiError); ok {
			L.Error(ae.Object, 0) // a limit reached while it loaded, say
		} else if err != nil {
			L.RaiseError("loading inspect: %v", err)
		}
		L.SetGlobal("inspect", m)
		return m
	}
	stub, mt := L.NewTable(), L.NewTable()
	mt.RawSetString("__call", L.NewFunction(func(L *lua.LState) int {
		m := load(L)
		n := L.GetTop()
		L.Push(m)
		for i := 2; i <= n; i++ {
			L.Push(L.Get(i))
		}
		L.Call(n-1, 1)
		return 1
	}))
	mt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		L.Push(L.GetField(load(L), L.CheckString(2)))
		return 1
	}))
	stub.Metatable = mt
	L.SetGlobal("inspect", stub)
	L.SetGlobal("tools", rn.toolsTable())
	L.SetGlobal("help", L.NewFunction(rn.help))
	return nil
}

// toolsTable is tools.SERVER.TOOL (and tools.LOCAL_TOOL) for every tool,
// under its Lua name and its own spelling; a name that is not there is an
// error saying so.
func (rn *run) toolsTable() *lua.LTable {
	L := rn.lp.L
	root := L.NewTable()
	missing := func(prefix string) *lua.LTable {
		mt := L.NewTable()
		mt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
			k := L.Get(2)
			if _, ok := k.(lua.LString); !ok {
				return 0
			}
			L.RaiseError("%s%s is not a tool or server here (help() lists the tools)", prefix, lua.LVAsString(k))
			return 0
		}))
		return mt
	}
	root.Metatable = missing("tools.")
	for i := range rn.r.Tools {
		t := &rn.r.Tools[i]
		fn := rn.lp.Async(t.Lua, rn.caller(t))
		rn.byFn[fn] = t
		for _, path := range [][]string{t.Path, t.Alias} {
			if len(path) == 0 {
				continue
			}
			tb := root
			for _, k := range path[:len(path)-1] {
				sub, ok := tb.RawGetString(k).(*lua.LTable)
				if !ok {
					sub = L.NewTable()
					sub.Metatable = missing("tools." + k + ".")
					tb.RawSetString(k, sub)
				}
				tb = sub
			}
			if tb.RawGetString(path[len(path)-1]) == lua.LNil {
				tb.RawSetString(path[len(path)-1], fn)
			}
		}
	}
	return root
}

// caller reads one call's arguments and starts it.
func (rn *run) caller(t *ragent.CodeTool) func(L *lua.LState) sched.Start {
	return func(L *lua.LState) sched.Start {
		var args json.RawMessage = []byte("{}")
		switch a := L.Get(1).(type) {
		case *lua.LNilType:
		case *lua.LTable:
			raw, err := value.Encode(value.MarkObject(a), value.EncodeOptions{})
			if err != nil {
				argError(L, t, "the arguments cannot be JSON: "+err.Error())
			}
			args = raw
		default:
			argError(L, t, "a table of arguments expected: "+t.Lua+"{name = value, ...}")
		}
		rn.calls++
		if rn.calls > rn.lim.ToolCalls {
			vm.Fail(L, fmt.Sprintf("tool call limit of %d reached by %s", rn.lim.ToolCalls, t.Lua))
		}
		return func(ctx context.Context, done func(sched.Completion)) {
			rn.wg.Add(1)
			go func() {
				defer rn.wg.Done()
				res, err := rn.r.Call(withValues{ctx, rn.ctx}, t.Name, args)
				done(func(L *lua.LState) ([]lua.LValue, error) { return resultValues(ctx, L, t, res, err) })
			}()
		}
	}
}

// argError raises a bad argument error at the snippet's line.
func argError(L *lua.LState, t *ragent.CodeTool, msg string) {
	// Raised at the binding's wrapper: sched rewrites the position to the
	// snippet's line.
	L.RaiseError("bad argument #1 to '%s' (%s)", t.Lua, msg)
}

// resultValues are a call's outcome as the snippet gets it: the value, or
// nil and an error table ({kind, message}, and result for an isError
// result).
func resultValues(ctx context.Context, L *lua.LState, t *ragent.CodeTool, res ragent.Result, err error) ([]lua.LValue, error) {
	if err != nil {
		return []lua.LValue{lua.LNil, sched.ErrorValueOf(L, err)}, nil
	}
	if res.IsError {
		// The whole result goes with the error: its content may say more.
		raw, _ := json.Marshal(res)
		v, derr := value.Decode(L, raw)
		if cerr := vm.ChargeContext(ctx, 4*int64(len(raw)), t.Lua); cerr != nil {
			return nil, cerr
		}
		ev := sched.ErrorValue(L, errs.Tool, t.Lua+" failed: "+textOf(res))
		if derr == nil {
			ev.RawSetString("result", v)
		}
		return []lua.LValue{lua.LNil, ev}, nil
	}
	v, size, derr := resultValue(L, res)
	if derr != nil {
		return []lua.LValue{lua.LNil, sched.ErrorValue(L, errs.Protocol, t.Lua+": "+derr.Error())}, nil
	}
	if cerr := vm.ChargeContext(ctx, size, t.Lua); cerr != nil {
		return nil, cerr
	}
	return []lua.LValue{v}, nil
}

// resultValue is a result as a Lua value: its structured content as a
// table, its text as a string when it is all text, else the whole result
// ({content = {...}}). size is what the memory meter is charged.
func resultValue(L *lua.LState, r ragent.Result) (lua.LValue, int64, error) {
	if sc := bytes.TrimSpace(r.StructuredContent); len(sc) > 0 && !bytes.Equal(sc, []byte("null")) {
		v, err := value.Decode(L, sc)
		return v, 4 * int64(len(sc)), err
	}
	if text, ok := allText(r); ok {
		return lua.LString(text), int64(len(text)), nil
	}
	raw, err := json.Marshal(r)
	if err != nil {
		return lua.LNil, 0, err
	}
	v, err := value.Decode(L, raw)
	return v, 4 * int64(len(raw)), err
}

type block struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// allText joins a result's text blocks; ok is false when it has others.
func allText(r ragent.Result) (string, bool) {
	var parts []string
	for _, c := range r.Content {
		var b block
		if json.Unmarshal(c, &b) != nil || b.Type != "text" {
			return "", false
		}
		parts = append(parts, b.Text)
	}
	return strings.Join(parts, "\n"), true
}

func textOf(r ragent.Result) string {
	var parts []string
	for _, c := range r.Content {
		var b block
		if json.Unmarshal(c, &b) == nil && b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	if len(parts) == 0 {
		return "(no text)"
	}
	return strings.Join(parts, "\n")
}

// encodeAll is the JSON of each returned value; a value JSON cannot hold
// (a function, a cycle) is named by its type.
func encodeAll(vs []lua.LValue) []json.RawMessage {
	out := make([]json.RawMessage, 0, len(vs))
	for _, v := range vs {
		raw, err := value.Encode(v, value.EncodeOptions{})
		if err != nil {
			raw = []byte(`"<` + v.Type().String() + `>"`)
		}
		out = append(out, raw)
	}
	return out
}

// help(tools.x.y) prints the tool's description and schemas; help() (or
// help(tools), help(tools.server)) lists the tools.
func (rn *run) help(L *lua.LState) int {
	w := rn.out
	if fn, ok := L.Get(1).(*lua.LFunction); ok {
		t := rn.byFn[fn]
		if t == nil {
			L.ArgError(1, "help: not a tool (help() lists the tools)")
		}
		fmt.Fprintf(w, "%s%s\n", t.Lua, t.Signature)
		if t.Description != "" {
			fmt.Fprintf(w, "%s\n", t.Description)
		}
		fmt.Fprintf(w, "arguments (JSON Schema): %s\n", compact(t.Schema))
		if len(t.OutputSchema) > 0 {
			fmt.Fprintf(w, "result (JSON Schema): %s\n", compact(t.OutputSchema))
		} else {
			fmt.Fprintf(w, "result: the tool's text as a string (json.decode it if it is JSON)\n")
		}
		return 0
	}
	for i := range rn.r.Tools {
		t := &rn.r.Tools[i]
		fmt.Fprintf(w, "%s%s\n", t.Lua, t.Signature)
	}
	if len(rn.r.Tools) == 0 {
		fmt.Fprintln(w, "no tools")
	}
	return 0
}

// compact is a schema on one line (the model reads it; spaces cost tokens).
func compact(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "{}"
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// capture keeps the first max bytes printed and counts the rest.
type capture struct {
	buf     bytes.Buffer
	max     int
	dropped int
}

func (c *capture) Write(p []byte) (int, error) {
	room := c.max - c.buf.Len()
	if room >= len(p) {
		c.buf.Write(p)
		return len(p), nil
	}
	if room > 0 {
		c.buf.Write(p[:room])
	}
	c.dropped += len(p) - max(room, 0)
	return len(p), nil
}

func (c *capture) String() string { return c.buf.String() }

// withValues is a task's context (its cancellation, its budget) with the
// run's values beneath its own: a task the snippet spawned descends from
// the loop's root, not from the run_lua call, whose trace span and record
// its calls belong to.
type withValues struct {
	context.Context
	vals context.Context
}

func (c withValues) Value(k any) any {
	if v := c.Context.Value(k); v != nil {
		return v
	}
	return c.vals.Value(k)
}
