package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/luagent/luagent/luabind/chat"
	"github.com/luagent/luagent/luabind/host"
	"github.com/luagent/luagent/luabind/value"
	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/secret"
	"github.com/luagent/luagent/runtime/visible"
)

// askOptions are `luagent ask`'s.
type askOptions struct {
	model   string
	agent   string   // --agent FILE
	servers []string // --server NAME...
	yes     bool
	json    bool
	code    bool // --code-mode
	prompt  []string
}

// askModel is the one place that decides which model `luagent ask` uses:
// --model, else LUAGENT_MODEL, else the catalog's "model", else the
// offline mock with a note saying so.
func askModel(flag string, getenv func(string) string, cfg *catalog.Config) (spec, note string) {
	if flag != "" {
		return flag, ""
	}
	if m := getenv("LUAGENT_MODEL"); m != "" {
		return m, ""
	}
	if cfg.DefaultModel != "" {
		return cfg.DefaultModel, ""
	}
	return "mock", "luagent: no model configured (--model, LUAGENT_MODEL or \"model\" in config.json); answering with the offline mock model"
}

// askChunk runs in the host: it builds (or loads) the agent, streams its
// answer to the Go sink and hands the outcome to the Go done function.
const askChunk = `
local o = luagent_ask
luagent_ask = nil
local function build()
local a
if o.agent_fn then
  -- --server: the agents the file makes on the catalog's hub start only
  -- those servers.
  if o.servers then agent.default_hub_options{ start = o.servers } end
  a = o.agent_fn()
  if type(a) == "table" and not agent.is(a) and agent.is(a[1]) then a = a[1] end
  if not agent.is(a) then
    error({ kind = "invalid", message = o.agent_file .. " must return an agent (return agent.new{...})" }, 0)
  end
  local changes = {}
  if o.model then changes.model = o.model end
  if o.servers then changes.servers = o.servers end
  if o.yes then changes.yes = true end
  if o.code_mode then changes.code_mode = true end
  if next(changes) then a = a:with(changes) end
else
  local h = mcp.hub{ start = o.servers } -- --server: only those are spawned
  for _, s in ipairs(h:status()) do
    if s.status == "failed" then o.warn(s.name .. " failed to start: " .. tostring(s.error)) end
  end
  a = agent.new{ name = "ask", model = o.model, hub = h, servers = o.servers, yes = o.yes, code_mode = o.code_mode }
end
return a
end
local built, a = task.pcall(build)
if not built then
  o.fail(a)
  return
end
local ok, text, transcript = task.pcall(a.stream, a, o.prompt, o.sink)
if ok then
  o.done(text, transcript)
else
  o.fail(text)
end
`

