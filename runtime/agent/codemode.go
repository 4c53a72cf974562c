package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/luagent/luagent/runtime/approval"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/hub"
	"github.com/luagent/luagent/runtime/jsonscan"
	"github.com/luagent/luagent/runtime/llm"
	"github.com/luagent/luagent/runtime/luaname"
)

// Code mode: the model is offered run_lua {code}, a Lua snippet that calls
// the agent's tools as functions (tools.SERVER.TOOL{...}) in a sandbox and
// returns only what matters, instead of one model round trip per call. The
// runtime knows no Lua: Config.CodeMode.Run (luabind/codemode) runs the
// snippet, and every call it makes comes back here, through runCall, so it
// meets the same hooks, policy, bindings, timeouts and events as a direct
// call, recorded under the run_lua call (ToolCallRecord.Calls) and traced
// as a child of its span.

// ToolRunLua is code mode's tool; KindCode is its calls' Kind.
const (
	ToolRunLua = "run_lua"
	KindCode   = approval.KindCode
)

// Code mode's modes (CodeMode.Mode).
const (
	CodeOnly   = "only"   // run_lua instead of the hub's and the local tools
	CodeBeside = "beside" // run_lua beside them
)

// CodeMode configures code mode; the zero value is off.
type CodeMode struct {
	// Mode is "" (off), CodeOnly or CodeBeside.
	Mode string
	// Run runs one snippet (nil: code mode is off).
	Run CodeRunner
	// Limits bound each run (zero fields: the defaults).
	Limits CodeLimits
}

// CodeLimits bound one run_lua call. Hitting one ends the run with an
// error result naming the limit and the snippet's line.
type CodeLimits struct {
	Time         time.Duration // wall time, tool calls included
	Instructions int64         // Lua VM instructions
	MemoryBytes  int64         // the sandbox's memory meter
	ToolCalls    int           // tool calls per run
	Output       int           // bytes of the result the model gets (longer is cut, with a note)
}

// The defaults of CodeLimits.
const (
	DefaultCodeTime         = 30 * time.Second
	DefaultCodeInstructions = 50_000_000
	DefaultCodeMemory       = 64 << 20
	DefaultCodeToolCalls    = 100
	DefaultCodeOutput       = 16 << 10
)

// WithDefaults returns l with its zero fields set to the defaults.
func (l CodeLimits) WithDefaults() CodeLimits {
	if l.Time <= 0 {
		l.Time = DefaultCodeTime
	}
	if l.Instructions <= 0 {
		l.Instructions = DefaultCodeInstructions
	}
	if l.MemoryBytes <= 0 {
		l.MemoryBytes = DefaultCodeMemory
	}
	if l.ToolCalls <= 0 {
		l.ToolCalls = DefaultCodeToolCalls
	}
	if l.Output <= 0 {
		l.Output = DefaultCodeOutput
	}
	return l
}

// CodeRunner runs one snippet. It returns what the snippet printed and
// returned, or an error with a kind (syntax, limit, timeout, cancelled,
// runtime) whose message has the snippet's line, with the output printed
// before it. It must not return while a Call it made is still running.
type CodeRunner func(ctx context.Context, run *CodeRun) (CodeOutput, error)

// CodeRun is one run_lua call as the runner gets it.
type CodeRun struct {
	Code   string
	Tools  []CodeTool
	Limits CodeLimits
	// Call runs one tool call (name is a CodeTool's Name) through the
	// agent's hooks and policy, under ctx (the snippet's: cancelled with
	// it). A denial is an error of kind auth; a failed call or an isError
	// result is an error or a Result with IsError.
	Call func(ctx context.Context, name string, args json.RawMessage) (Result, error)
}

// CodeTool is a tool as a snippet sees it.
type CodeTool struct {
	// Name is what CodeRun.Call takes (the qualified name of a hub tool).
	Name string
	// Path is where the function is under tools ({"everything",
	// "get_sum"}); Alias is the tool's own spelling when Path had to
	// change it to a Lua name ({"everything", "get-sum"}), else nil.
	Path  []string
	Alias []string
	// Lua is Path as the model reads it: tools.everything.get_sum.
	Lua         string
	Description string
	// Signature is the arguments and the result in short:
	// "{a=number, b=number} -> string".
	Signature            string
	Schema, OutputSchema json.RawMessage
}

// CodeOutput is what a snippet printed (up to the output limit; Dropped
// counts the bytes left out) and the JSON of the values it returned. When
// the runner returns an error, ErrorDropped counts the bytes it left out
// of the error's message, cut as printed output is.
type CodeOutput struct {
	Output       string
	Dropped      int
	Values       []json.RawMessage
	ErrorDropped int
}

