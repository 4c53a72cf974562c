package types_test

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/luagent/luagent/luabind/host"
	"github.com/luagent/luagent/runtime/testkit"
	lua "github.com/yuin/gopher-lua"
)

// The test binary doubles as the tiny MCP server the comparison connects
// to: with LUAGENT_STUBS_SERVE=FILE it serves FILE over stdio, with a
// members(v) global that lists what a value offers.
func TestMain(m *testing.M) {
	if script := os.Getenv("LUAGENT_STUBS_SERVE"); script != "" {
		os.Exit(serveProbe(script))
	}
	os.Exit(m.Run())
}

func serveProbe(script string) int {
	src, err := os.ReadFile(script)
	if err != nil {
		return 1
	}
	h := host.New(host.Config{Clean: true, Stdout: os.Stderr, Stderr: os.Stderr})
	defer h.Close()
	h.L.SetGlobal("members", h.L.NewFunction(func(L *lua.LState) int {
		ms, ok := members(L.Get(1))
		if !ok {
			return 0 // an __index function: nothing to list
		}
		t := L.CreateTable(0, len(ms))
		for k, v := range ms {
			t.RawSetString(k, lua.LString(v))
		}
		L.Push(t)
		return 1
	}))
	return h.Serve(context.Background(), host.Script{Src: src, Name: script}, os.Stdin, os.Stdout)
}

// probeServer has one of each kind, and a tool that reports what its
// handler's ctx has.
const probeServer = `
local s = mcp.server{ name = "probe", version = "1.0.0", instructions = "a probe" }
s:tool{ name = "probe", description = "what ctx offers", input = { names = "string[]" },
  annotations = { readOnlyHint = true },
  handler = function(args, ctx)
    local types = {}
    for _, n in ipairs(args.names) do types[n] = type(ctx[n]) end
    return { members = members(ctx), types = types, client = ctx.client }
  end }
s:resource{ uri = "probe://r", name = "r", mimeType = "text/plain", read = function() return "r" end }
s:template{ uriTemplate = "probe://t/{id}", name = "t", read = function(v) return v.id end,
  complete = { id = function() return { "1", "2" } end } }
s:prompt{ name = "p", description = "a prompt", arguments = { { name = "topic", required = true } },
  get = function(a) return "about " .. a.topic end }
return s
`

// objects builds one value of every kind the stubs describe, in a real
// luagent state, and returns them by name.
const objects = `
local O = {}
O.modules = {}
for _, name in ipairs(MODULES) do O.modules[name] = require(name) end
local server = { command = PROBE, env = { LUAGENT_STUBS_SERVE = PROBE_SCRIPT } }
local h = mcp.hub{ servers = { probe = server }, wait = true }
O.hub, O.status, O.hub_tool = h, h:status()[1], h:tools()[1]
local c = mcp.connect(server)
O.conn, O.info, O.tools = c, c:info(), c:tools()
O.call = c:call("probe", { names = CTX_NAMES })
O.ctx = O.call.structuredContent
O.resources, O.templates, O.prompts = c:resources(), c:templates(), c:prompts()
O.read = c:read("probe://r")
O.prompt = c:prompt("p", { topic = "x" })
O.completion = c:complete({ type = "ref/resource", uri = "probe://t/{id}" }, { name = "id", value = "" })
local ok, err = task.pcall(c.call, c, "no_such_tool")
O.error = err
c:close()
h:close()
O.server = mcp.server{ name = "x" }
local cat = mcp.catalog(CATALOG)
cat:add("stdio", { command = "x", args = { "a" }, env = { K = "v" }, cwd = "/", startupTimeoutSeconds = 5,
  requestTimeoutSeconds = 5, protocol = "auto", logLevel = "info" })
cat:add("http", { url = "http://127.0.0.1:1/mcp", headers = { X = "y" } })
O.catalog, O.entries = cat, cat:list()
O.handle = task.spawn(function() end)
O.queue = task.queue()
O.events = {}
local a = agent.new{ model = "mock", hub = false, name = "probe", description = "a probe",
  tools = { { name = "now", description = "the time now", input = {}, handler = function() return { time = "noon" } end } },
  approve = function(call) O.policy_call = call return "allow", "fine" end,
  hooks = {
    before_tool = function(call) O.hook_call = call end,
    after_tool = function(_, result) O.result = result end,
    before_model = function(req) O.request = req end,
    after_model = function(resp) O.response = resp end } }
O.agent = a
O.text, O.transcript = a:ask("what is the time now", { on_event = function(e) O.events[#O.events + 1] = e end })
O.messages = a:messages()
O.model = agent.model("mock")
O.model_reply = O.model:complete{ messages = { { role = "user", content = "hi" } } }
return O
`