// runAsk is `luagent ask`.
func runAsk(o options, h *host.Host, stdin io.Reader, stdout, stderr io.Writer) int {
	a := o.ask
	prompt := strings.Join(a.prompt, " ")
	if prompt == "" {
		b, err := io.ReadAll(stdin)
		if err != nil {
			fmt.Fprintf(stderr, "luagent: cannot read the prompt from stdin: %v\n", err)
			return host.ExitError
		}
		prompt = strings.TrimSpace(string(b))
	}
	if prompt == "" {
		fmt.Fprintln(stderr, "luagent: ask needs a prompt: luagent ask \"what is in README.md?\" (or on stdin)")
		return host.ExitUsage
	}
	// One read of the catalog for the checks here (the hub reads it again
	// when it starts: that is the Lua side's own load).
	cfg, err := catalog.Load(catalog.Path(host.Home()))
	if err != nil {
		fmt.Fprintf(stderr, "luagent: %v\n", err)
		return host.ExitError
	}
	if len(a.servers) > 0 && a.agent == "" {
		for _, name := range a.servers {
			if !hasServer(cfg, name) {
				fmt.Fprintf(stderr, "luagent: no server %q in the catalog (luagent mcp list shows them)\n", name)
				return host.ExitUsage
			}
		}
	}
	L := h.L
	t := L.CreateTable(0, 10)
	t.RawSetString("prompt", lua.LString(prompt))
	if a.agent != "" {
		src, err := os.ReadFile(a.agent)
		if err != nil {
			fmt.Fprintf(stderr, "luagent: cannot read %s: %v\n", a.agent, unwrapPathError(err))
			return host.ExitError
		}
		fn, err := h.LoadAgentFile(src, a.agent)
		if err != nil {
			fmt.Fprintf(stderr, "luagent: %v\n", err)
			return host.ExitError
		}
		t.RawSetString("agent_fn", fn)
		t.RawSetString("agent_file", lua.LString(a.agent))
		if a.model != "" {
			t.RawSetString("model", lua.LString(a.model))
		}
	} else {
		spec, note := askModel(a.model, os.Getenv, cfg)
		if note != "" {
			fmt.Fprintln(stderr, note)
		}
		t.RawSetString("model", lua.LString(spec))
	}
	if len(a.servers) > 0 {
		st := L.CreateTable(len(a.servers), 0)
		for i, s := range a.servers {
			st.RawSetInt(i+1, lua.LString(s))
		}
		t.RawSetString("servers", st)
	}
	if a.yes {
		t.RawSetString("yes", lua.LTrue)
	}
	if a.code {
		t.RawSetString("code_mode", lua.LTrue)
	}
	p := &askPrinter{out: stdout, err: stderr, json: a.json, mask: secret.NewMasker(secrets())}
	t.RawSetString("sink", L.NewFunction(p.event))
	t.RawSetString("warn", L.NewFunction(func(L *lua.LState) int {
		fmt.Fprintln(stderr, "luagent: "+p.shown(L.CheckString(1)))
		return 0
	}))
	code := host.ExitOK
	t.RawSetString("done", L.NewFunction(func(L *lua.LState) int {
		p.finish(L.Get(2))
		return 0
	}))
	t.RawSetString("fail", L.NewFunction(func(L *lua.LState) int {
		code = p.failure(L, L.Get(1))
		return 0
	}))
	L.SetGlobal("luagent_ask", t)
	if rc := h.Run(context.Background(), host.Script{Src: []byte(askChunk), Name: "ask", Arg0: "ask"}); rc != host.ExitOK {
		return rc
	}
	return code
}

func hasServer(cfg *catalog.Config, name string) bool {
	for _, s := range cfg.Servers {
		if s.Name == name {
			return true
		}
	}
	return false
}

// secrets are the values never to print: the providers' keys.
func secrets() []string {
	var out []string
	for _, k := range []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY"} {
		if v := os.Getenv(k); len(v) >= 4 {
			out = append(out, v)
		}
	}
	return out
}

// askPrinter streams the answer to stdout and tool activity to stderr.
type askPrinter struct {
	out, err io.Writer
	json     bool
	mask     *secret.Masker // the providers' keys
	lastNL   bool           // the answer printed so far ends with a newline
	printed  bool
}

func (p *askPrinter) redact(s string) string { return p.mask.String(s) }

// shown is s for the terminal: the keys masked and its control
// characters visible, as everything a server or the model says is shown
// (only luagent's own styling may write escapes).
func (p *askPrinter) shown(s string) string { return visible.Text(p.redact(s)) }

func field(t *lua.LTable, k string) string {
	if t == nil {
		return ""
	}
	return lua.LVAsString(t.RawGetString(k))
}

// oneLine folds white space and shortens s to n runes.
var oneLine = chat.OneLine

