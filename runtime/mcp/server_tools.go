package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/jsonrpc"
	"github.com/luagent/luagent/runtime/jsonscan"
)

// ToolHandler serves the calls of one tool. Like a ServerHandler it must
// not block: it answers with call.Return, once, from any goroutine (one of
// its own, a callback, a scheduler). AddToolFunc wraps a plain function
// instead.
type ToolHandler func(call *ToolCall)

// ToolCall is one tools/call of a registered tool, its arguments already
// checked against the tool's input schema. The embedded Request gives the
// context, progress, logging and asking the client for input.
type ToolCall struct {
	*Request
	Name      string
	Arguments json.RawMessage // a JSON object ({} when the client sent none)
	tool      *serverTool
}

type serverTool struct {
	name    string
	def     json.RawMessage // the tools/list entry
	in, out *lazySchema
	headers map[string]string // x-mcp-header name -> argument
	handler ToolHandler
	task    string // TaskOptional or TaskRequired; "" for none
	manual  bool   // Tool.ManualTask
}

// defaultInput is the schema of a tool added without one: any object.
var defaultInput = json.RawMessage(`{"type":"object"}`)

// AddTool registers t, served by h, or replaces the tool of that name where
// it stands in the list. When t.Raw is set it is the tools/list entry as
// is, and the name and schemas are read from it. No input schema means any
// object. A schema the quick check covers (an object of typed properties)
// compiles at the tool's first call, costing nothing at start-up; any other
// compiles now, so that a mistake is reported where it was made, as are
// x-mcp-header annotations that 2026-07-28 does not allow. Errors are of
// kind Invalid.
func (s *Server) AddTool(t Tool, h ToolHandler) error {
	if s.reg == nil {
		return errCustomHandler
	}
	if t.Raw != nil {
		if name, ok := jsonscan.UnquoteSimple(jsonscan.Member(t.Raw, "name")); ok {
			t.Name = name
		} else {
			json.Unmarshal(jsonscan.Member(t.Raw, "name"), &t.Name)
		}
		t.InputSchema = jsonscan.Member(t.Raw, "inputSchema")
		t.OutputSchema = jsonscan.Member(t.Raw, "outputSchema")
		if ex := jsonscan.Member(t.Raw, "execution"); ex != nil {
			t.Execution = &ToolExecution{}
			json.Unmarshal(ex, t.Execution)
		}
	}
	if t.Name == "" {
		return errs.New(errs.Invalid, "", "a tool needs a name")
	}
	if h == nil {
		return errs.Errorf(errs.Invalid, "", "tool %q needs a handler", t.Name)
	}
	if len(t.InputSchema) == 0 {
		t.InputSchema = defaultInput
	}
	st := &serverTool{name: t.Name, handler: h, manual: t.ManualTask}
	if t.Execution != nil {
		switch ts := t.Execution.TaskSupport; ts {
		case TaskOptional, TaskRequired:
			st.task = ts
		case "", TaskForbidden:
		default:
			return errs.Errorf(errs.Invalid, "", "tool %q: task support %q is none of optional, required, forbidden", t.Name, ts)
		}
	}
	var err error
	if st.in, err = newLazySchema(t.InputSchema); err != nil {
		return errs.Errorf(errs.Invalid, "", "input schema: %v", err)
	}
	if st.out, err = newLazySchema(t.OutputSchema); err != nil {
		return errs.Errorf(errs.Invalid, "", "output schema: %v", err)
	}
	if st.headers, err = ParamHeaders(t.InputSchema); err != nil {
		return errs.Errorf(errs.Invalid, "", "input schema: %v", err)
	}
	if st.def, err = definition(t.Raw, t); err != nil {
		return err
	}
	return add(s, "tools", toolEntries, "", t.Name, st)
}

// RemoveTools removes the named tools and says how many there were.
func (s *Server) RemoveTools(names ...string) int { return remove(s, "tools", toolEntries, "", names) }

// AddToolFunc registers a tool served by f, a plain function: each call
// runs f on a goroutine of its own, with the arguments decoded into In and
// the request's context (ended when the client cancels, the handler times
// out or the server closes; ToolCallOf gives the call). An error f returns
// is the call's tool error. With no input schema, one is inferred from In
// when it is a struct (github.com/google/jsonschema-go).
func AddToolFunc[In any](s *Server, t Tool, f func(ctx context.Context, args In) (*CallToolResult, error)) error {
	if len(t.InputSchema) == 0 && t.Raw == nil {
		if ty := reflect.TypeFor[In](); ty.Kind() == reflect.Struct || ty.Kind() == reflect.Pointer && ty.Elem().Kind() == reflect.Struct {
			js, err := jsonschema.For[In](nil)
			if err != nil {
				return errs.Errorf(errs.Invalid, "", "tool %q: the input schema of %v: %v", t.Name, ty, err)
			}
			if t.InputSchema, err = json.Marshal(js); err != nil {
				return errs.Wrap(errs.Invalid, "", err)
			}
		}
	}
	return s.AddTool(t, func(call *ToolCall) {
		go func() {
			var args In
			if err := json.Unmarshal(call.Arguments, &args); err != nil {
				call.Return(nil, errs.Errorf(errs.Invalid, "", "arguments: %v", err))
				return
			}
			call.Return(f(context.WithValue(call.Context(), toolCallKey{}, call), args))
		}()
	})
}

type toolCallKey struct{}

// ToolCallOf returns the call a context given by AddToolFunc belongs to.
func ToolCallOf(ctx context.Context) (*ToolCall, bool) {
	c, ok := ctx.Value(toolCallKey{}).(*ToolCall)
	return c, ok
}