// notCompared are classes of tables luagent reads (options, definitions,
// callbacks' answers) or that only peers produce: nothing at run time
// lists their keys.
var notCompared = []string{
	"json.Null", "inspect.Options",
	"mcp.Result", "mcp.Annotations", "mcp.CompleteRef", "mcp.Root", "mcp.OAuthOptions", "mcp.IdentityProvider",
	"mcp.ConnectOptions", "mcp.Progress", "mcp.CallOptions", "mcp.ServerEntry", "mcp.HubOptions",
	"mcp.SearchOptions", "mcp.HubCallOptions", "mcp.HubItem", "mcp.ServerOptions", "mcp.ToolDef",
	"mcp.ResourceDef", "mcp.TemplateDef", "mcp.PromptArgument", "mcp.PromptDef", "mcp.SkillDef", "mcp.HTTPRequest",
	"mcp.AuthOptions", "mcp.ElicitRequest", "mcp.ElicitURLRequest", "mcp.ElicitResult",
	"mcp.SampleRequest", "mcp.SampleResult", "mcp.AskSpec",
	"agent.ToolDef", "agent.Hooks", "agent.Options", "agent.CompleteRequest", "agent.Param", "agent.Binding", "agent.CodeMode", "agent.ModelConfig",
	"agent.Permissions", "agent.Rule", // read by agent.new; the rule a call carries only when a rule matched
	// Only a server publishing skills lists them (luabind/mod/mcp's
	// skills_test.lua checks their keys).
	"mcp.Skill", "mcp.HubSkill",
}

