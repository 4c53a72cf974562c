-- A Lua MCP server for the code-mode tests: lookup (structured content),
-- write (not read-only: the default policy denies it), and wait, which
-- waits until its call is cancelled and then writes "cancelled" to the
-- file args.mark (so a test sees the cancellation reach the server).
local s = mcp.server{ name = "kv", version = "1.0.0" }

local data = { alpha = 1, beta = 2, gamma = 3 }
s:tool{ name = "lookup", description = "Look a key up", input = { key = "string" },
  output = { key = "string", value = "number" },
  annotations = { readOnlyHint = true },
  handler = function(a) return { key = a.key, value = data[a.key] or 0 } end }

s:tool{ name = "write", description = "Write a key", input = { key = "string", value = "number" },
  handler = function(a) data[a.key] = a.value; return "wrote " .. a.key end }

s:tool{ name = "wait", description = "Wait until cancelled (30 s at most)", input = { mark = "string" },
  annotations = { readOnlyHint = true },
  handler = function(a, ctx)
    task.spawn(function() -- detached: it outlives the cancelled handler
      for _ = 1, 3000 do
        if ctx.cancelled then
          local f = io.open(a.mark, "w")
          f:write("cancelled")
          f:close()
          return
        end
        task.sleep(0.01)
      end
    end)
    ctx:progress(0, 1, "waiting")
    task.sleep(30)
    return "waited"
  end }

return s
