-- The smallest MCP server: one tool that echoes its argument.
--   luagent serve examples/echo.lua
-- It answers 2026-07-28 and 2025-11-25 clients alike. It is also the
-- server of the benchmarks (scripts/bench/BENCHMARKS.md).
local s = mcp.server{ name = "echo", version = "1.0.0" }

s:tool{
  name = "echo",
  description = "Return the message unchanged",
  input = { message = "string" },
  annotations = { readOnlyHint = true },
  handler = function(args) return args.message end,
}

return s
