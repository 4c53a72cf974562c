-- A Lua server with 100 tools, for the agent's meta-tool mode.
local s = mcp.server{ name = "many", version = "1.0.0" }
for i = 1, 99 do
  s:tool{ name = "widget_" .. i, description = "Adjust widget number " .. i, input = { level = "number" },
    annotations = { readOnlyHint = true }, handler = function() return "widget " .. i end }
end
s:tool{ name = "weather_forecast", description = "Forecast the weather for a city", input = { city = "string" },
  annotations = { readOnlyHint = true }, handler = function(a) return "sunny in " .. a.city end }
return s
