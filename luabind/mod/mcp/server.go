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
	lua "github.com/yuin/gopher-lua"
)

// MCP servers written in Lua. Their surface — mcp.server{}, s:tool{} and
// friends, the input shorthand, result shaping — is stdlib/mcp.lua; the
// protocol is runtime/mcp's registry. This is the native side between
// them (mcp._native._server): it adapts Lua functions to the registry's
// handler types, each request running as a task on the loop, and converts
// values at the boundary.

const serverType = "mcp.server"
const ctxType = "mcp.request_context"

type luaServer struct {
	m    *module
	srv  *rmcp.Server
	mu   sync.Mutex
	auth *authDef // s:auth, for HTTP serving
}

// luaServers maps the Go servers made from Lua to their Lua side, for the
// host (AuthConfig); a module forgets its own when its loop closes.
var luaServers sync.Map // *rmcp.Server -> *luaServer

// stateKey is the requestState key: LUAGENT_STATE_KEY hashed, or nil for a
// random per-process key.
func stateKey() []byte {
	if k := os.Getenv("LUAGENT_STATE_KEY"); k != "" {
		return []byte("luagent-state:" + k)
	}
	return nil
}

// HandlerTimeout bounds every request handler of servers made afterwards
// (luagent serve --handler-timeout). Zero means the default, 60 s.
var HandlerTimeout time.Duration

