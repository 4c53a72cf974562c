package mcp

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/luabind/value"
	"github.com/luagent/luagent/luabind/vm"
	"github.com/luagent/luagent/runtime/errs"
	rmcp "github.com/luagent/luagent/runtime/mcp"
	"github.com/luagent/luagent/runtime/transport/httpserver"
	lua "github.com/yuin/gopher-lua"
)

// MCP servers written in Lua. Their surface — mcp.server{}, s:tool{} and
// friends, the input shorthand, result shaping — is stdlib/mcp.lua and
// mcp_features.lua; the protocol is runtime/mcp's registry. This is the
// native side between them (mcp._native._server): it adapts Lua functions
// to the registry's handler types, each request running as a task on the
// loop, and converts values at the boundary.

const serverType = "mcp.server"
const ctxType = "mcp.request_context"

type luaServer struct {
	m    *module
	srv  *rmcp.Server
	mu   sync.Mutex
	auth *httpserver.AuthConfig // s:auth's, for HTTP serving
}

// luaServers maps the Go servers made from Lua to their Lua side, for the
// host (AuthConfig); a module forgets its own when its loop closes.
var luaServers sync.Map // *rmcp.Server -> *luaServer

// HandlerTimeout bounds every request handler of servers made afterwards
// (luagent serve --handler-timeout). Zero means the default, 60 s.
var HandlerTimeout time.Duration

// removers are the registry's removals by the kinds the Lua side names.
var removers = map[string]func(*rmcp.Server, ...string) int{"tools": (*rmcp.Server).RemoveTools,
	"resources": (*rmcp.Server).RemoveResources, "templates": (*rmcp.Server).RemoveResourceTemplates,
	"prompts": (*rmcp.Server).RemovePrompts, "skills": (*rmcp.Server).RemoveSkills}

// serverNative is the table stdlib/mcp.lua builds the server surface on:
// the method tables of servers and request contexts (which it fills) and
// the functions it calls.
func (m *module) serverNative(L *lua.LState) *lua.LTable {
	t := L.CreateTable(0, 20)
	m.serverMT = value.TypeMetatable(L, t, serverType, "server_methods", func(L *lua.LState) int {
		L.Push(lua.LString(fmt.Sprintf("mcp server %q", checkServer(L).srv.Name())))
		return 1
	})
	ctxMethods := L.CreateTable(0, 10)
	t.RawSetString("ctx_methods", ctxMethods)
	m.ctxMT = m.ctxMetatable(L, ctxMethods)
	m.lp.OnClose(func() {
		luaServers.Range(func(srv, s any) bool {
			if s.(*luaServer).m == m {
				luaServers.Delete(srv)
			}
			return true
		})
	})
	L.SetFuncs(t, map[string]lua.LGFunction{
		"new": m.newServer,
		"is_server": func(L *lua.LState) int {
			_, ok := ServerOf(L.Get(1))
			L.Push(lua.LBool(ok))
			return 1
		},
		"add_tool": adder(addTool), "add_resource": adder(addResource), "add_template": adder(addTemplate),
		"add_prompt": adder(addPrompt), "add_skill": m.addSkill, "set_completion": m.setCompletion, "set_auth": m.setAuth,
		// remove(s, kind, key) -> whether it was there
		"remove": func(L *lua.LState) int {
			s, rm := checkServer(L), removers[L.CheckString(2)]
			L.Push(lua.LBool(rm != nil && rm(s.srv, L.CheckString(3)) > 0))
			return 1
		},
		"list_changed":     func(L *lua.LState) int { checkServer(L).srv.ListChanged(L.CheckString(2)); return 0 },
		"resource_updated": func(L *lua.LState) int { checkServer(L).srv.ResourceUpdated(L.CheckString(2)); return 0 },
		"base64": func(L *lua.LState) int {
			L.Push(lua.LString(base64.StdEncoding.EncodeToString([]byte(L.CheckString(1)))))
			return 1
		},
	})
	// asker(name) is the waiting binding of ctx:name, made when
	// mcp_features.lua loads: a server that never asks never builds one.
	t.RawSetString("asker", L.NewFunction(func(L *lua.LState) int {
		L.Push(m.lp.Async("ctx:"+L.CheckString(1), m.readAsk))
		return 1
	}))
	return t
}

