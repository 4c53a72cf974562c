-- agent.new's tool_search and tool_search_threshold, and an inline hub
-- entry's disabledTools, from Lua.

local scripted = require("scripted")

local function offered(req)
  local names = {}
  for _, t in ipairs(req.tools) do names[t.name] = true end
  return names
end

local function hub(entry)
  local e = { command = LUAGENT, args = { "serve", SERVER }, startupTimeoutSeconds = 20 }
  for k, v in pairs(entry or {}) do e[k] = v end
  return mcp.hub{ servers = { notes = e } }
end

test("tool_search: always defers a few tools, never offers them, a threshold below their number defers", function()
  local h = hub()
  for _, c in ipairs{
    { opts = {}, search = false },
    { opts = { tool_search = "always" }, search = true },
    { opts = { tool_search = "never", tool_search_threshold = 1 }, search = false },
    { opts = { tool_search = "auto", tool_search_threshold = 1 }, search = true },
    { opts = { tool_search_threshold = 1 }, search = true },
  } do
    local model, seen = scripted{ { text = "ok" } }
    local o = { model = model, hub = h }
    for k, v in pairs(c.opts) do o[k] = v end
    agent.new(o):ask("hi")
    local names = offered(seen[1])
    expect.eq(names.mcp_search_tools == true, c.search, inspect(c.opts))
    expect.eq(names.notes__echo == true, not c.search, inspect(c.opts))
  end
  h:close()
end)

test("tool_search: a bad value is invalid", function()
  for _, o in ipairs{ { tool_search = "sometimes" }, { tool_search = true }, { tool_search_threshold = 0 }, { tool_search_threshold = 2.5 } } do
    o.model, o.hub = "mock", false
    local ok, err = pcall(agent.new, o)
    expect.falsy(ok)
    expect.eq(err.kind, "invalid")
    expect.match(err.message, "tool_search", true)
  end
end)

test("an inline entry's disabledTools hides a tool from the agent and refuses its call", function()
  local h = hub{ disabledTools = { "wri*" } }
  local model, seen = scripted{ { tool_calls = { { name = "notes__write", arguments = { text = "x" } } } }, { text = "ok" } }
  local _, tr = agent.new{ model = model, hub = h, yes = true }:ask("write")
  local names = offered(seen[1])
  expect.truthy(names.notes__echo)
  expect.falsy(names.notes__write)
  local call = tr.tool_calls[1]
  expect.truthy(call.error ~= nil or (call.result ~= nil and call.result.isError), inspect(call))
  h:close()
end)
