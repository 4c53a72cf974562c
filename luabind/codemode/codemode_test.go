package codemode_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/luagent/luagent/luabind/codemode"
	ragent "github.com/luagent/luagent/runtime/agent"
	"github.com/luagent/luagent/runtime/errs"
)

type ctxKey struct{}

// entered counts the calls that reached kv.block.
var entered atomic.Int32

// tools: kv.get (structured), kv.text (text), kv.bad (an isError
// result), kv.block (waits for its context, then says why).
func testRun(code string, lim ragent.CodeLimits, blocked *atomic.Int32) *ragent.CodeRun {
	tools := []ragent.CodeTool{
		{Name: "kv__get", Path: []string{"kv", "get"}, Lua: "tools.kv.get", Signature: "{k=string} -> {v=string}", Description: "Get a key",
			Schema: json.RawMessage(`{"type":"object","properties":{"k":{"type":"string"}}}`)},
		{Name: "kv__text", Path: []string{"kv", "text"}, Alias: []string{"kv", "text-it"}, Lua: "tools.kv.text"},
		{Name: "kv__bad", Path: []string{"kv", "bad"}, Lua: "tools.kv.bad"},
		{Name: "kv__block", Path: []string{"kv", "block"}, Lua: "tools.kv.block"},
	}
	return &ragent.CodeRun{Code: code, Tools: tools, Limits: lim, Call: func(ctx context.Context, name string, args json.RawMessage) (ragent.Result, error) {
		if ctx.Value(ctxKey{}) != "run" {
			return ragent.Result{}, errs.New(errs.Internal, "", "the call lost the run's context values")
		}
		switch name {
		case "kv__get":
			return ragent.Result{StructuredContent: json.RawMessage(`{"v":` + string(args) + `}`)}, nil
		case "kv__text":
			return ragent.TextResult("plain", false), nil
		case "kv__bad":
			return ragent.TextResult("it broke", true), nil
		}
		entered.Add(1)
		blocked.Add(1)
		<-ctx.Done()
		blocked.Add(-1)
		return ragent.Result{}, errs.New(errs.Cancelled, "", "stopped")
	}}
}

