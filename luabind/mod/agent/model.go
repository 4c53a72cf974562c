package agent

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/luabind/value"
	ragent "github.com/luagent/luagent/runtime/agent"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/llm"
)

const modelType = "agent.model"

// luaModel is agent.model(spec)'s value.
type luaModel struct{ m llm.Model }

// reqJSON is a request as Lua sees it (a Lua model's argument, and
// model:complete's): the transcript's message shapes.
type reqJSON struct {
	System      string           `json:"system,omitempty"`
	Messages    []ragent.Message `json:"messages"`
	Tools       []toolJSON       `json:"tools"`
	MaxTokens   int              `json:"max_tokens,omitempty"`
	Temperature *float64         `json:"temperature,omitempty"`
	Stop        []string         `json:"stop,omitempty"`
}

type toolJSON struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Schema      json.RawMessage `json:"schema,omitempty"`
}

// respJSON is a response as Lua writes it: {text=, tool_calls={{name=,
// arguments=}}, stop_reason=, usage=}.
type respJSON struct {
	Text      string `json:"text"`
	ToolCalls []struct {
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"tool_calls"`
	StopReason string       `json:"stop_reason,omitempty"`
	Usage      ragent.Usage `json:"usage"`
}

func requestJSON(r *llm.Request) json.RawMessage {
	out := reqJSON{System: r.System, Messages: []ragent.Message{}, Tools: []toolJSON{},
		MaxTokens: r.MaxTokens, Temperature: r.Temperature, Stop: r.Stop}
	for _, msg := range r.Messages {
		out.Messages = append(out.Messages, ragent.MessageOf(msg))
	}
	for _, t := range r.Tools {
		out.Tools = append(out.Tools, toolJSON(t))
	}
	raw, _ := json.Marshal(out)
	return raw
}

func (r *respJSON) response() *llm.Response {
	out := &llm.Response{StopReason: r.StopReason,
		Usage: llm.Usage(r.Usage)}
	out.Message.Role = llm.RoleAssistant
	if r.Text != "" {
		out.Message.Parts = []llm.Part{llm.Text(r.Text)}
	}
	for i, tc := range r.ToolCalls {
		args := tc.Arguments
		if s := strings.TrimSpace(string(args)); s == "" || s == "[]" || s == "null" {
			args = json.RawMessage(`{}`)
		} else if s[0] == '"' { // arguments written as a JSON string
			var str string
			if json.Unmarshal(args, &str) == nil {
				args = json.RawMessage(str)
			}
		}
		id := tc.ID
		if id == "" {
			id = "call_" + strconv.Itoa(i+1)
		}
		out.Message.ToolCalls = append(out.Message.ToolCalls, llm.ToolCall{ID: id, Name: tc.Name, Arguments: args})
	}
	return out
}

// funcModel adapts a Lua function to a model: fn(request) -> response.
func (m *module) funcModel(fn *lua.LFunction) llm.Model {
	return llm.Func("lua", func(ctx context.Context, r *llm.Request) (*llm.Response, error) {
		v, err := m.callLua(ctx, fn, "model", decodeArgs(requestJSON(r)), func(L *lua.LState, rs []lua.LValue) (any, error) {
			t, ok := first(rs).(*lua.LTable)
			if !ok {
				if s, ok := first(rs).(lua.LString); ok {
					return &respJSON{Text: string(s)}, nil
				}
				return nil, errs.Errorf(errs.Invalid, "model", "a Lua model must return {text = ...} or {tool_calls = {...}}, not %s", first(rs).Type())
			}
			raw, err := value.Encode(value.MarkObject(t), value.EncodeOptions{})
			if err != nil {
				return nil, errs.Errorf(errs.Invalid, "model", "the Lua model's answer: %v", err)
			}
			var resp respJSON
			if err := json.Unmarshal(raw, &resp); err != nil {
				return nil, errs.Errorf(errs.Invalid, "model", "the Lua model's answer: %v", err)
			}
			return &resp, nil
		})
		if err != nil {
			return nil, err
		}
		return v.(*respJSON).response(), nil
	})
}

// resolveModel reads a model= value: a spec string, a Lua function, an
// agent.model value or a {provider =, model =, base_url =, ...} table
// (modelOf).
func (m *module) resolveModel(L *lua.LState, v lua.LValue) (llm.Model, error) {
	switch v := v.(type) {
	case lua.LString:
		cfg := llm.Config{Lookup: m.cfg.Lookup}
		if m.cfg.Models != nil && !strings.Contains(string(v), ":") && string(v) != "mock" {
			// A bare name may be a configured model: read the catalog.
			models, _, err := m.cfg.Models()
			if err != nil {
				return nil, err
			}
			cfg.Models = models
		}
		return llm.New(string(v), cfg)
	case *lua.LFunction:
		return m.funcModel(v), nil
	case *lua.LTable:
		return m.modelOf(v)
	case *lua.LUserData:
		if lm, ok := v.Value.(*luaModel); ok {
			return lm.m, nil
		}
	case *lua.LNilType:
		// No model named: LUAGENT_MODEL, else the catalog's default, else
		// the offline mock.
		if spec, ok := m.lookup("LUAGENT_MODEL"); ok && spec != "" {
			return m.resolveModel(L, lua.LString(spec))
		}
		if m.cfg.Models != nil {
			_, def, err := m.cfg.Models()
			if err != nil {
				return nil, err
			}
			if def != "" {
				return m.resolveModel(L, lua.LString(def))
			}
		}
		return m.resolveModel(L, lua.LString("mock"))
	}
	return nil, errs.Errorf(errs.Invalid, "agent.new", "model must be a name, a function, agent.model(...) or {provider = ..., model = ...}, not %s", v.Type())
}

// withFallbacks wraps model in llm.WithFallback with the models of
// opts.fallback_models (each what model= takes), or, when it is nil and
// the model is named or left out, the catalog's fallbackModels;
// fallback_models = false or {} is none.
func (m *module) withFallbacks(L *lua.LState, model llm.Model, opts *lua.LTable) (llm.Model, error) {
	var vs []lua.LValue
	switch fb := opts.RawGetString("fallback_models").(type) {
	case *lua.LTable:
		for i := 1; i <= fb.Len(); i++ {
			vs = append(vs, fb.RawGetInt(i))
		}
	case lua.LBool:
		if fb {
			return nil, errs.New(errs.Invalid, "agent.new", "fallback_models must be a list of models ({\"anthropic:claude-haiku-4-5\", ...}) or false")
		}
	case *lua.LNilType:
		switch opts.RawGetString("model").(type) {
		case lua.LString, *lua.LNilType:
			if m.cfg.FallbackModels != nil {
				for _, name := range m.cfg.FallbackModels() {
					vs = append(vs, lua.LString(name))
				}
			}
		}
	default:
		return nil, errs.Errorf(errs.Invalid, "agent.new", "fallback_models must be a list of models, not %s", fb.Type())
	}
	if len(vs) == 0 {
		return model, nil
	}
	models := []llm.Model{model}
	for _, v := range vs {
		if v == lua.LNil {
			continue
		}
		fm, err := m.resolveModel(L, v)
		if err != nil {
			return nil, err
		}
		models = append(models, fm)
	}
	return llm.WithFallback(models...), nil
}

func (m *module) lookup(name string) (string, bool) {
	if m.cfg.Lookup != nil {
		return m.cfg.Lookup(name)
	}
	return os.LookupEnv(name)
}

// agent.model(spec | fn) -> model
func (m *module) newModel(L *lua.LState) int {
	md, err := m.resolveModel(L, L.Get(1))
	if err != nil {
		L.Error(sched.ErrorValueOf(L, err), 0)
	}
	ud := L.NewUserData()
	ud.Value = &luaModel{m: md}
	ud.Metatable = m.modelMT(L)
	L.Push(ud)
	return 1
}

func (m *module) modelMT(L *lua.LState) *lua.LTable {
	if mt, ok := L.GetTypeMetatable(modelType).(*lua.LTable); ok {
		return mt
	}
	mt := L.NewTypeMetatable(modelType)
	methods := L.CreateTable(0, 2)
	methods.RawSetString("complete", m.lp.Async("model:complete", m.complete))
	methods.RawSetString("name", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString(m.checkModel(L).m.Name()))
		return 1
	}))
	mt.RawSetString("__index", methods)
	mt.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString("model " + m.checkModel(L).m.Name()))
		return 1
	}))
	mt.RawSetString("__metatable", lua.LString(modelType))
	return mt
}

func (m *module) checkModel(L *lua.LState) *luaModel {
	return value.Check[*luaModel](L, 1, "model expected (call it as model:method(...))")
}

// msgIn is a message as model:complete takes it: the transcript's shape,
// or {role=, content="text"}.
type msgIn struct {
	ragent.Message
	Content string `json:"content"`
}

// model:complete{system=, messages={...}, tools=?, max_tokens=, temperature=}
// -> {text=, tool_calls=, stop_reason=, usage=}
func (m *module) complete(L *lua.LState) sched.Start {
	lm := m.checkModel(L)
	t := L.CheckTable(2)
	raw, err := value.Encode(value.MarkObject(t), value.EncodeOptions{})
	if err != nil {
		L.ArgError(2, err.Error())
	}
	var in struct {
		System      string     `json:"system"`
		Messages    []msgIn    `json:"messages"`
		Tools       []toolJSON `json:"tools"`
		MaxTokens   int        `json:"max_tokens"`
		Temperature *float64   `json:"temperature"`
		Stop        []string   `json:"stop"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		L.ArgError(2, "request: "+err.Error())
	}
	req := &llm.Request{System: in.System, MaxTokens: in.MaxTokens, Temperature: in.Temperature, Stop: in.Stop}
	for _, mi := range in.Messages {
		msg := mi.Message.LLM()
		if mi.Content != "" {
			msg.Parts = append(msg.Parts, llm.Text(mi.Content))
		}
		if msg.Role == "" {
			msg.Role = llm.RoleUser
		}
		req.Messages = append(req.Messages, msg)
	}
	for _, tl := range in.Tools {
		if len(tl.Schema) == 0 || string(tl.Schema) == "[]" {
			tl.Schema = json.RawMessage(`{"type":"object"}`)
		}
		req.Tools = append(req.Tools, llm.Tool(tl))
	}
	return func(ctx context.Context, done func(sched.Completion)) {
		go func() {
			resp, err := lm.m.Stream(ctx, req, nil)
			if err != nil {
				done(sched.Fail(err))
				return
			}
			out := respOut(resp)
			done(func(L *lua.LState) ([]lua.LValue, error) {
				v, err := value.Decode(L, out)
				return []lua.LValue{v}, err
			})
		}()
	}
}

func respOut(r *llm.Response) json.RawMessage {
	var text strings.Builder
	for _, p := range r.Message.Parts {
		if p.Type == "text" {
			text.WriteString(p.Text)
		}
	}
	out := map[string]any{"text": text.String(), "stop_reason": r.StopReason,
		"usage": ragent.Usage(r.Usage)}
	calls := []ragent.ToolCall{}
	for _, tc := range r.Message.ToolCalls {
		calls = append(calls, ragent.ToolCall(tc))
	}
	out["tool_calls"] = calls
	raw, _ := json.Marshal(out)
	return raw
}