// TextContent is a text content block.
func TextContent(text string) json.RawMessage {
	b := append(make([]byte, 0, len(text)+32), `{"type":"text","text":`...)
	b = jsonscan.AppendString(b, text)
	return append(b, '}')
}

// TextResult is a result of one text block.
func TextResult(text string) *CallToolResult {
	return &CallToolResult{Content: []json.RawMessage{TextContent(text)}}
}

// errorResult is a tool error: the text is for the model to read.
func errorResult(text string) json.RawMessage {
	return (&CallToolResult{Content: []json.RawMessage{TextContent(text)}, IsError: true}).encode()
}

// encode is the result as sent: Raw when set; otherwise the fields, with
// structured content also given as text when there is no other content
// (for clients that read only text).
func (r *CallToolResult) encode() json.RawMessage {
	if r.Raw != nil {
		return r.Raw
	}
	content := r.Content
	if len(content) == 0 && r.StructuredContent != nil {
		content = []json.RawMessage{TextContent(string(r.StructuredContent))}
	}
	b := append(make([]byte, 0, 64), `{"content":[`...)
	for i, c := range content {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, c...)
	}
	b = append(b, ']')
	if r.StructuredContent != nil {
		b = append(append(b, `,"structuredContent":`...), r.StructuredContent...)
	}
	if r.IsError {
		b = append(b, `,"isError":true`...)
	}
	return append(b, '}')
}

// Return answers the call once (later answers are ignored): with res (nil
// is an empty result), or, when err is not nil, with a tool error (isError)
// carrying err's message, so the model can correct itself. Structured
// content that does not match the tool's output schema is answered as such
// an error instead.
func (c *ToolCall) Return(res *CallToolResult, err error) {
	if err != nil {
		c.Reply(errorResult(errs.Message(err)))
		return
	}
	if res == nil {
		res = &CallToolResult{}
	}
	b := res.encode()
	if c.tool.out != nil {
		sc, isErr := res.StructuredContent, res.IsError
		if res.Raw != nil {
			sc, isErr = jsonscan.Member(b, "structuredContent"), string(jsonscan.Member(b, "isError")) == "true"
		}
		if sc != nil && !isErr {
			if problem := c.tool.out.problem(sc, "field"); problem != "" {
				c.Reply(errorResult("the tool's result does not match its output schema: " + problem))
				return
			}
		}
	}
	c.Reply(b)
}

// ReturnText answers the call with one text block: Return(TextResult(text),
// nil) without the result value (the hot path of a Lua tool).
func (c *ToolCall) ReturnText(text string) {
	b := append(make([]byte, 0, len(text)+48), `{"content":[{"type":"text","text":`...)
	b = jsonscan.AppendString(b, text)
	c.Reply(append(b, "}]}"...))
}

// callToolParams are the members of a tools/call's params that callTool
// reads, in one pass over them.
var callToolParams = []string{"name", "arguments"}

func (reg *registry) callTool(r *Request) {
	var p [2][]byte
	jsonscan.MembersOf(r.Params, callToolParams, p[:])
	// A name without escapes is looked up as its bytes (no string made
	// per call); the tool's own name stands for it from there on.
	var t *serverTool
	plain, simple := jsonscan.SimpleString(p[0])
	var name string
	if !simple {
		json.Unmarshal(p[0], &name) // as StringParam: "" when not a string
	}
	reg.mu.RLock()
	if simple {
		t = reg.tools.m[string(plain)]
	} else {
		t = reg.tools.get(name)
	}
	reg.mu.RUnlock()
	if t == nil {
		if simple {
			name = string(plain)
		}
		r.Fail(&jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Unknown tool: " + name})
		return
	}
	name = t.name
	args := p[1]
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	// Invalid arguments are a tool error, so the model can correct itself.
	if problem := t.in.problem(args, "argument"); problem != "" {
		r.Reply(errorResult("invalid arguments for tool " + name + ": " + problem))
		return
	}
	if t.task != "" {
		if t.task == TaskRequired && !r.WantsTask() {
			if r.Era == EraModern {
				r.finish(nil, errTasksNotDeclared)
			} else {
				r.Fail(&jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "tool " + name + " runs only as a task: call it with params.task"})
			}
			return
		}
		if !t.manual && r.WantsTask() && !r.StartTask() {
			return // past the task bounds: answered
		}
	}
	t.handler(&ToolCall{Request: r, Name: name, Arguments: args, tool: t})
}

// lazySchema is a schema compiled when first needed (see AddTool).
type lazySchema struct {
	raw  json.RawMessage
	once sync.Once
	s    *Schema
	err  error
}

// newLazySchema returns nil for no schema.
func newLazySchema(raw json.RawMessage) (*lazySchema, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	l := &lazySchema{raw: raw}
	if simpleOf(raw) == nil {
		if _, err := l.compiled(); err != nil {
			return nil, err
		}
	}
	return l, nil
}

func (l *lazySchema) compiled() (*Schema, error) {
	l.once.Do(func() { l.s, l.err = CompileSchema(l.raw) })
	return l.s, l.err
}

// problem says what in raw (valid JSON) does not match the schema, naming
// the field as noun ("argument a is a string, want a number"); "" when it
// matches.
func (l *lazySchema) problem(raw json.RawMessage, noun string) string {
	if l == nil {
		return ""
	}
	s, err := l.compiled()
	if err != nil {
		return err.Error()
	}
	if s.AcceptsJSON(raw) {
		return ""
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "not JSON: " + err.Error()
	}
	if err := s.Validate(v); err != nil {
		var ve *ValidationError
		if errors.As(err, &ve) {
			return ve.Problem(noun)
		}
		return err.Error()
	}
	return ""
}