// new(name, version, title, instructions, tools, resources, prompts,
// completions) -> server; the booleans declare kinds from the start.
func (m *module) newServer(L *lua.LState) int {
	info := rmcp.Implementation{Name: L.CheckString(1), Version: L.CheckString(2), Title: L.OptString(3, "")}
	var key []byte // the requestState key: LUAGENT_STATE_KEY hashed, or nil for a random one
	if k := os.Getenv("LUAGENT_STATE_KEY"); k != "" {
		key = []byte("luagent-state:" + k)
	}
	s := &luaServer{m: m}
	s.srv = rmcp.NewServer(rmcp.ServerOptions{
		Info: info, Instructions: L.OptString(4, ""), StateKey: key, HandlerTimeout: HandlerTimeout, Trace: m.cfg.Trace,
		Capabilities: rmcp.HandlerCapabilities{Tools: L.OptBool(5, false), Resources: L.OptBool(6, false),
			Prompts: L.OptBool(7, false), Completions: L.OptBool(8, false)},
		Logf: func(format string, args ...any) {
			if m.cfg.Log != nil {
				m.cfg.Log(info.Name, fmt.Sprintf(format, args...))
			}
		},
	})
	luaServers.Store(s.srv, s)
	L.Push(value.NewUserData(L, s, m.serverMT))
	return 1
}

// ServerOf returns the Go server behind a Lua server value (luagent serve).
func ServerOf(v lua.LValue) (*rmcp.Server, bool) {
	if ud, ok := v.(*lua.LUserData); ok {
		if s, ok := ud.Value.(*luaServer); ok {
			return s.srv, true
		}
	}
	return nil, false
}

func checkServer(L *lua.LState) *luaServer {
	return value.Check[*luaServer](L, 1, "mcp server expected (call it as s:tool{...})")
}

// registered returns what a native registration returns to the Lua side:
// true, or nil and why not.
func registered(L *lua.LState, err error) int { return orWhy(L, lua.LTrue, err) }

// orWhy returns v, or nil and err's message.
func orWhy(L *lua.LState, v lua.LValue, err error) int {
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(errs.Message(err)))
		return 2
	}
	L.Push(v)
	return 1
}

// adder makes the native add_KIND(s, key, def, fn, ...): def encoded as
// the registry's Raw entry, add registers it with fn serving it.
func adder(add func(L *lua.LState, s *luaServer, key string, def json.RawMessage, fn *lua.LFunction) error) lua.LGFunction {
	return func(L *lua.LState) int {
		s, key, fn := checkServer(L), L.CheckString(2), L.CheckFunction(4)
		def, err := value.Encode(L.CheckTable(3), value.EncodeOptions{})
		if err == nil {
			err = add(L, s, key, def, fn)
		}
		return registered(L, err)
	}
}

// add_tool(s, name, def, fn, manual_task, shape): fn(args, ctx) is the
// user's handler itself. A string result is the text, sent from Go; any
// other is given to shape(r, msg), which returns a table: the whole
// result, or followed by true, the structured content (which runtime/mcp
// also sends as text). Shaping here, not in a Lua wrapper around fn, keeps
// a frame and a closure call off every call (scripts/bench/BENCHMARKS.md, W2 profile).
func addTool(L *lua.LState, s *luaServer, name string, def json.RawMessage, fn *lua.LFunction) error {
	task := "tool " + name // once, not per call
	shape := L.OptFunction(6, nil)
	return s.srv.AddTool(rmcp.Tool{Raw: def, ManualTask: L.OptBool(5, false)}, func(c *rmcp.ToolCall) {
		s.serve(c.Request, task, "tool", name, fn, func(L *lua.LState) ([]lua.LValue, error) {
			args, err := value.Decode(L, c.Arguments)
			if err != nil {
				return nil, fmt.Errorf("arguments: %v", err)
			}
			return []lua.LValue{args, s.newCtx(L, c.Request)}, nil
		}, func(v, structured lua.LValue, err error) {
			if _, ok := v.(lua.LString); !ok && shape != nil && v != lua.LNil {
				v, structured, err = s.shape(shape, v, structured)
			}
			if text, ok := v.(lua.LString); ok {
				c.ReturnText(string(text))
			} else if v == lua.LNil || structured != lua.LTrue {
				raw, err := resultJSON(v, err)
				c.Return(&rmcp.CallToolResult{Raw: raw}, err)
			} else if sc, err := value.Encode(v, value.EncodeOptions{}); err != nil {
				c.Return(nil, fmt.Errorf("the tool's result cannot be sent as JSON: %v", err))
			} else {
				c.Return(&rmcp.CallToolResult{StructuredContent: sc}, nil)
			}
		})
	})
}

