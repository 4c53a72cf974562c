-- A server for the --workers and drain tests: `who` names the Lua state
-- that answered, `ask` elicits twice and names the state of each round,
-- `slow` sleeps for its argument (seconds), after a line on stderr that
-- says the call is in flight (the tests wait for it, not for a while).
local me = tostring({}):match("0x%x+") or tostring({})
local s = mcp.server{ name = "workers", version = "1" }

s:tool{ name = "who", handler = function() return me end }

s:tool{
  name = "ask",
  handler = function(args, ctx)
    local a = ctx:elicit{ message = "first from " .. me, schema = { x = "string" } }
    local b = ctx:elicit{ message = "second from " .. me, schema = { y = "string" } }
    return a.content.x .. "+" .. b.content.y .. "@" .. me
  end,
}

s:tool{
  name = "slow",
  input = { seconds = "number" },
  handler = function(args)
    io.stderr:write("slow call started\n")
    io.stderr:flush()
    task.sleep(args.seconds)
    return "slept " .. args.seconds
  end,
}

return s
