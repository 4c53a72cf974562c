-- Code mode: instead of one model round trip per tool call, the model
-- writes a Lua snippet (the run_lua tool) that calls the tools as
-- functions, in a sandbox, and returns only what it needs.
--   luagent run examples/code_mode.lua
-- The model here is a Lua function that writes the snippet a real model
-- would (no key or network needed); with a real one, give model =
-- "openai:gpt-4.1-mini" and the servers of your catalog: its tools appear
-- in the snippet as tools.SERVER.TOOL{...}.

local forecasts = { Lisbon = 24, Oslo = 9, Cairo = 31, Lima = 19 }

local tools = {
  { name = "cities", description = "List the cities with a forecast",
    annotations = { readOnlyHint = true },
    handler = function()
      local out = {}
      for city in pairs(forecasts) do out[#out + 1] = city end
      table.sort(out)
      return { cities = out }
    end },
  { name = "forecast", description = "Tomorrow's forecast for a city",
    input = { city = "string" }, annotations = { readOnlyHint = true },
    handler = function(args) return { city = args.city, high = forecasts[args.city] } end },
}

-- The snippet the "model" writes: five calls, one model turn.
local snippet = [[
local best
for _, city in ipairs(tools.cities{}.cities) do
  local f = tools.forecast{city = city} -- structured results are tables
  if not best or f.high > best.high then best = f end
end
return best
]]

local function model(req)
  local last = req.messages[#req.messages]
  if last.role == "tool" then
    return { text = "The warmest tomorrow: " .. last.parts[1].text }
  end
  assert(req.tools[1].name == "run_lua", "code mode offers run_lua")
  return { tool_calls = { { name = "run_lua", arguments = { code = snippet } } } }
end

local a = agent.new{ model = model, hub = false, tools = tools, code_mode = true }
local text, transcript = a:ask("Which city is warmest tomorrow?")
print(text)
local run = transcript.tool_calls[1]
print(run.name .. " made " .. #run.calls .. " calls in 1 model turn:")
for _, c in ipairs(run.calls) do
  print("  " .. c.name .. " " .. json.encode(c.arguments) .. " -> " .. c.result.content[1].text)
end
