-- A server with one slow tool, used by examples/agents.lua: wait reports
-- its progress as it goes and stops at once when the call is cancelled.
--   luagent serve examples/timer.lua
-- The wait lasts seconds, else $TIMER_SECONDS, else 0.2 s.
local s = mcp.server{ name = "timer", version = "1.0.0" }

s:tool{
  name = "wait",
  description = "Wait a while, reporting progress, and say how long it waited",
  input = { seconds = { type = "number", description = "how long to wait", optional = true } },
  annotations = { readOnlyHint = true },
  handler = function(args, ctx)
    local total = args.seconds or tonumber(env.get("TIMER_SECONDS") or "") or 0.2
    local steps = 4
    for i = 1, steps do
      task.sleep(total / steps) -- a cancelled call ends here
      ctx:progress(i, steps, ("waited %d/%d"):format(i, steps))
    end
    return ("waited %g s"):format(total)
  end,
}

return s
