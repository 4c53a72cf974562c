-- A server with what careless clients trip on: a tool whose name holds a
-- control character (U+0001), and a typed argument a client may send null.
local s = mcp.server{ name = "careless-lua", version = "1.0.0" }

s:tool{ name = "a\1b", input = { message = "string" },
  handler = function(a) return "echo " .. a.message end }

s:tool{ name = "typed", input = { a = "integer" }, handler = function(a) return a.a * 2 end }

return s
