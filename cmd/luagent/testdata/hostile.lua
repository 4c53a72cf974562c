-- The server of the hostile-client tests (hostile_test.go): a handler that
-- computes without ever waiting, one whose answer is large, and a quick one.
local s = mcp.server{ name = "hostile", version = "1.0.0" }

s:tool{ name = "spin", input = { seconds = "number" },
  handler = function(args, ctx)
    ctx:progress(0, 1, "spinning") -- tells the test the loop has begun
    local stop = os.clock() + args.seconds
    while os.clock() < stop do end
    return "spun"
  end }

local blob = string.rep("x", 4 * 1024 * 1024) -- built once: a big answer costs little Lua
s:tool{ name = "big", input = { bytes = "integer" },
  handler = function(args) return blob:sub(1, args.bytes) end }

s:tool{ name = "echo", input = { message = "string" },
  handler = function(args) return args.message end }

return s