// codeOn reports whether the model is offered run_lua.
func (a *Agent) codeOn() bool {
	return a.cfg.CodeMode.Run != nil && (a.cfg.CodeMode.Mode == CodeOnly || a.cfg.CodeMode.Mode == CodeBeside)
}

// codeOnly reports whether run_lua stands for the hub's and local tools.
func (a *Agent) codeOnly() bool { return a.codeOn() && a.cfg.CodeMode.Mode == CodeOnly }

// codeToolset is what a snippet may call: every tool a direct call could
// reach (the hub's tools of the agent's servers and the local ones), the
// search threshold aside; code lists them for the runner.
func (a *Agent) codeToolset(hubTools []hub.Tool, local map[string]bool) *toolset {
	ts := &toolset{byName: map[string]entry{}}
	a.addDirect(ts, hubTools, local, nil)
	ts.code = codeToolsOf(ts, hubTools)
	return ts
}

// runLuaTool is run_lua as the model is offered it.
func (a *Agent) runLuaTool(code *toolset) llm.Tool {
	short := a.cfg.ToolSearch != ToolSearchNever && len(code.code) > 0 &&
		(a.cfg.ToolSearch == ToolSearchAlways || a.cfg.MetaToolThreshold >= 0 && len(code.code) > a.cfg.MetaToolThreshold)
	return llm.Tool{Name: ToolRunLua, Description: codeDescription(code.code, short, a.cfg.CodeMode.Limits.WithDefaults()),
		Schema: json.RawMessage(`{"type":"object","properties":{"code":{"type":"string","description":"a Lua 5.1 chunk; return the value you want back","examples":["help()"]}},"required":["code"]}`)}
}

// codeCalls collects the calls one run_lua call made, for its record.
type codeCalls struct {
	parent string
	mu     sync.Mutex
	recs   []ToolCallRecord
}

type codeCallsKey struct{}

func codeCallsOf(ctx context.Context) *codeCalls {
	cc, _ := ctx.Value(codeCallsKey{}).(*codeCalls)
	return cc
}

func (cc *codeCalls) add(r ToolCallRecord) {
	cc.mu.Lock()
	cc.recs = append(cc.recs, r)
	cc.mu.Unlock()
}

func (cc *codeCalls) records() []ToolCallRecord {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	return cc.recs
}

// runCode runs one run_lua call.
func (a *Agent) runCode(ctx context.Context, code *toolset, call *Call, turn int) (Result, error) {
	var in struct {
		Code string `json:"code"`
	}
	if err := json.Unmarshal(call.Arguments, &in); err != nil || strings.TrimSpace(in.Code) == "" {
		return Result{}, errs.New(errs.Invalid, ToolRunLua, `run_lua needs {"code": "..."}: a Lua chunk that calls tools.SERVER.TOOL{...} and returns what you need`)
	}
	cc := codeCallsOf(ctx)
	lim := a.cfg.CodeMode.Limits.WithDefaults()
	var n atomic.Int64
	run := &CodeRun{Code: in.Code, Tools: code.code, Limits: lim,
		Call: func(cctx context.Context, name string, args json.RawMessage) (Result, error) {
			i := n.Add(1)
			if i > int64(lim.ToolCalls) {
				return Result{}, errs.Errorf(errs.Limit, ToolRunLua, "tool call limit of %d reached", lim.ToolCalls)
			}
			o := a.runCall(cctx, turn, code, llm.ToolCall{ID: fmt.Sprintf("%s/%d", call.ID, i), Name: name, Arguments: args})
			o.rec.Error, o.rec.Reason = a.redact(o.rec.Error), a.redact(o.rec.Reason)
			if cc != nil {
				cc.add(o.rec)
			}
			if o.err != nil {
				return Result{}, o.err
			}
			if o.rec.Result == nil {
				return Result{Content: []json.RawMessage{}}, nil
			}
			return *o.rec.Result, nil
		}}
	out, err := a.cfg.CodeMode.Run(ctx, run)
	if err != nil {
		// The error is cut as printed output is (its share of the output
		// limit when something was printed too): it reaches the model,
		// the transcript and the trace, and every later request.
		printed := clip(out.Output, out.Dropped, lim.Output/2)
		room := lim.Output
		if printed != "" {
			room = lim.Output / 2
		}
		msg := clipWith(err.Error(), out.ErrorDropped, room, "raise a shorter error")
		if printed != "" {
			msg += "\n[printed before the error]\n" + printed
		}
		return Result{}, &errs.Error{Kind: errs.KindOf(err), Op: ToolRunLua, Msg: msg}
	}
	return TextResult(codeText(out, lim.Output), false), nil
}

