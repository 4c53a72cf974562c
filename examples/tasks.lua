-- Tasks: code reads as blocking, yet many tasks run at once.
--   luagent run examples/tasks.lua
local started = os.clock()

-- A pretend network call: waits without blocking the other tasks.
local function fetch(name, seconds)
  task.sleep(seconds)
  return name .. " after " .. seconds .. "s"
end

-- Three "requests" at once: the whole takes as long as the slowest.
local t0 = os.time()
local results = task.all({
  function() return fetch("alpha", 0.2) end,
  function() return fetch("beta", 0.1) end,
  function() return fetch("gamma", 0.3) end,
})
for i, r in ipairs(results) do print(i, r) end

-- A deadline: the slow call is cancelled and the error says so.
local ok, err = task.pcall(task.timeout, 0.05, fetch, "too slow", 10)
print("timeout:", ok, err.kind, tostring(err))
assert(not ok and err.kind == "timeout")

-- Background work, awaited later.
local h = task.spawn(fetch, "background", 0.05)
print("spawned:", h)
print("awaited:", h:await())

-- Waiting inside plain pcall is refused with a clear message; task.pcall is
-- the protected call that may wait.
print(task.pcall(function() return fetch("inside task.pcall", 0.01) end))