// serverNative is the table stdlib/mcp.lua builds the server surface on:
// the method tables of servers and request contexts (which it fills) and
// the functions it calls.
func (m *module) serverNative(L *lua.LState) *lua.LTable {
	methods := L.CreateTable(0, 12)
	m.serverMT = L.NewTypeMetatable(serverType)
	m.serverMT.RawSetString("__index", methods)
	m.serverMT.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString(fmt.Sprintf("mcp server %q", checkServer(L).srv.Name())))
		return 1
	}))
	m.serverMT.RawSetString("__metatable", lua.LString(serverType))
	ctxMethods := L.CreateTable(0, 10)
	m.ctxMT = m.ctxMetatable(L, ctxMethods)
	var owned []*rmcp.Server // loop goroutine only
	m.lp.OnClose(func() {
		for _, srv := range owned {
			luaServers.Delete(srv)
		}
	})
	t := L.CreateTable(0, 16)
	t.RawSetString("server_methods", methods)
	t.RawSetString("ctx_methods", ctxMethods)
	L.SetFuncs(t, map[string]lua.LGFunction{
		"new": func(L *lua.LState) int {
			s := m.newServer(L)
			owned = append(owned, s.srv)
			return 1
		},
		"is_server": func(L *lua.LState) int {
			_, ok := ServerOf(L.Get(1))
			L.Push(lua.LBool(ok))
			return 1
		},
		"add_tool":         m.addTool,
		"add_resource":     m.addResource,
		"add_template":     m.addTemplate,
		"add_prompt":       m.addPrompt,
		"add_skill":        m.addSkill,
		"set_completion":   m.setCompletion,
		"remove":           m.remove,
		"list_changed":     func(L *lua.LState) int { checkServer(L).srv.ListChanged(L.CheckString(2)); return 0 },
		"resource_updated": func(L *lua.LState) int { checkServer(L).srv.ResourceUpdated(L.CheckString(2)); return 0 },
		"set_auth":         m.setAuth,
		// structured(r) is a tool's structured content r as JSON, for
		// add_tool's handler to return (nil and why not): runtime/mcp sends
		// it as structuredContent and as the text of the result.
		"structured": func(L *lua.LState) int {
			sc, err := value.Encode(L.CheckTable(1), value.EncodeOptions{})
			if err != nil {
				L.Push(lua.LNil)
				L.Push(lua.LString("the tool's result cannot be sent as JSON: " + err.Error()))
				return 2
			}
			ud := L.NewUserData()
			ud.Value = structured(sc)
			L.Push(ud)
			return 1
		},
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

// new(name, version, title, instructions, declared) -> server
func (m *module) newServer(L *lua.LState) *luaServer {
	info := rmcp.Implementation{Name: L.CheckString(1), Version: L.CheckString(2), Title: L.OptString(3, "")}
	var declared rmcp.HandlerCapabilities
	if d := L.OptTable(5, L.CreateTable(0, 0)); d != nil {
		declared = rmcp.HandlerCapabilities{Tools: lua.LVAsBool(d.RawGetString("tools")), Resources: lua.LVAsBool(d.RawGetString("resources")),
			Prompts: lua.LVAsBool(d.RawGetString("prompts")), Completions: lua.LVAsBool(d.RawGetString("completions"))}
	}
	s := &luaServer{m: m}
	s.srv = rmcp.NewServer(rmcp.ServerOptions{
		Info:           info,
		Instructions:   L.OptString(4, ""),
		Capabilities:   declared,
		StateKey:       stateKey(),
		HandlerTimeout: HandlerTimeout,
		Trace:          m.cfg.Trace,
		Logf: func(format string, args ...any) {
			if m.cfg.Log != nil {
				m.cfg.Log(info.Name, fmt.Sprintf(format, args...))
			}
		},
	})
	luaServers.Store(s.srv, s)
	ud := L.NewUserData()
	ud.Value = s
	ud.Metatable = m.serverMT
	L.Push(ud)
	return s
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
func registered(L *lua.LState, err error) int {
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(errMsg(err)))
		return 2
	}
	L.Push(lua.LTrue)
	return 1
}

func errMsg(err error) string {
	var e *errs.Error
	if errors.As(err, &e) {
		return e.Msg
	}
	return err.Error()
}

// definition reads add_*(s, key, def, fn): the definition encoded as the
// registry's Raw entry.
func definition(L *lua.LState) (*luaServer, string, json.RawMessage, *lua.LFunction, error) {
	s, key, fn := checkServer(L), L.CheckString(2), L.CheckFunction(4)
	raw, err := value.Encode(L.CheckTable(3), value.EncodeOptions{})
	return s, key, raw, fn, err
}

// structured is a tool's structured content, encoded (_server.structured).
type structured json.RawMessage

// add_tool(s, name, def, fn, manual_task): fn(args, ctx) returns the
// shaped result: a string (the text), structured content, or the whole
// result (a table).
func (m *module) addTool(L *lua.LState) int {
	s, name, def, fn, err := definition(L)
	task := "tool " + name
	if err == nil {
		err = s.srv.AddTool(rmcp.Tool{Raw: def, ManualTask: L.OptBool(5, false)}, func(c *rmcp.ToolCall) {
			s.serve(c.Request, task, "tool", name, fn, func(L *lua.LState) ([]lua.LValue, error) {
				args, err := value.Decode(L, c.Arguments)
				if err != nil {
					return nil, fmt.Errorf("arguments: %v", err)
				}
				return []lua.LValue{args, s.newCtx(L, c.Request)}, nil
			}, func(v lua.LValue, err error) {
				if text, ok := v.(lua.LString); ok {
					c.ReturnText(string(text))
					return
				}
				if ud, ok := v.(*lua.LUserData); ok {
					if sc, ok := ud.Value.(structured); ok {
						c.Return(&rmcp.CallToolResult{StructuredContent: json.RawMessage(sc)}, nil)
						return
					}
				}
				raw, err := resultJSON(v, err)
				if raw == nil {
					c.Return(nil, err)
					return
				}
				c.Return(&rmcp.CallToolResult{Raw: raw}, nil)
			})
		})
	}
	return registered(L, err)
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
// arguments before ctx.
func (s *luaServer) readHandler(fn *lua.LFunction, args func(L *lua.LState, rd *rmcp.ResourceRead) []lua.LValue) rmcp.ResourceHandler {
	return func(rd *rmcp.ResourceRead) {
		s.serve(rd.Request, "read "+rd.URI, "resource", rd.URI, fn, func(L *lua.LState) ([]lua.LValue, error) {
			return args(L, rd), nil
		}, func(v lua.LValue, err error) {
			raw, err := resultJSON(v, err)
			if raw == nil {
				rd.Return(nil, err) // nil, nil: not found
				return
			}
			rd.Return(&rmcp.ReadResourceResult{Raw: raw}, nil)
		})
	}
}

// add_resource(s, uri, def, fn): fn(ctx, uri).
func (m *module) addResource(L *lua.LState) int {
	s, _, def, fn, err := definition(L)
	if err == nil {
		err = s.srv.AddResource(rmcp.Resource{Raw: def}, s.readHandler(fn, func(L *lua.LState, rd *rmcp.ResourceRead) []lua.LValue {
			return []lua.LValue{s.newCtx(L, rd.Request), lua.LString(rd.URI)}
		}))
	}
	return registered(L, err)
}

// add_template(s, uriTemplate, def, fn): fn(vars, ctx, uri).
func (m *module) addTemplate(L *lua.LState) int {
	s, _, def, fn, err := definition(L)
	if err == nil {
		err = s.srv.AddResourceTemplate(rmcp.ResourceTemplate{Raw: def}, s.readHandler(fn, func(L *lua.LState, rd *rmcp.ResourceRead) []lua.LValue {
			return []lua.LValue{stringTable(L, rd.Vars), s.newCtx(L, rd.Request), lua.LString(rd.URI)}
		}))
	}
	return registered(L, err)
}

// add_prompt(s, name, def, fn): fn(args, ctx).
func (m *module) addPrompt(L *lua.LState) int {
	s, name, def, fn, err := definition(L)
	task := "prompt " + name
	if err == nil {
		err = s.srv.AddPrompt(rmcp.Prompt{Raw: def}, func(g *rmcp.PromptGet) {
			s.serve(g.Request, task, "prompt", name, fn, func(L *lua.LState) ([]lua.LValue, error) {
				return []lua.LValue{stringTable(L, g.Arguments), s.newCtx(L, g.Request)}, nil
			}, func(v lua.LValue, err error) {
				raw, err := resultJSON(v, err)
				if err != nil {
					g.Return(nil, err)
					return
				}
				g.Return(&rmcp.GetPromptResult{Raw: raw}, nil)
			})
		})
	}
	return registered(L, err)
}

// set_completion(s, type, name or uri, argument, fn): fn(ref, argument,
// ctx) returns {values=, total=, hasMore=}; type "" is the completion of
// whatever has none of its own.
func (m *module) setCompletion(L *lua.LState) int {
	s, typ, key, arg, fn := checkServer(L), L.CheckString(2), L.CheckString(3), L.CheckString(4), L.CheckFunction(5)
	ref := rmcp.CompletionRef{Type: typ, Argument: arg}
	if typ == "ref/resource" {
		ref.URI = key
	} else {
		ref.Name = key
	}
	return registered(L, s.srv.SetCompletion(ref, func(c *rmcp.CompleteCall) {
		s.serve(c.Request, "complete", "completion", "", fn, func(L *lua.LState) ([]lua.LValue, error) {
			ref := L.CreateTable(0, 2)
			ref.RawSetString("type", lua.LString(c.Ref.Type))
			if c.Ref.Type == "ref/resource" {
				ref.RawSetString("uri", lua.LString(c.Ref.URI))
			} else {
				ref.RawSetString("name", lua.LString(c.Ref.Name))
			}
			arg := L.CreateTable(0, 3)
			arg.RawSetString("name", lua.LString(c.Ref.Argument))
			arg.RawSetString("value", lua.LString(c.Value))
			arg.RawSetString("context", stringTable(L, c.Arguments))
			return []lua.LValue{ref, arg, s.newCtx(L, c.Request)}, nil
		}, func(v lua.LValue, err error) {
			raw, err := resultJSON(v, err)
			var res rmcp.CompleteResult
			if err == nil && raw != nil {
				err = json.Unmarshal(raw, &res)
			}
			c.Return(&res, err)
		})
	}))
}

// remove(s, kind, key) -> whether it was there
func (m *module) remove(L *lua.LState) int {
	s, kind, key := checkServer(L), L.CheckString(2), L.CheckString(3)
	n := 0
	switch kind {
	case "tools":
		n = s.srv.RemoveTools(key)
	case "resources":
		n = s.srv.RemoveResources(key)
	case "templates":
		n = s.srv.RemoveResourceTemplates(key)
	case "prompts":
		n = s.srv.RemovePrompts(key)
	case "skills":
		n = s.srv.RemoveSkills(key)
	}
	L.Push(lua.LBool(n > 0))
	return 1
}

func stringTable(L *lua.LState, m map[string]string) *lua.LTable {
	t := L.CreateTable(0, len(m))
	for k, v := range m {
		t.RawSetString(k, lua.LString(v))
	}
	return t
}

// serve runs fn as the handler of request r, as a task, under the
// request's own context: the handler stops when the request ends
// (answered, timed out, cancelled), and its end ends the request's
// context. It runs on r's own goroutine when r is Inline (an HTTP
// request's) and the state is idle — no hand-over to the loop and back —
// else through the loop; never on a connection's reader. name names the
// task; a failure names the handler as noun "key" (tool "add"). args
// builds fn's arguments; done gets fn's first result, or the error: a
// failure (the operator sees it in the log), or `nil, message`. A failed
// handler whose request was answered meanwhile says nothing more.
func (s *luaServer) serve(r *rmcp.Request, name, noun, key string, fn *lua.LFunction, args func(*lua.LState) ([]lua.LValue, error), done func(lua.LValue, error)) {
	run := s.m.lp.Post
	if r.Inline() {
		run = s.m.lp.RunHere
	}
	run(func() {
		L := s.m.lp.L
		argv, err := args(L)
		if err != nil {
			done(lua.LNil, err)
			return
		}
		task := s.m.lp.Spawn(fn, argv, sched.SpawnOptions{Name: name, Context: r.Context(), Cancel: r.Cancel})
		task.OnDone(func(task *sched.Task) {
			if f := task.Failure(); f != nil {
				if r.Answered() && (f.Kind == errs.Cancelled || f.Kind == errs.Timeout) {
					return // answered already (timeout, input_required) or cancelled
				}
				what := noun
				if key != "" {
					what += " " + strconv.Quote(key)
				}
				done(lua.LNil, errors.New(s.errorText(what, f)))
				return
			}
			var v, msg lua.LValue = lua.LNil, lua.LNil
			if res := task.Results(); len(res) > 1 {
				v, msg = res[0], res[1]
			} else if len(res) == 1 {
				v = res[0]
			}
			if v == lua.LNil && msg != lua.LNil {
				done(lua.LNil, errors.New(vm.ToString(L, msg)))
				return
			}
			done(v, nil)
		})
	})
}

// errorText is the message of a handler's error: a Lua string without its
// "file.lua:12: " position (the model does not need it), or the error's
// text. The operator sees the whole message as a warning on the server's
// log, and the traceback at debug level. what names the handler
// (`tool "add"`).
func (s *luaServer) errorText(what string, f *sched.Failure) string {
	msg := f.Message
	if m := luaPosition().FindStringIndex(msg); m != nil && m[0] == 0 {
		msg = msg[m[1]:]
	}
	if f.Kind != errs.Cancelled && f.Kind != errs.Timeout {
		if s.m.cfg.Warn != nil {
			s.m.cfg.Warn(s.srv.Name(), what+" failed: "+f.Message)
		}
		if s.m.cfg.Log != nil {
			s.m.cfg.Log(s.srv.Name(), "handler error: "+f.Message+"\n"+f.Traceback)
		}
	}
	return msg
}

var luaPosition = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[^\s:]+\.lua:\d+: `) })