// codeText is the result the model gets: what the snippet printed and
// what it returned (as JSON), cut to max bytes with a note.
func codeText(out CodeOutput, max int) string {
	var vals string
	switch len(out.Values) {
	case 0:
	case 1:
		vals = string(out.Values[0])
	default:
		b, _ := json.Marshal(out.Values)
		vals = string(b)
	}
	var text string
	switch {
	case out.Output == "" && out.Dropped == 0 && vals == "":
		return "(the snippet printed nothing and returned nothing)"
	case out.Output == "" && out.Dropped == 0:
		text = vals
	case vals == "":
		text = out.Output
	default:
		text = "[printed]\n" + strings.TrimRight(out.Output, "\n") + "\n[returned]\n" + vals
	}
	return clip(text, out.Dropped, max)
}

// clip cuts s to max bytes (on a rune boundary) with a note saying how
// much there was; dropped counts bytes already left out.
func clip(s string, dropped, max int) string {
	return clipWith(s, dropped, max, "print or return less")
}

// clipWith is clip whose note ends with hint.
func clipWith(s string, dropped, max int, hint string) string {
	if len(s) <= max && dropped == 0 {
		return s
	}
	total := len(s) + dropped
	if len(s) > max {
		cut := max
		for cut > 0 && cut < len(s) && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut]
	}
	return fmt.Sprintf("%s\n[truncated: %d bytes in all, the first %d shown; %s]", s, total, len(s), hint)
}

// codeToolsOf lists ts's tools as a snippet calls them.
func codeToolsOf(ts *toolset, hubTools []hub.Tool) []CodeTool {
	servers := map[string]bool{}
	for _, t := range hubTools {
		servers[luaName(t.Server)] = true
	}
	var out []CodeTool
	for _, t := range ts.tools {
		e := ts.byName[t.Name]
		ct := CodeTool{Name: t.Name, Description: t.Description, Schema: t.Schema}
		switch e.kind {
		case KindMCP:
			ct.Path = []string{luaName(e.hub.Server), luaName(e.hub.Def.Name)}
			if ct.Path[0] != e.hub.Server || ct.Path[1] != e.hub.Def.Name {
				ct.Alias = []string{e.hub.Server, e.hub.Def.Name}
			}
			ct.OutputSchema = e.hub.Def.OutputSchema
			if e.hub.Def.Description == "" && e.hub.Def.Title != "" {
				ct.Description = e.hub.Def.Title
			}
		case KindLocal:
			key := luaName(t.Name)
			if servers[key] { // a server's table holds that name
				key = "_" + key
			}
			ct.Path = []string{key}
			if key != t.Name {
				ct.Alias = []string{t.Name}
			}
		default:
			continue
		}
		ct.Lua = luaPath(ct.Path)
		ct.Signature = signature(ct.Schema, ct.OutputSchema)
		out = append(out, ct)
	}
	return out
}

// luaName is s as a Lua identifier: other characters become _, a leading
// digit or a keyword gets an _.
func luaName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '_'
		}
	}
	out := string(b)
	if out == "" || out[0] >= '0' && out[0] <= '9' {
		out = "_" + out
	}
	if luaname.IsKeyword(out) {
		out += "_"
	}
	return out
}

func luaPath(p []string) string { return "tools." + strings.Join(p, ".") }

// codeDescription is run_lua's description: how to write a snippet, the
// limits, and the tools as Lua functions (short: one line each, without
// the signatures, for large catalogs).
func codeDescription(tools []CodeTool, short bool, lim CodeLimits) string {
	var b strings.Builder
	b.WriteString("Run a Lua 5.1 snippet that calls tools as functions, so that several dependent calls take one step and only what you return comes back. ")
	b.WriteString("tools.SERVER.TOOL{name = value, ...} calls a tool (through the same approval as a direct call) and returns its result: a table when the tool returns structured content, else its text as a string; ")
	b.WriteString("on failure or denial it returns nil, err (err.kind, err.message): check it. ")
	b.WriteString("The tool's result is what the snippet prints plus the values it returns, as JSON; keep it small. ")
	b.WriteString("Available: json.encode/json.decode, inspect(v), string, table, math, task.all{f1, f2, ...} (calls at once), help(tools.SERVER.TOOL) prints a tool's full schema. ")
	fmt.Fprintf(&b, "No files, network, environment or require. Limits per run: %s, %d instructions, %d MiB, %d tool calls; a Lua error comes back with its line: fix the code and run it again.\n",
		lim.Time, lim.Instructions, lim.MemoryBytes>>20, lim.ToolCalls)
	if len(tools) == 0 {
		b.WriteString("\nNo tools are available yet.")
		return b.String()
	}
	b.WriteString("\nTools:\n")
	for _, t := range tools {
		line := oneLine(t.Description)
		if short {
			fmt.Fprintf(&b, "%s", t.Lua)
		} else {
			fmt.Fprintf(&b, "%s%s", t.Lua, t.Signature)
		}
		if line != "" {
			fmt.Fprintf(&b, "  -- %s", line)
		}
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n")
}

// oneLine is a description's first line, at most 100 bytes.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	if len(s) > 100 {
		cut := 97
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut] + "..."
	}
	return s
}

