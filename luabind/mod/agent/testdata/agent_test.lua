-- agent.new, a:ask, a:stream, the policy and hooks, from Lua, with the mock
-- and Lua-function models over a Lua MCP server.

local function the_hub()
  return mcp.hub{ servers = { notes = { command = LUAGENT, args = { "serve", SERVER }, startupTimeoutSeconds = 20 } } }
end

local scripted = require("scripted") -- a Lua model that records its requests

test("mock: calls the server's read-only tool and quotes the result", function()
  local h = the_hub()
  local a = agent.new{ model = "mock", hub = h }
  local text, tr = a:ask("echo a message")
  expect.match(text, "echo: example", true)
  expect.eq(tr["end"], "answer")
  expect.eq(tr.tool_calls[1].name, "notes__echo")
  expect.eq(tr.tool_calls[1].server, "notes")
  expect.eq(tr.tool_calls[1].decision, "allow")
  expect.eq(tr.model, "mock")
  h:close()
end)

test("a Lua function model: its tool call reaches the server; the result reaches the model", function()
  local h = the_hub()
  local model, seen = scripted{
    { tool_calls = { { name = "notes__echo", arguments = { message = "hi" } } } },
  }
  local a = agent.new{ model = model, hub = h, system = "be brief" }
  local text, tr = a:ask("say hi")
  expect.eq(text, "done")
  expect.eq(#seen, 2)
  expect.match(seen[1].system, "be brief", true)
  expect.match(seen[1].system, "Echo repeats", true) -- the server's instructions
  local names = {}
  for _, t in ipairs(seen[1].tools) do names[t.name] = true end
  expect.truthy(names.notes__echo and names.notes__write)
  local last = seen[2].messages[#seen[2].messages]
  expect.eq(last.role, "tool")
  expect.eq(last.parts[1].text, "echo: hi")
  expect.eq(tr.tool_calls[1].result.content[1].text, "echo: hi")
  h:close()
end)

test("a mutating tool is denied with nobody to ask, and runs with yes", function()
  local h = the_hub()
  local write = { { tool_calls = { { name = "notes__write", arguments = { text = "x" } } } } }
  local a = agent.new{ model = (scripted(write)), hub = h }
  local _, tr = a:ask("write x")
  expect.eq(tr.tool_calls[1].decision, "deny")
  expect.match(tr.tool_calls[1].reason, "--yes", true)
  expect.eq(h:call("notes__notes", {}).content[1].text, "")
  local b = agent.new{ model = (scripted(write)), hub = h, yes = true }
  _, tr = b:ask("write x")
  expect.eq(tr.tool_calls[1].decision, "allow")
  expect.eq(h:call("notes__notes", {}).content[1].text, "x")
  h:close()
end)

test("approve: a Lua policy decides, and may wait", function()
  local h = the_hub()
  local asked = {}
  local a = agent.new{ model = (scripted{ { tool_calls = {
      { name = "notes__write", arguments = { text = "ok" } },
      { name = "notes__echo", arguments = { message = "no" } } } } }),
    hub = h,
    approve = function(call)
      task.sleep(0.001)
      asked[#asked + 1] = call.tool
      if call.tool == "write" then return "allow", "writes are fine" end
      return "deny", "no echoes today"
    end }
  local _, tr = a:ask("go")
  table.sort(asked)
  expect.eq(asked, { "echo", "write" })
  local by = {}
  for _, c in ipairs(tr.tool_calls) do by[c.tool] = c end
  expect.eq(by.write.decision, "allow")
  expect.eq(by.echo.decision, "deny")
  expect.eq(by.echo.reason, "no echoes today")
  h:close()
end)

test("permissions: rules decide before the policy, which sees call.rule and may still refuse", function()
  local h = the_hub()
  local seen = {}
  local a = agent.new{ model = (scripted{ { tool_calls = {
      { name = "notes__write", arguments = { text = "ok" } },
      { name = "notes__write", arguments = { text = "veto" } },
      { name = "notes__echo", arguments = { message = "no" } } } } }),
    hub = h,
    permissions = { allow = { "mcp__notes__write" }, deny = { "notes__echo(message:n*)" } },
    approve = function(call)
      seen[#seen + 1] = call.rule
      if call.arguments.text == "veto" then return "deny", "the policy refuses" end
      return agent.default_policy(call)
    end }
  local _, tr = a:ask("go")
  local by = {}
  for _, c in ipairs(tr.tool_calls) do by[c.tool .. ":" .. (c.arguments.text or c.arguments.message)] = c end
  expect.eq(by["write:ok"].decision, "allow")
  expect.eq(by["write:ok"].reason, "allowed by the rule mcp__notes__write (agent.new)")
  expect.eq(by["write:veto"].reason, "the policy refuses")
  expect.eq(by["echo:no"].reason, "denied by the rule notes__echo(message:n*) (agent.new)")
  expect.eq(#seen, 2) -- a deny rule never reaches the policy
  expect.eq(seen[1], { verdict = "allow", pattern = "mcp__notes__write", source = "agent.new" })
  local ok, err = pcall(agent.new, { hub = false, permissions = { allow = { "fs x" } } })
  expect.eq(ok, false)
  expect.match(tostring(err.message or err), 'permissions.allow[1]: "fs x"', true)
  ok, err = pcall(agent.new, { hub = false, permissions = { allwo = {} } })
  expect.match(tostring(err.message or err), "its lists are allow, ask and deny", true)
  h:close()
end)

test("hooks: before_tool rewrites arguments, after_tool the result; model hooks see each turn", function()
  local h = the_hub()
  local turns, answers = 0, 0
  local a = agent.new{ model = (scripted{ { tool_calls = { { name = "notes__echo", arguments = { message = "hi" } } } } }),
    hub = h,
    hooks = {
      before_tool = function(call) call.arguments.message = "rewritten" end,
      after_tool = function(call, result) result.content[1].text = result.content[1].text .. "!" end,
      before_model = function(req) turns = turns + 1; req.system = "changed" end,
      after_model = function(resp) answers = answers + 1 end,
    } }
  local _, tr = a:ask("go")
  expect.eq(tr.tool_calls[1].arguments.message, "rewritten")
  expect.eq(tr.messages[#tr.messages - 1].parts[1].text, "echo: rewritten!")
  expect.eq(turns, 2)
  expect.eq(answers, 2)
  h:close()
end)

test("before_tool returning false denies the call with its reason", function()
  local a = agent.new{ model = (scripted{ { tool_calls = { { name = "add", arguments = { a = 1, b = 2 } } } } }),
    hub = false,
    tools = { { name = "add", input = { a = "number", b = "number" }, annotations = { readOnlyHint = true },
      handler = function(args) return args.a + args.b end } },
    hooks = { before_tool = function() return false, "not now" end } }
  local _, tr = a:ask("add")
  expect.match(tr.tool_calls[1].error or tr.tool_calls[1].reason, "not now", true)
end)

test("local Lua tools: the schema shorthand, results, errors", function()
  local model, seen = scripted{
    { tool_calls = { { name = "add", arguments = { a = 2, b = 3 } }, { name = "boom", arguments = {} } } },
  }
  local a = agent.new{ model = model, hub = false, tools = {
    { name = "add", description = "Add", input = { a = "number", b = "number" },
      annotations = { readOnlyHint = true }, handler = function(args) return tostring(args.a + args.b) end },
    { name = "boom", annotations = { readOnlyHint = true }, handler = function() error("it broke") end },
  } }
  local _, tr = a:ask("add 2 and 3")
  local tools = {}
  for _, t in ipairs(seen[1].tools) do tools[t.name] = t end
  expect.eq(tools.add.schema.properties.a.type, "number")
  expect.eq(tools.add.schema.required, { "a", "b" })
  local by = {}
  for _, c in ipairs(tr.tool_calls) do by[c.name] = c end
  expect.eq(by.add.result.content[1].text, "5")
  expect.match(by.boom.error, "it broke", true)
end)

test("stream: events arrive in order, all before it returns", function()
  local h = the_hub()
  local types, text = {}, {}
  local a = agent.new{ model = "mock", hub = h }
  local answer = a:stream("echo something", function(ev)
    types[#types + 1] = ev.type
    if ev.type == "text" then text[#text + 1] = ev.text end
    if ev.type == "tool_end" then expect.truthy(ev.duration >= 0); expect.eq(ev.call.server, "notes") end
  end)
  expect.eq(table.concat(text), answer)
  expect.eq(types[1], "tool_start")
  expect.eq(types[#types], "end")
  local seen = {}
  for _, t in ipairs(types) do seen[t] = true end
  expect.truthy(seen.approval and seen.tool_end and seen.text)
  h:close()
end)

test("the conversation persists across asks until reset", function()
  local model, seen = scripted{ { text = "one" }, { text = "two" }, { text = "three" } }
  local a = agent.new{ model = model, hub = false }
  a:ask("first")
  a:ask("second")
  expect.eq(#seen[2].messages, 3)
  a:reset()
  a:ask("third")
  expect.eq(#seen[3].messages, 1)
  expect.eq(#a:messages(), 2)
end)

test("max_turns stops a model that never answers; the error keeps the kind and the transcript", function()
  local a = agent.new{ hub = false, max_turns = 3,
    model = function() return { tool_calls = { { name = "again" } } } end,
    tools = { { name = "again", annotations = { readOnlyHint = true }, handler = function() return "more" end } } }
  local ok, err = task.pcall(a.ask, a, "loop")
  expect.falsy(ok)
  expect.eq(err.kind, "limit")
  expect.eq(err.transcript["end"], "max_turns")
  expect.eq(#err.transcript.turns, 3)
end)

test("a Lua model that fails: the ask fails with its message", function()
  local a = agent.new{ hub = false, model = function() error("model down") end }
  local err = expect.error(function() a:ask("x") end)
  expect.match(tostring(err), "model down", true)
end)

test("agent.model: direct completion calls", function()
  local m = agent.model("mock")
  expect.eq(m:name(), "mock")
  local r = m:complete{ messages = { { role = "user", content = "hello there" } } }
  expect.match(r.text, "hello there", true)
  local f = agent.model(function(req) return { text = "n=" .. #req.messages .. " " .. req.system } end)
  expect.eq(f:complete{ system = "s", messages = { { content = "a" } } }.text, "n=1 s")
  local err = expect.error(function() agent.model("nosuch:thing") end)
  expect.truthy(err.kind)
end)

test("agent.new checks its options", function()
  expect.error(function() agent.new("mock") end)
  expect.error(function() agent.new{ hub = false, model = 42 } end)
  expect.error(function() agent.new{ hub = false, tools = { { name = "x" } } } end)
end)

test("the default policy is runtime/approval.Default, not a copy", function()
  local native = require("agent._native")
  expect.eq(agent.default_policy, native.default_approve)
  local calls = {
    { tool = "read", annotations = { readOnlyHint = true } },
    { tool = "write", annotations = { readOnlyHint = false } },
    { tool = "w2", annotations = { destructiveHint = true } },
    { tool = "plain", annotations = {} },
    { tool = "titled", annotations = { title = "T", readOnlyHint = true, openWorldHint = true } },
    { tool = "sampling/createMessage", kind = "sampling", server = "notes" },
  }
  for _, c in ipairs(calls) do
    local d1, r1 = agent.default_policy(c)
    local d2, r2 = native.default_approve(c)
    expect.eq({ d1, r1 }, { d2, r2 })
  end
  expect.eq(agent.default_policy(calls[1]), "allow")
  expect.eq(agent.default_policy(calls[2]), "ask")
  expect.eq(agent.default_policy(calls[6]), "ask")
end)

test("sampling: a server with sampling = true asks the agent's model through its policy", function()
  local h = mcp.hub{ servers = { notes = { command = LUAGENT, args = { "serve", SERVER }, startupTimeoutSeconds = 20, sampling = true } } }
  local seen = {}
  local model = function(req)
    seen[#seen + 1] = req
    if req.system == "one line" then return { text = "short" } end
    if #seen == 1 then return { tool_calls = { { name = "notes__summarize", arguments = { text = "a long story" } } } } end
    return { text = "done" }
  end
  local asked, allow_sampling = {}, true
  local policy = function(call)
    asked[#asked + 1] = call
    if call.kind == "sampling" then return allow_sampling and "allow" or "deny", "sampling decided by the test" end
    return agent.default_policy(call)
  end
  local a = agent.new{ model = model, hub = h, approve = policy }
  local _, tr = a:ask("summarize")
  expect.eq(tr.tool_calls[1].result.content[1].text, "model said: short")
  expect.eq(#asked, 2)
  expect.eq(asked[2].kind, "sampling")
  expect.eq(asked[2].server, "notes")
  expect.eq(asked[2].arguments.messages[1].content.text, "summarize: a long story")
  expect.eq(seen[2].messages[1].parts[1].text, "summarize: a long story")

  -- denied: the server's tool fails with the policy's reason; no sampling call
  allow_sampling = false
  seen = {}
  a:reset()
  _, tr = a:ask("summarize")
  expect.match(tr.tool_calls[1].error, "sampling decided by the test", true)
  expect.eq(#seen, 2) -- the two agent turns, no sampling call
  h:close()
end)

test("a:with: a new agent with options changed", function()
  local write = function() return { tool_calls = { { name = "write", arguments = {} } } } end
  local n = 0
  local a = agent.new{ name = "w", hub = false, model = function(req)
      if #req.messages == 1 then return write() end
      return { text = "done" }
    end,
    tools = { { name = "write", handler = function() n = n + 1; return "ok" end } } }
  local _, tr = a:ask("go")
  expect.eq(tr.tool_calls[1].decision, "deny")
  local b = a:with{ yes = true }
  expect.eq(b.name, "w")
  _, tr = b:ask("go")
  expect.eq(tr.tool_calls[1].decision, "allow")
  expect.eq(n, 1)
end)

test("max_cost stops after the response that reaches it; the transcript keeps the cost", function()
  local a = agent.new{ hub = false, max_cost = 0.5, price = { input = 0, output = 100000 },
    model = function() return { tool_calls = { { name = "again" } }, usage = { input_tokens = 10, output_tokens = 2 } } end,
    tools = { { name = "again", annotations = { readOnlyHint = true }, handler = function() return "more" end } } }
  local ok, err = task.pcall(a.ask, a, "spend")
  expect.falsy(ok)
  expect.eq(err.kind, "limit")
  expect.eq(err.transcript["end"], "max_cost")
  expect.eq(#err.transcript.turns, 3) -- 0.2 a turn: 0.6 >= 0.5 after the third
  expect.truthy(math.abs(err.transcript.cost_usd - 0.6) < 1e-9)
  local c = a:costs()
  expect.truthy(math.abs(c.total_cost_usd - 0.6) < 1e-9)
  expect.eq(c.models.lua.requests, 3)
  expect.error(function() agent.new{ hub = false, model = "mock", max_cost = -1 } end)
end)

test("a model with no known price: cost unknown, and max_cost refuses to run", function()
  local _, tr = agent.new{ hub = false, model = "mock" }:ask("hello")
  expect.eq(tr.cost_unknown, true)
  local ok, err = task.pcall(function() return agent.new{ hub = false, model = "mock", max_cost = 1 }:ask("hello") end)
  expect.falsy(ok)
  expect.eq(err.kind, "invalid")
end)

test("a subagent's requests count in its parent's cost (agents = {})", function()
  local inner = agent.new{ name = "helper", hub = false, price = { output = 100000 }, -- 0.1 a token
    model = function() return { text = "done", usage = { input_tokens = 1, output_tokens = 2 } } end }
  local n = 0
  local outer = agent.new{ name = "boss", hub = false, price = { output = 10000 }, agents = { inner }, -- 0.01 a token
    model = function()
      n = n + 1
      if n == 1 then return { tool_calls = { { name = "helper", arguments = { prompt = "help" } } }, usage = { output_tokens = 1 } } end
      return { text = "ok", usage = { output_tokens = 1 } }
    end }
  local _, tr = outer:ask("go")
  expect.eq(tr.tool_calls[1].name, "helper")
  expect.truthy(math.abs(tr.cost_usd - (0.02 + 0.2)) < 1e-9)
  expect.truthy(math.abs(outer:costs().total_cost_usd - 0.22) < 1e-9)
end)