// shape calls the tool's shaper on the loop, where done runs; it does not
// yield. `nil, msg` from it is the tool's error.
func (s *luaServer) shape(fn *lua.LFunction, v, msg lua.LValue) (lua.LValue, lua.LValue, error) {
	L := s.m.lp.L
	if err := L.CallByParam(lua.P{Fn: fn, NRet: 2, Protect: true}, v, msg); err != nil {
		return lua.LNil, lua.LNil, fmt.Errorf("the tool's result cannot be shaped: %v", err)
	}
	r, extra := L.Get(-2), L.Get(-1)
	L.Pop(2)
	if r == lua.LNil && extra != lua.LNil {
		return lua.LNil, lua.LNil, errors.New(vm.ToString(L, extra))
	}
	return r, extra, nil
}

// resultJSON is a shaped result as JSON: nil for nil (nothing), or err.
func resultJSON(v lua.LValue, err error) (json.RawMessage, error) {
	switch x := v.(type) {
	case *lua.LTable:
		raw, err := value.Encode(x, value.EncodeOptions{})
		if err != nil {
			return nil, fmt.Errorf("the result cannot be sent: %v", err)
		}
		return raw, nil
	case *lua.LNilType:
		return nil, err
	}
	return nil, fmt.Errorf("the handler returned a %s, which cannot be sent", v.Type())
}

// readHandler adapts fn(args..., ctx) to a resource read; args gives the
// arguments before ctx. Nothing read is not found.
func (s *luaServer) readHandler(fn *lua.LFunction, args func(L *lua.LState, rd *rmcp.ResourceRead) []lua.LValue) rmcp.ResourceHandler {
	return func(rd *rmcp.ResourceRead) {
		s.serve(rd.Request, "read "+rd.URI, "resource", rd.URI, fn, func(L *lua.LState) ([]lua.LValue, error) {
			return args(L, rd), nil
		}, func(v, _ lua.LValue, err error) {
			if raw, err := resultJSON(v, err); raw == nil {
				rd.Return(nil, err)
			} else {
				rd.Return(&rmcp.ReadResourceResult{Raw: raw}, nil)
			}
		})
	}
}

// add_resource(s, uri, def, fn): fn(ctx, uri).
func addResource(_ *lua.LState, s *luaServer, _ string, def json.RawMessage, fn *lua.LFunction) error {
	return s.srv.AddResource(rmcp.Resource{Raw: def}, s.readHandler(fn, func(L *lua.LState, rd *rmcp.ResourceRead) []lua.LValue {
		return []lua.LValue{s.newCtx(L, rd.Request), lua.LString(rd.URI)}
	}))
}

// add_template(s, uriTemplate, def, fn): fn(vars, ctx, uri).
func addTemplate(_ *lua.LState, s *luaServer, _ string, def json.RawMessage, fn *lua.LFunction) error {
	return s.srv.AddResourceTemplate(rmcp.ResourceTemplate{Raw: def}, s.readHandler(fn, func(L *lua.LState, rd *rmcp.ResourceRead) []lua.LValue {
		return []lua.LValue{stringTable(L, rd.Vars), s.newCtx(L, rd.Request), lua.LString(rd.URI)}
	}))
}

// add_prompt(s, name, def, fn): fn(args, ctx).
func addPrompt(_ *lua.LState, s *luaServer, name string, def json.RawMessage, fn *lua.LFunction) error {
	task := "prompt " + name
	return s.srv.AddPrompt(rmcp.Prompt{Raw: def}, func(g *rmcp.PromptGet) {
		s.serve(g.Request, task, "prompt", name, fn, func(L *lua.LState) ([]lua.LValue, error) {
			return []lua.LValue{stringTable(L, g.Arguments), s.newCtx(L, g.Request)}, nil
		}, func(v, _ lua.LValue, err error) {
			raw, err := resultJSON(v, err)
			g.Return(&rmcp.GetPromptResult{Raw: raw}, err)
		})
	})
}