func TestRun(t *testing.T) {
	for _, c := range []struct {
		name, code string
		lim        ragent.CodeLimits
		values     string // the returned values' JSON, joined by spaces
		output     string // a part of the output
		err        errs.Kind
		msg        string
	}{
		{name: "results", code: `local g = tools.kv.get{k = "a"}
local s = tools.kv["text-it"]()
local r, err = tools.kv.bad{}
return g.v.k, s, r, err.kind, err.message, err.result.content[1].text`,
			values: `"a" "plain" null "tool" "tools.kv.bad failed: it broke" "it broke"`},
		{name: "task.all runs calls at once", code: `local r = task.all{function() return tools.kv.get{k = "x"} end, function() return tools.kv.get{k = "y"} end}
return r[1].v.k .. r[2].v.k`, values: `"xy"`},
		{name: "inspect loads when called or indexed", code: `return inspect({1, 2}), inspect.inspect("x"), inspect({a = {b = 1}}, {depth = 1})`,
			values: `"{ 1, 2 }" "\"x\"" "{ a = {...} }"`},
		{name: "help", code: `help(tools.kv.get) help()`, output: "tools.kv.get{k=string} -> {v=string}\nGet a key\narguments (JSON Schema): {\"type\":\"object\"", values: ""},
		{name: "print is captured, then cut", code: `for i = 1, 100 do print("line", i) end`, lim: ragent.CodeLimits{Output: 64}, output: "line\t1\nline\t2\n"},
		{name: "a spawned task's failure is in the output", code: `task.spawn(function() error("oops") end) task.sleep(0.01) return 1`,
			output: "[a task the snippet spawned failed: snippet:1: oops]", values: "1"},
		{name: "a function returned is named", code: `return print, 1`, values: `"<function>" 1`},
		{name: "arguments must be a table", code: `local r = tools.kv.get("a") return r`, err: errs.Runtime, msg: "snippet:1: bad argument #1 to 'tools.kv.get' (a table of arguments expected"},
		{name: "a missing tool", code: `return tools.kv.nope{}`, err: errs.Runtime, msg: "snippet:1: tools.kv.nope is not a tool or server here"},
		{name: "no io, os.execute or require of files", code: `return io, os.execute, env, (pcall(require, "io"))`, values: "null null null false"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var blocked atomic.Int32
			ctx := context.WithValue(context.Background(), ctxKey{}, "run")
			out, err := codemode.Run(ctx, testRun(c.code, c.lim, &blocked))
			if c.err != errs.Unknown {
				if errs.KindOf(err) != c.err || !strings.Contains(err.Error(), c.msg) {
					t.Fatalf("error %v (%s), want %s %q", err, errs.KindOf(err), c.err, c.msg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var vals []string
			for _, v := range out.Values {
				vals = append(vals, string(v))
			}
			if c.values != "" && strings.Join(vals, " ") != c.values {
				t.Errorf("values %s, want %s", strings.Join(vals, " "), c.values)
			}
			if !strings.Contains(out.Output, c.output) {
				t.Errorf("output %q, want %q in it", out.Output, c.output)
			}
			if c.lim.Output > 0 && (len(out.Output) > c.lim.Output || out.Dropped == 0) {
				t.Errorf("output of %d bytes, %d dropped, limit %d", len(out.Output), out.Dropped, c.lim.Output)
			}
		})
	}
}

// A call still running in a task the snippet spawned is cancelled when the
// snippet ends, and Run returns only once it has; a cancelled ctx stops
// the snippet and its running call.
func TestRunEndsItsCalls(t *testing.T) {
	var blocked atomic.Int32
	ctx := context.WithValue(context.Background(), ctxKey{}, "run")
	entered.Store(0)
	_, err := codemode.Run(ctx, testRun(`task.spawn(function() tools.kv.block{} end) task.sleep(0.05) return 1`, ragent.CodeLimits{}, &blocked))
	if err != nil || blocked.Load() != 0 || entered.Load() != 1 {
		t.Fatalf("%v, %d calls made, %d still blocked", err, entered.Load(), blocked.Load())
	}
	cctx, cancel := context.WithCancel(ctx)
	go func() {
		for blocked.Load() == 0 {
			time.Sleep(time.Millisecond) // poll until the call is in
		}
		cancel()
	}()
	start := time.Now()
	_, err = codemode.Run(cctx, testRun(`return tools.kv.block{}`, ragent.CodeLimits{}, &blocked))
	if errs.KindOf(err) != errs.Cancelled || blocked.Load() != 0 || time.Since(start) > 5*time.Second {
		t.Fatalf("%v (%s) after %s, %d blocked", err, errs.KindOf(err), time.Since(start), blocked.Load())
	}
}

// Compiling the snippet is part of its run: a chunk nested deeper than
// Lua allows is a limit error at once (it compiled in quadratic time,
// before the budget started, and then ran as a success), and a compile
// that outlasts the time limit is a timeout.
func TestRunBudgetsTheCompile(t *testing.T) {
	for _, c := range []struct {
		name, code string
		lim        ragent.CodeLimits
		kind       errs.Kind
		msg        string
	}{
		{"a nested snippet", strings.Repeat("do ", 30000) + strings.Repeat("end ", 30000), ragent.CodeLimits{}, errs.Limit, "snippet:1: chunk has too many syntax levels (the limit is 200"},
		{"load of a nested chunk", "return load(('do '):rep(30000) .. ('end '):rep(30000))", ragent.CodeLimits{}, errs.Limit, "chunk has too many syntax levels (the limit is 200"},
		{"a snippet that compiles past the time limit", strings.Repeat("x = 1 ", 1<<20), ragent.CodeLimits{Time: 100 * time.Millisecond}, errs.Timeout, "time limit of 100ms exceeded"},
		{"a snippet over the memory limit", strings.Repeat("x = 1 ", 1<<20), ragent.CodeLimits{MemoryBytes: 1 << 20}, errs.Limit, "memory limit of 1 MiB reached by compiling snippet"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var blocked atomic.Int32
			ctx := context.WithValue(context.Background(), ctxKey{}, "run")
			start := time.Now()
			_, err := codemode.Run(ctx, testRun(c.code, c.lim, &blocked))
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("took %v", d)
			}
			if errs.KindOf(err) != c.kind || err == nil || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("%v (%s), want %s %q", err, errs.KindOf(err), c.kind, c.msg)
			}
		})
	}
}

// A failing snippet's error is cut like its printed output: the first
// Output bytes are kept, ErrorDropped counts the rest.
func TestRunCutsTheError(t *testing.T) {
	const max = 1000
	for _, c := range []struct {
		name, code string
		kind       errs.Kind
		total      int // the whole message's length, at least
	}{
		{"error(string)", `error(('E'):rep(8e6))`, errs.Runtime, 8e6},
		{"error(table)", `error({message = ('E'):rep(8e6), kind = "tool"})`, errs.Tool, 8e6},
		{"a string with a position", `local s = ('E'):rep(1e5) error(s)`, errs.Runtime, 1e5},
		{"a message naming a long key", `return tools[('x'):rep(1e5)]`, errs.Runtime, 1e5},
	} {
		t.Run(c.name, func(t *testing.T) {
			var blocked atomic.Int32
			ctx := context.WithValue(context.Background(), ctxKey{}, "run")
			out, err := codemode.Run(ctx, testRun(c.code, ragent.CodeLimits{Output: max}, &blocked))
			if errs.KindOf(err) != c.kind {
				t.Fatalf("%.200v (%s), want %s", err, errs.KindOf(err), c.kind)
			}
			if n := len(err.Error()); n > max || n+out.ErrorDropped < c.total {
				t.Errorf("error of %d bytes, %d dropped; want at most %d kept of at least %d", n, out.ErrorDropped, max, c.total)
			}
		})
	}
}