// maxSignature bounds a signature; a longer one is left to help().
const maxSignature = 300

// signature is a tool's arguments and result in short, from its schemas:
// "{query=string, limit?=integer} -> {items={{title=string},...}}".
func signature(in, out json.RawMessage) string {
	args := "{}"
	if len(in) > 0 {
		if s := shape(in, 0); strings.HasPrefix(s, "{") {
			args = s
		}
	}
	res := "string"
	if len(out) > 0 {
		res = shape(out, 0)
	}
	sig := args + " -> " + res
	if len(sig) > maxSignature {
		if len(args) > maxSignature/2 {
			args = "{...}"
		}
		if len(res) > maxSignature/2 {
			res = "{...}"
		}
		sig = args + " -> " + res
	}
	return sig
}

// schemaNode is the part of a JSON Schema a shape shows.
type schemaNode struct {
	Type       json.RawMessage   `json:"type"`
	Properties json.RawMessage   `json:"properties"`
	Required   []string          `json:"required"`
	Items      json.RawMessage   `json:"items"`
	Enum       []json.RawMessage `json:"enum"`
	Const      json.RawMessage   `json:"const"`
	AnyOf      []json.RawMessage `json:"anyOf"`
	OneOf      []json.RawMessage `json:"oneOf"`
}

// shape renders a schema as a Lua-looking type: {a=number, b?=string},
// {string,...} for arrays, "x"|"y" for enums, any when it cannot say.
func shape(raw json.RawMessage, depth int) string {
	var n schemaNode
	if json.Unmarshal(raw, &n) != nil {
		return "any"
	}
	switch {
	case len(n.Const) > 0:
		return string(n.Const)
	case len(n.Enum) > 0:
		parts := make([]string, 0, len(n.Enum))
		for i, e := range n.Enum {
			if i == 6 {
				parts = append(parts, "...")
				break
			}
			parts = append(parts, string(e))
		}
		return strings.Join(parts, "|")
	case len(n.AnyOf) > 0 || len(n.OneOf) > 0:
		var parts []string
		for _, s := range append(n.AnyOf, n.OneOf...) {
			parts = append(parts, shape(s, depth))
		}
		return strings.Join(parts, "|")
	}
	var types []string
	var one string
	if json.Unmarshal(n.Type, &one) == nil {
		types = []string{one}
	} else {
		_ = json.Unmarshal(n.Type, &types)
	}
	if len(types) == 0 && len(n.Properties) > 0 {
		types = []string{"object"}
	}
	var parts []string
	for _, t := range types {
		switch t {
		case "object":
			parts = append(parts, objectShape(n, depth))
		case "array":
			if depth >= 3 {
				parts = append(parts, "{...}")
			} else if len(n.Items) > 0 {
				parts = append(parts, "{"+shape(n.Items, depth+1)+",...}")
			} else {
				parts = append(parts, "{any,...}")
			}
		case "null":
			parts = append(parts, "nil")
		default:
			parts = append(parts, t)
		}
	}
	if len(parts) == 0 {
		return "any"
	}
	return strings.Join(parts, "|")
}

func objectShape(n schemaNode, depth int) string {
	keys := orderedKeys(n.Properties)
	if len(keys) == 0 {
		return "table"
	}
	if depth >= 3 {
		return "{...}"
	}
	var props map[string]json.RawMessage
	_ = json.Unmarshal(n.Properties, &props)
	req := map[string]bool{}
	for _, r := range n.Required {
		req[r] = true
	}
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		name := k
		if luaName(k) != k {
			name = fmt.Sprintf("[%q]", k)
		}
		if !req[k] {
			name += "?"
		}
		parts = append(parts, name+"="+shape(props[k], depth+1))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// orderedKeys are an object's keys in the order written (a schema's
// properties read best in their author's order).
func orderedKeys(raw json.RawMessage) []string {
	var keys []string
	jsonscan.Members(raw, func(key, _ []byte) bool {
		k, ok := jsonscan.UnquoteSimple(key)
		if !ok {
			json.Unmarshal(key, &k)
		}
		keys = append(keys, k)
		return true
	})
	return keys
}
