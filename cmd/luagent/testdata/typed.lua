-- A server for luagent mcp tools|call tests: typed arguments, a tool
-- error, and env reading.
local s = mcp.server{ name = "typed", version = "1.0.0" }
s:tool{ name = "describe", description = "Say the type of each argument\nsecond line",
  input = { n = "number", flag = "boolean", opts = { type = "object" }, name = "string", list = { type = "array" } },
  handler = function(a)
    local parts = {}
    for _, k in ipairs({ "n", "flag", "opts", "name", "list" }) do
      if a[k] ~= nil then parts[#parts + 1] = k .. ":" .. type(a[k]) end
    end
    return table.concat(parts, " ")
  end }
s:tool{ name = "broken", handler = function() error("it broke") end }
s:tool{ name = "env", input = { name = "string" }, handler = function(a) return os.getenv(a.name) or "" end }
return s
