-- An agent file: it returns an agent, and `luagent ask` asks it.
--   luagent ask --agent examples/agent.lua "count the words in: the quick brown fox"
--   luagent ask --agent examples/agent.lua --model openai:gpt-4.1-mini "..."  (OPENAI_API_KEY)
-- It has the catalog's servers (luagent mcp list) and a tool of its own,
-- written in Lua. With the default model (mock) it needs no key or network.
return agent.new{
  name = "helper",
  description = "A terse helper that counts words",
  model = env.get("LUAGENT_MODEL") or "mock",
  system = "You are a terse helper. Use word_count to count words.",
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
  -- The policy: read-only tools run, anything else is asked about (denied
  -- without --yes, since nobody is there to ask).
  approve = function(call)
    return agent.default_policy(call)
  end,
  hooks = {
    before_tool = function(call) log.debug("calling " .. call.name) end,
  },
}