func (p *askPrinter) event(L *lua.LState) int {
	ev := L.CheckTable(1)
	call, _ := ev.RawGetString("call").(*lua.LTable)
	name := field(call, "tool")
	if s := field(call, "server"); s != "" {
		name = s + " › " + name
	} else if name == "" {
		name = field(call, "name")
	}
	ind := "" // a call a run_lua snippet made shows under run_lua's line
	if field(call, "parent") != "" {
		ind = "  "
	}
	switch field(ev, "type") {
	case "text":
		if p.json {
			break
		}
		s := field(ev, "text")
		if s != "" {
			io.WriteString(p.out, p.shown(s))
			p.printed, p.lastNL = true, strings.HasSuffix(s, "\n")
		}
	case "tool_start":
		p.breakLine()
		args := ""
		if call != nil {
			if b, err := value.Encode(call.RawGetString("arguments"), value.EncodeOptions{}); err == nil && string(b) != "{}" && string(b) != "[]" {
				args = " " + oneLine(string(b), 100)
			}
		}
		fmt.Fprintf(p.err, "%s%s\n", ind, p.shown(name+args))
	case "approval":
		if field(call, "kind") == "sampling" {
			// A server asking the user's model is worth a line either way.
			fmt.Fprintln(p.err, p.shown(fmt.Sprintf("  %s asks the model (sampling): %s: %s", field(call, "server"), field(ev, "decision"), field(ev, "reason"))))
			break
		}
		if d := field(ev, "decision"); d != "allow" {
			fmt.Fprintf(p.err, "%s  %s: %s\n", ind, d, p.shown(field(ev, "reason")))
		}
	case "tool_progress":
		pr := field(ev, "progress")
		if tot := field(ev, "total"); tot != "" && tot != "nil" {
			pr += "/" + tot
		}
		msg := ""
		if m := field(ev, "message"); m != "" && m != "nil" {
			msg = " " + oneLine(m, 80)
		}
		fmt.Fprintf(p.err, "%s  … %s%s\n", ind, pr, p.shown(msg))
	case "tool_end":
		dur := ""
		if d, ok := ev.RawGetString("duration").(lua.LNumber); ok {
			dur = " " + roundDuration(time.Duration(float64(d)*float64(time.Second))).String()
		}
		if e, ok := ev.RawGetString("error").(*lua.LTable); ok {
			fmt.Fprintf(p.err, "%s  ✗%s %s\n", ind, dur, p.shown(oneLine(field(e, "message"), 100)))
			break
		}
		res, _ := ev.RawGetString("result").(*lua.LTable)
		mark, text := "✓", resultText(res)
		if res != nil && lua.LVAsBool(res.RawGetString("isError")) {
			mark = "✗"
		}
		fmt.Fprintf(p.err, "%s  %s%s %s\n", ind, mark, dur, p.shown(oneLine(text, 100)))
	}
	return 0
}

func resultText(res *lua.LTable) string {
	if res == nil {
		return ""
	}
	content, _ := res.RawGetString("content").(*lua.LTable)
	var parts []string
	if content != nil {
		for i := 1; i <= content.Len(); i++ {
			b, _ := content.RawGetInt(i).(*lua.LTable)
			if t := field(b, "type"); t == "text" {
				parts = append(parts, field(b, "text"))
			} else if t != "" {
				parts = append(parts, "["+t+"]")
			}
		}
	}
	return strings.Join(parts, " ")
}

// breakLine ends a line of answer text before tool activity interleaves.
func (p *askPrinter) breakLine() {
	if p.printed && !p.lastNL {
		io.WriteString(p.out, "\n")
		p.lastNL = true
	}
}

func (p *askPrinter) finish(transcript lua.LValue) {
	if p.json {
		p.printJSON(transcript)
		return
	}
	if p.printed && !p.lastNL {
		io.WriteString(p.out, "\n")
	}
}

func (p *askPrinter) printJSON(transcript lua.LValue) {
	b, err := value.Encode(transcript, value.EncodeOptions{Indent: "  "})
	if err != nil {
		fmt.Fprintf(p.err, "luagent: the transcript: %v\n", err)
		return
	}
	var check any
	if json.Unmarshal(b, &check) == nil {
		fmt.Fprintln(p.out, p.redact(string(b)))
	}
}

// failure prints why the ask failed, in one line with its kind, and
// returns the exit code.
func (p *askPrinter) failure(L *lua.LState, e lua.LValue) int {
	kind, msg := "error", lua.LVAsString(e)
	if t, ok := e.(*lua.LTable); ok {
		if k := field(t, "kind"); k != "" {
			kind = k
		}
		msg = field(t, "message")
		if tr := t.RawGetString("transcript"); p.json && tr != lua.LNil {
			p.printJSON(tr)
		}
	}
	if p.printed && !p.lastNL && !p.json {
		io.WriteString(p.out, "\n")
	}
	fmt.Fprintf(p.err, "luagent: %s: %s\n", kind, p.shown(oneLine(msg, 400)))
	return host.ExitError
}

// roundDuration keeps two or three significant digits: 1.2s, 15ms, 340µs.
var roundDuration = chat.RoundDuration
