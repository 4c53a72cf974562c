-- fallback_models: the next model answers a request the first could not
-- (rate limited, overloaded, endpoint down, context too long); the
-- request's own faults end the ask.

local function failing(kind, message)
  local calls = 0
  return function()
    calls = calls + 1
    error({ kind = kind, message = message })
  end, function() return calls end
end

test("a rate-limited model falls back to the next, which answers", function()
  local first, calls = failing("rate_limit", "429 Too Many Requests: slow down (after 4 retries)")
  local seen = {}
  local a = agent.new{ hub = false, model = first, fallback_models = { function() return { text = "from the backup" } end } }
  local text, tr = a:ask("hi", { on_event = function(e) if e.type == "retry" then seen[#seen + 1] = e end end })
  expect.eq(text, "from the backup")
  expect.eq(tr["end"], "answer")
  expect.eq(calls(), 1)
  expect.eq(#seen, 1)
  expect.eq(seen[1].retry.type, "fallback")
  expect.eq(seen[1].retry.kind, "rate_limit")
  expect.match(seen[1].message, "rate limited (429): falling back to", true)
end)

test("context too long falls back; the fallbacks are tried in order", function()
  local first = failing("context_length", "400 Bad Request: prompt is too long")
  local second = failing("server", "529: Overloaded (after 4 retries)")
  local a = agent.new{ hub = false, model = first, fallback_models = { second, "mock" } }
  local text = a:ask("hello there")
  expect.match(text, "hello there", true) -- the mock echoes
end)

test("an auth failure does not fall back", function()
  local first = failing("auth", "401 Unauthorized: invalid x-api-key")
  local backup_calls = 0
  local a = agent.new{ hub = false, model = first, fallback_models = { function() backup_calls = backup_calls + 1; return "no" end } }
  local ok, err = task.pcall(a.ask, a, "hi")
  expect.eq(ok, false)
  expect.eq(err.kind, "auth")
  expect.eq(backup_calls, 0)
end)

test("fallback_models must be a list", function()
  expect.error(function() agent.new{ hub = false, model = "mock", fallback_models = "mock" } end, "fallback_models must be a list")
  expect.error(function() agent.new{ hub = false, model = "mock", fallback_models = true } end, "fallback_models must be a list")
end)
