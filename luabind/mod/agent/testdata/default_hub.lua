-- The default hub (the user's catalog, HOME's config.json here) starts
-- only the servers an agent offers: "never" leaves MARKER when started.

local function spawned()
  local f = io.open(MARKER)
  if f then f:close() end
  return f ~= nil
end

-- status reads the agent's hub (agent.default_hub() would start them all).
local function status(a, name)
  for _, s in ipairs(a._hub:status()) do
    if s.name == name then return s.status end
  end
end

test("an agent's servers = {...} start only those", function()
  local a = agent.new{ model = "mock", servers = { "notes" } }
  local text, tr = a:ask("echo a message")
  expect.match(text, "echo: example", true)
  expect.eq(tr.tool_calls[1].server, "notes")
  expect.eq(status(a, "notes"), "ready")
  expect.falsy(spawned(), "a server the agent does not offer was spawned")
  -- A second agent on the same hub starts what it needs, no more.
  local b = agent.new{ model = "mock", servers = {} }
  b:ask("hi")
  expect.falsy(spawned())
  expect.eq(b._hub, a._hub)
  expect.eq(status(b, "never"), "stopped")
end)

test("agent.default_hub() starts them all", function()
  local h = agent.default_hub()
  task.timeout(10, function()
    while not spawned() do task.sleep(0.005) end
  end)
  h:close()
end)
