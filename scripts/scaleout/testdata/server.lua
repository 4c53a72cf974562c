-- One replica of the scale-out test's MCP server (scripts/scaleout). Every
-- replica runs this script with its own REPLICA name and the same
-- LUAGENT_STATE_KEY, so a requestState signed by one is accepted by another.
--
--   REPLICA=r1 LUAGENT_STATE_KEY=... luagent serve server.lua --http 127.0.0.1:0/mcp

local replica = env.get("REPLICA", "unnamed")

local s = mcp.server{ name = "scaleout", version = "1.0.0" }

-- One round: a + b, with a progress notification first (so the answer is an
-- SSE stream, which must get through the proxy unbuffered).
s:tool{ name = "add", description = "a + b, and which replica added them",
  input = { a = "integer", b = "integer" },
  handler = function(args, ctx)
    ctx:progress(1, 1, "adding")
    return { sum = args.a + args.b, replica = replica }
  end }

-- Progress, a second of nothing, then the answer: a client sees the
-- progress early only if the proxy streams SSE as it comes.
s:tool{ name = "stream", description = "progress now, the answer in 1 s",
  input = {},
  handler = function(_, ctx)
    ctx:progress(1, 2, "started")
    task.sleep(1)
    return { replica = replica }
  end }

-- Three rounds on 2026-07-28: two elicitations one after the other. The
-- handler runs again on every retry (on whichever replica the retry reaches);
-- the first answer comes back in the requestState signed by the replica that
-- asked the second question. Each question names the replica asking it.
s:tool{ name = "ask2", description = "asks for x, then y, and adds them",
  input = { n = "integer" },
  handler = function(args, ctx)
    local first = ctx:elicit{ key = "first", message = ("%s|first|%d"):format(replica, args.n),
      schema = { x = "integer" } }
    if first.action ~= "accept" then return nil, "first question declined" end
    local second = ctx:elicit{ key = "second", message = ("%s|second|%d"):format(replica, args.n),
      schema = { y = "integer" } }
    if second.action ~= "accept" then return nil, "second question declined" end
    local x, y = first.content.x, second.content.y
    return { n = args.n, x = x, y = y, sum = x + y, replica = replica }
  end }

return s
