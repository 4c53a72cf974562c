-- The scale-out test's client (scripts/scaleout): TOTAL tool calls through the
-- proxy at URL on WORKERS concurrent tasks, in the 2026-07-28 era. Odd calls
-- are `add` (one round, answered over SSE); even calls are `ask2` (two
-- elicitations: three requests, each free to reach a different replica).
--
--   luagent run client.lua URL TOTAL WORKERS
--
-- Prints one JSON line per call, then a summary (with the time between a
-- streamed progress notification and its result); the Go test checks them.

local url, total, workers = arg[1], tonumber(arg[2]), tonumber(arg[3])
assert(url and total and workers, "usage: client.lua URL TOTAL WORKERS")

-- asked[n][key] is the replica that asked question key of call n.
local asked = {}
local elicits = 0

local c = mcp.connect{ url = url, name = "scaleout", protocol = "modern", timeout = 20,
  on_elicit = function(p)
    elicits = elicits + 1
    local replica, key, n = p.message:match("^(%S+)|(%a+)|(%d+)$")
    n = tonumber(n)
    asked[n] = asked[n] or {}
    asked[n][key] = replica
    if key == "first" then
      return { action = "accept", content = { x = 7 * n } }
    end
    return { action = "accept", content = { y = 11 * n } }
  end }

local info = c:info()
assert(info.era == "modern", "negotiated " .. tostring(info.era))
print(json.encode({ era = info.era, protocol = info.protocol_version }))

local progress = 0
local next_i = 0
local function worker()
  while next_i < total do
    next_i = next_i + 1
    local i = next_i
    local rec = { i = i }
    local ok, r = task.pcall(function()
      if i % 2 == 1 then
        return c:call("add", { a = i, b = 2 * i },
          { progress = function() progress = progress + 1 end })
      end
      return c:call("ask2", { n = i })
    end)
    if not ok then
      rec.error = type(r) == "table" and (r.kind .. ": " .. tostring(r.message)) or tostring(r)
    elseif r.isError then
      rec.error = "isError: " .. json.encode(r.content)
    else
      rec.tool = i % 2 == 1 and "add" or "ask2"
      rec.result = r.structuredContent
      if asked[i] then
        rec.asked_first, rec.asked_second = asked[i].first, asked[i].second
      end
    end
    print(json.encode(rec))
  end
end

local ws = {}
for w = 1, workers do ws[w] = worker end
task.all(ws)

-- SSE must stream through the proxy: the progress the server sends a
-- second before its answer has to arrive about that much earlier.
local progress_at
c:call("stream", {}, { progress = function() progress_at = progress_at or os.clock() end })
local stream_gap = os.clock() - (progress_at or os.clock())

-- Progress callbacks run as their own tasks: let the last ones finish.
task.sleep(0.2)
print(json.encode({ summary = true, progress = progress, elicits = elicits, stream_gap = stream_gap }))
c:close()
