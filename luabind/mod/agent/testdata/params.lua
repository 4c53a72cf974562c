-- Agents' params, bindings, agents as tools and agent.server, from Lua
-- (run by TestParams with --set cli_name=from-cli and --set-json
-- cli_list=[1,2]).
local scripted = require("scripted")

test("params: the command line wins, then the defaults; required ones must have a value", function()
  local f = os.tmpname()
  local h = io.open(f, "w"); h:write("from-file\n"); h:close()
  local model, seen = scripted{ { tool_calls = { { name = "show", arguments = {} } } } }
  local got
  local a = agent.new{ model = model, hub = false, yes = true,
    params = {
      { name = "cli_name", default = { value = "unused" } },
      { name = "from_file", default = { file = f } },
      { name = "from_value", default = { value = 42 } },
      { name = "from_env", default = { env = "PATH" } },
      { name = "absent" },
    },
    tools = { { name = "show", input = { a = "string?", b = "string?", c = "number?", d = "string?", e = "integer[]?" },
      handler = function(args) got = args; return "ok" end } },
    bindings = {
      { tool = "show", arg = "a", value = { param = "cli_name" } },
      { tool = "show", arg = "b", value = { param = "from_file" } },
      { tool = "s*", arg = "c", value = { param = "from_value" } },
      { tool = "show", arg = "d", value = "literal" },
      { tool = "show", arg = "e", value = { param = "cli_list" } },
    },
  }
  a:ask("show")
  os.remove(f)
  expect.eq(got.a, "from-cli")
  expect.eq(got.b, "from-file")
  expect.eq(got.c, 42)
  expect.eq(got.d, "literal")
  expect.eq(#got.e, 2)
  -- the bound arguments are not offered to the model
  expect.eq(next(seen[1].tools[1].schema.properties or {}), nil)

  local ok, err = task.pcall(agent.new, { model = "mock", hub = false, params = { { name = "needed", required = true } } })
  expect.falsy(ok)
  expect.eq(err.kind, "invalid")
  expect.match(err.message, "the parameter needed is required", true)
  ok, err = task.pcall(agent.new, { model = "mock", hub = false, bindings = { { tool = "x", arg = "y", value = { param = "nope" } } } })
  expect.falsy(ok)
  expect.match(err.message, "needs the parameter nope", true)
end)

test("agents: another agent is a tool, asked in a fresh conversation", function()
  local inner = agent.new{ name = "echo bot", description = "Echoes", model = "mock", hub = false }
  local outer = agent.new{ name = "boss", model = "mock", hub = false, agents = { inner } }
  local text, tr = outer:ask("ask the echo bot")
  expect.eq(tr.tool_calls[1].name, "echo_bot")
  expect.match(text, "mock: example", true)
  local ok, err = task.pcall(agent.new, { model = "mock", hub = false, agents = { inner },
    tools = { { name = "echo_bot", handler = function() end } } })
  expect.falsy(ok)
  expect.match(err.message, "as another of the agent's tools", true)
  -- a chain deeper than 8 is refused
  local a = inner
  for i = 1, 7 do a = agent.new{ name = "level" .. i, model = "mock", hub = false, agents = { a } } end
  ok, err = task.pcall(agent.new, { model = "mock", hub = false, agents = { a } })
  expect.falsy(ok)
  expect.match(err.message, "at most 8", true)
end)

test("agent.server: one tool per agent, slugged; a name twice is refused", function()
  expect.eq(agent.slug("word counter!"), "word_counter")
  expect.eq(agent.slug("  "), "agent")
  local a = agent.new{ name = "a b", model = "mock", hub = false }
  local s = agent.server{ a }
  expect.truthy(s)
  local ok, err = task.pcall(agent.server, { a, agent.new{ name = "a-b", model = "mock", hub = false }, agent.new{ name = "a b", model = "mock", hub = false } })
  expect.falsy(ok)
  expect.match(err.message, "two agents are named a_b", true)
  ok = task.pcall(agent.server, { 1 })
  expect.falsy(ok)
end)

test("ask_fresh: calls run at once, each in its own conversation", function()
  local a = agent.new{ model = "mock", hub = false }
  local t1 = task.spawn(function() return a:ask_fresh("one") end)
  local t2 = task.spawn(function() return a:ask_fresh("two") end)
  expect.eq(t1:await(), "mock: one")
  expect.eq(t2:await(), "mock: two")
  expect.eq(#a:messages(), 0)
end)

test("max_concurrent bounds the fresh asks running at once; more wait", function()
  local function peak(n)
    local running, most = 0, 0
    local a = agent.new{ model = "mock", hub = false, yes = true, max_concurrent = n,
      tools = { { name = "slow", handler = function()
        running = running + 1
        most = math.max(most, running)
        task.sleep(0.2)
        running = running - 1
        return "ok"
      end } } }
    local ts = {}
    for i = 1, 2 do ts[i] = task.spawn(function() return a:ask_fresh("slow") end) end
    for _, t in ipairs(ts) do t:await() end
    return most
  end
  expect.eq(peak(1), 1)
  expect.eq(peak(2), 2)
end)

test("a:with keeps the agent's tools, agents, bindings and params", function()
  local inner = agent.new{ name = "inner", model = "mock", hub = false }
  local got
  local a = agent.new{ name = "outer", model = "mock", hub = false, yes = true, agents = { inner },
    params = { { name = "p", default = { value = "v" } } },
    tools = { { name = "show", input = { x = "string?" }, handler = function(args) got = args.x; return "ok" end } },
    bindings = { { tool = "show", arg = "x", value = { param = "p" } } } }
  local b = a:with{ max_turns = 5 }
  local _, tr = b:ask("show")
  expect.eq(tr.tool_calls[1].name, "show")
  expect.eq(got, "v")
end)

test("a:with keeps the default hub", function()
  local c = agent.new{ model = "mock" }
  expect.truthy(c._hub)
  expect.eq(c:with{ max_turns = 3 }._hub, c._hub)
end)
