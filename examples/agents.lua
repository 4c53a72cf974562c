-- Two small agents served as MCP tools, one tool each:
--   luagent mcp-server --agent-file examples/agents.lua        (stdio)
--   luagent serve examples/agents.lua --http 8081             (HTTP)
--   luagent --set timer_seconds=5 mcp-server --agent-file examples/agents.lua
-- A call {prompt = "..."} asks the agent in a fresh conversation; the
-- agent's tool calls arrive as progress. With the default model (mock)
-- they need no key or network.
local here = (arg[0] or ""):match("^(.*)/[^/]*$") or "."
local model = env.get("LUAGENT_MODEL") or "mock"

local counter = agent.new{
  name = "word counter",
  description = "Counts the words of a text",
  model = model,
  hub = false, -- no MCP servers: a tool of its own, in Lua
  tools = {
    {
      name = "word_count",
      description = "Count the words in a text",
      input = { text = "string" },
      annotations = { readOnlyHint = true },
      handler = function(args)
        local n = 0
        for _ in args.text:gmatch("%S+") do n = n + 1 end
        return tostring(n)
      end,
    },
  },
}

local timer = agent.new{
  name = "timer",
  description = "Waits a while on a Lua MCP server and says how long",
  model = model,
  -- A parameter: --set timer_seconds=N, --params-file FILE, else 0.2.
  params = {
    { name = "timer_seconds", description = "how long the timer waits", default = { value = "0.2" } },
  },
  -- A server of the agent's own: examples/timer.lua, served by this
  -- luagent (arg[-1]); its env takes the parameter.
  servers = {
    timer = { command = arg[-1], args = { "serve", here .. "/timer.lua" },
      env = { TIMER_SECONDS = { param = "timer_seconds" } } },
  },
}

return { counter, timer }
