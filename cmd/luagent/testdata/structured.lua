-- A server for mcp call --json: a tool whose result has structured content.
local s = mcp.server{ name = "structured", version = "1.0.0" }
s:tool{ name = "weather", input = { city = "string" }, output = { city = "string", temp = "number" },
  handler = function(a) return { city = a.city, temp = 21 } end }
return s