// The stubs name exactly what the modules define: every function of every
// module table and of every object's metatable is documented, every
// documented function and field exists (functions as functions), and the
// tables luagent hands out (info, status, transcript, events, the call the
// policy sees, ...) carry no key the stubs leave out.
func TestStubsMatchModules(t *testing.T) {
	s := parseStubs(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "probe.lua")
	if err := os.WriteFile(script, []byte(probeServer), 0o644); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out := &testkit.Buffer{}
	// ScriptDir away from this folder: require would find the stubs here
	// before the embedded inspect and help.
	h := host.New(host.Config{Home: dir, Clean: true, ScriptDir: dir, Stdout: out, Stderr: out})
	defer h.Close()
	L := h.L
	var modules []string
	for _, c := range s.classes {
		if c.global != "" {
			modules = append(modules, c.global)
		}
	}
	sort.Strings(modules)
	L.SetGlobal("MODULES", strList(L, modules))
	ctxClass := s.classes["mcp.Context"]
	if ctxClass == nil {
		t.Fatal("no mcp.Context class in the stubs")
	}
	L.SetGlobal("CTX_NAMES", strList(L, keys(union(ctxClass.fields, ctxClass.methods))))
	L.SetGlobal("PROBE", lua.LString(self))
	L.SetGlobal("PROBE_SCRIPT", lua.LString(script))
	L.SetGlobal("CATALOG", lua.LString(filepath.Join(dir, "catalog.json")))
	fn, err := h.Load([]byte(objects), "objects.lua")
	if err != nil {
		t.Fatal(err)
	}
	task := h.RunTask(context.Background(), fn, nil, "objects")
	if f := task.Failure(); f != nil {
		t.Fatalf("building the objects: %s\n%s\noutput:\n%s", f.Message, f.Traceback, out)
	}
	O := task.Results()[0].(*lua.LTable)
	get := func(path string) lua.LValue {
		var v lua.LValue = O
		for _, k := range strings.Split(path, ".") {
			v = L.GetField(v, k)
		}
		return v
	}

	checked := map[string]bool{}
	// Modules and objects: both directions.
	objectsOf := map[string]string{
		"task.Handle": "handle", "task.Queue": "queue", "mcp.Conn": "conn", "mcp.Hub": "hub", "mcp.Catalog": "catalog",
		"mcp.Server": "server", "agent.Agent": "agent", "agent.Model": "model",
	}
	for _, c := range s.classes {
		if c.global != "" {
			objectsOf[c.name] = "modules." + c.global
		}
	}
	for class, path := range objectsOf {
		c := s.classes[class]
		if c == nil {
			t.Errorf("the stubs have no class %s", class)
			continue
		}
		checked[class] = true
		ms, ok := members(get(path))
		if !ok {
			t.Errorf("%s (%s): its members cannot be listed", class, path)
			continue
		}
		compare(t, class, c, ms)
	}

	// The request context: listed when its __index is a table, else each
	// documented name looked up (a method added to it is not caught then).
	checked["mcp.Context"] = true
	found := map[string]string{}
	listed, ok := get("ctx.members").(*lua.LTable)
	if !ok {
		listed = get("ctx.types").(*lua.LTable)
	}
	listed.ForEach(func(k, v lua.LValue) {
		if v.String() != "nil" {
			found[k.String()] = v.String()
		}
	})
	if ok {
		compare(t, "mcp.Context", ctxClass, found)
	} else {
		compareKnown(t, "mcp.Context", ctxClass, found)
	}

	// Tables handed out: every key they carry is documented.
	shapes := map[string][]string{
		"mcp.ConnInfo":           {"info"},
		"mcp.ServerStatus":       {"status"},
		"mcp.HubTool":            {"hub_tool"},
		"mcp.Tool":               {"tools.*"},
		"mcp.CallResult":         {"call"},
		"mcp.Content":            {"call.content.*", "result.content.*"},
		"mcp.ClientInfo":         {"ctx.client"},
		"mcp.Resource":           {"resources.*"},
		"mcp.ResourceTemplate":   {"templates.*"},
		"mcp.Prompt":             {"prompts.*"},
		"mcp.PromptArgumentInfo": {"prompts.*.arguments.*"},
		"mcp.ReadResult":         {"read"},
		"mcp.ResourceContents":   {"read.contents.*"},
		"mcp.PromptResult":       {"prompt"},
		"mcp.PromptMessage":      {"prompt.messages.*"},
		"mcp.Completion":         {"completion"},
		"mcp.CatalogEntry":       {"entries.*"},
		"luagent.Error":          {"error"},
		"agent.Call":             {"policy_call", "hook_call", "events.*.call"},
		"agent.Result":           {"result", "events.*.result", "transcript.tool_calls.*.result"},
		"agent.Request":          {"request"},
		"agent.Response":         {"response", "model_reply"},
		"agent.Transcript":       {"transcript"},
		"agent.Turn":             {"transcript.turns.*"},
		"agent.ToolCallRecord":   {"transcript.tool_calls.*"},
		"agent.Message":          {"messages.*", "transcript.messages.*", "request.messages.*"},
		"agent.Part":             {"messages.*.parts.*"},
		"agent.ToolCall":         {"messages.*.tool_calls.*"},
		"agent.Usage":            {"transcript.usage", "transcript.turns.*.usage", "response.usage"},
		"agent.Event":            {"events.*"},
	}
	for class, paths := range shapes {
		if s.classes[class] == nil {
			t.Errorf("the stubs have no class %s", class)
			continue
		}
		checked[class] = true
		doc := s.fieldsOf(class)
		seen, reported := 0, map[string]bool{}
		for _, p := range paths {
			for _, v := range walk(O, strings.Split(p, ".")) {
				tb, ok := v.(*lua.LTable)
				if !ok {
					continue
				}
				seen++
				tb.ForEach(func(k, _ lua.LValue) {
					if ks, ok := k.(lua.LString); ok && !doc[string(ks)] && !reported[string(ks)] {
						reported[string(ks)] = true
						t.Errorf("%s: the key %q (at %s) is not documented (add a ---@field to %s)", class, ks, p, s.classes[class].file)
					}
				})
			}
		}
		if seen == 0 {
			t.Errorf("%s: no table found at %v to compare", class, paths)
		}
	}

	// Every class is compared, or listed as one that cannot be.
	for _, n := range notCompared {
		if s.classes[n] == nil {
			t.Errorf("notCompared names %s, which the stubs do not define", n)
		}
		checked[n] = true
	}
	for name := range s.classes {
		if !checked[name] {
			t.Errorf("class %s is neither compared with the modules nor listed in notCompared", name)
		}
	}
}