// set_completion(s, type, name, uri, argument, fn): fn(type, name, uri,
// argument, value, context, ctx) returns {values=, total=, hasMore=}; the
// zero ref ("" for all four) completes whatever has no completion of its
// own.
func (m *module) setCompletion(L *lua.LState) int {
	s, fn := checkServer(L), L.CheckFunction(6)
	ref := rmcp.CompletionRef{Type: L.CheckString(2), Name: L.CheckString(3), URI: L.CheckString(4), Argument: L.CheckString(5)}
	return registered(L, s.srv.SetCompletion(ref, func(c *rmcp.CompleteCall) {
		s.serve(c.Request, "complete", "completion", "", fn, func(L *lua.LState) ([]lua.LValue, error) {
			r := c.Ref
			return []lua.LValue{lua.LString(r.Type), lua.LString(r.Name), lua.LString(r.URI), lua.LString(r.Argument),
				lua.LString(c.Value), stringTable(L, c.Arguments), s.newCtx(L, c.Request)}, nil
		}, func(v, _ lua.LValue, err error) {
			raw, err := resultJSON(v, err)
			var res rmcp.CompleteResult
			if err == nil && raw != nil {
				err = json.Unmarshal(raw, &res)
			}
			c.Return(&res, err)
		})
	}))
}

func stringTable(L *lua.LState, m map[string]string) *lua.LTable {
	t := L.CreateTable(0, len(m))
	for k, v := range m {
		t.RawSetString(k, lua.LString(v))
	}
	return t
}

// serve runs fn as the handler of request r, as a task named name, under
// the request's own context: the handler stops when the request ends
// (answered, timed out, cancelled), and its end ends the request's
// context. It runs on r's own goroutine when r is Inline (an HTTP
// request's) and the state is idle — no hand-over to the loop and back —
// else through the loop; never on a connection's reader. A failure names
// the handler as noun "key" (tool "add"). args builds fn's arguments; done
// gets fn's two first results, or the error: a failure (the operator sees
// it in the log), or `nil, message`. A failed handler whose request was
// answered meanwhile says nothing more.
func (s *luaServer) serve(r *rmcp.Request, name, noun, key string, fn *lua.LFunction, args func(*lua.LState) ([]lua.LValue, error), done func(v, extra lua.LValue, err error)) {
	run := s.m.lp.Post
	if r.Inline() {
		run = s.m.lp.RunHere
	}
	run(func() {
		L := s.m.lp.L
		argv, err := args(L)
		if err != nil {
			done(lua.LNil, lua.LNil, err)
			return
		}
		task := s.m.lp.Spawn(fn, argv, sched.SpawnOptions{Name: name, Context: r.Context(), Cancel: r.Cancel})
		task.OnDone(func(task *sched.Task) {
			if f := task.Failure(); f != nil {
				if !r.Answered() || (f.Kind != errs.Cancelled && f.Kind != errs.Timeout) {
					done(lua.LNil, lua.LNil, errors.New(s.errorText(noun, key, f)))
				} // else answered already (timeout, input_required) or cancelled
				return
			}
			var v, extra lua.LValue = lua.LNil, lua.LNil
			if res := task.Results(); len(res) > 1 {
				v, extra = res[0], res[1]
			} else if len(res) == 1 {
				v = res[0]
			}
			if v == lua.LNil && extra != lua.LNil {
				done(lua.LNil, lua.LNil, errors.New(vm.ToString(L, extra)))
				return
			}
			done(v, extra, nil)
		})
	})
}

// errorText is the message of a handler's error: a Lua string without its
// "file.lua:12: " position (the model does not need it), or the error's
// text. The operator sees the whole message as a warning on the server's
// log, and the traceback at debug level.
func (s *luaServer) errorText(noun, key string, f *sched.Failure) string {
	msg := f.Message
	if m := luaPosition().FindStringIndex(msg); m != nil && m[0] == 0 {
		msg = msg[m[1]:]
	}
	if f.Kind != errs.Cancelled && f.Kind != errs.Timeout {
		if key != "" {
			noun += " " + strconv.Quote(key)
		}
		if s.m.cfg.Warn != nil {
			s.m.cfg.Warn(s.srv.Name(), noun+" failed: "+f.Message)
		}
		if s.m.cfg.Log != nil {
			s.m.cfg.Log(s.srv.Name(), "handler error: "+f.Message+"\n"+f.Traceback)
		}
	}
	return msg
}

var luaPosition = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[^\s:]+\.lua:\d+: `) })