// compare checks both directions: runtime members are documented, and
// documented names exist with the right kind.
func compare(t *testing.T, class string, c *class, runtime map[string]string) {
	t.Helper()
	for name, ty := range runtime {
		switch {
		case ty == "function" && !c.methods[name] && !c.fields[name]:
			t.Errorf("%s: %s() exists but has no stub (add it to %s)", class, name, c.file)
		case ty != "function" && !c.fields[name] && !c.methods[name]:
			t.Errorf("%s: the field %s exists but has no stub (add a ---@field to %s)", class, name, c.file)
		}
	}
	compareKnown(t, class, c, runtime)
}

// compareKnown checks that each documented name exists, functions as
// functions and fields as non-functions.
func compareKnown(t *testing.T, class string, c *class, runtime map[string]string) {
	t.Helper()
	for name := range c.methods {
		if ty, ok := runtime[name]; !ok {
			t.Errorf("%s: %s() is documented but does not exist", class, name)
		} else if ty != "function" {
			t.Errorf("%s: %s is documented as a function but is a %s", class, name, ty)
		}
	}
	for name := range c.fields {
		if ty, ok := runtime[name]; !ok {
			t.Errorf("%s: the field %s is documented but does not exist", class, name)
		} else if ty == "function" {
			t.Errorf("%s: %s is documented as a field but is a function", class, name)
		}
	}
}

// members lists v's public members and their types: a table's string
// keys and those of the tables its metatable's __index leads to; a
// userdata's the same from its metatable. Metatables are read raw, past a
// __metatable lock. ok is false when an __index is a function.
func members(v lua.LValue) (map[string]string, bool) {
	out := map[string]string{}
	seen := map[*lua.LTable]bool{}
	for v != nil {
		var mt lua.LValue
		switch x := v.(type) {
		case *lua.LTable:
			if seen[x] {
				return out, true
			}
			seen[x] = true
			x.ForEach(func(k, val lua.LValue) {
				if ks, ok := k.(lua.LString); ok && !strings.HasPrefix(string(ks), "_") {
					if _, dup := out[string(ks)]; !dup {
						out[string(ks)] = val.Type().String()
					}
				}
			})
			mt = x.Metatable
		case *lua.LUserData:
			mt = x.Metatable
		default:
			return nil, false
		}
		m, ok := mt.(*lua.LTable)
		if !ok {
			return out, true
		}
		switch idx := m.RawGetString("__index").(type) {
		case *lua.LTable:
			v = idx
		case *lua.LNilType:
			return out, true
		default:
			return nil, false
		}
	}
	return out, true
}

// walk follows path from v; "*" stands for every element of a list.
func walk(v lua.LValue, path []string) []lua.LValue {
	if len(path) == 0 {
		return []lua.LValue{v}
	}
	tb, ok := v.(*lua.LTable)
	if !ok {
		return nil
	}
	if path[0] != "*" {
		return walk(tb.RawGetString(path[0]), path[1:])
	}
	var out []lua.LValue
	for i := 1; i <= tb.Len(); i++ {
		out = append(out, walk(tb.RawGetInt(i), path[1:])...)
	}
	return out
}

func strList(L *lua.LState, ss []string) *lua.LTable {
	t := L.CreateTable(len(ss), 0)
	for i, s := range ss {
		t.RawSetInt(i+1, lua.LString(s))
	}
	return t
}

func union(a, b map[string]bool) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
