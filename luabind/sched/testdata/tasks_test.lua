test("spawn returns a handle at once and runs later", function()
  local ran = false
  local h = task.spawn(function() ran = true; return "v" end)
  expect.eq(h:status(), "pending")
  expect.falsy(ran)
  expect.eq(h:await(), "v")
  expect.truthy(ran)
  expect.eq(h:status(), "done")
  expect.truthy(h:done())
  expect.match(tostring(h), "^task %d+ %(done%)$")
end)

test("spawn passes arguments, nils included", function()
  local h = task.spawn(function(a, b, c) return a, b, c end, 1, nil, 3)
  expect.eq({ h:await() }, { 1, nil, 3 })
end)

test("tasks run concurrently", function()
  local t0 = os.clock()
  local start = os.time()
  local hs = {}
  for i = 1, 20 do hs[i] = task.spawn(function() task.sleep(0.05); return i end) end
  local sum = 0
  for i = 1, 20 do sum = sum + hs[i]:await() end
  expect.eq(sum, 210)
end)

test("all returns first results in order", function()
  local r = task.all({
    function() task.sleep(0.02); return "slow" end,
    function() return "fast" end,
    task.spawn(function() return "handle" end),
  })
  expect.eq(r, { "slow", "fast", "handle" })
  expect.eq(task.all({}), {})
end)

test("all raises the first failure and cancels the rest", function()
  local other
  local err = expect.error(function()
    task.all({
      function() task.sleep(0.01); error("first", 0) end,
      function() other = task.current(); task.sleep(10) end,
    })
  end, "first")
  task.sleep(0)
  expect.eq(other:status(), "cancelled")
end)

test("timeout raises a timeout error and cancels the child", function()
  local child
  local err = expect.error(function()
    task.timeout(0.02, function() child = task.current(); task.sleep(5) end)
  end, "task.timeout: timed out after 20ms")
  expect.eq(err.kind, "timeout")
  expect.eq(child:status(), "cancelled")
  expect.eq(task.timeout(1, function(a) return a * 2 end, 21), 42)
end)

test("timeout stops a task that never waits", function()
  local err = expect.error(function()
    task.timeout(0.05, function() while true do end end)
  end, "timed out")
  expect.eq(err.kind, "timeout")
end)

test("cancel wakes a waiting task with a cancelled error", function()
  local h = task.spawn(function() task.sleep(10) end)
  task.sleep(0.01)
  expect.eq(h:status(), "waiting")
  h:cancel()
  local err = expect.error(function() h:await() end, "task cancelled")
  expect.eq(err.kind, "cancelled")
  expect.eq(h:status(), "cancelled")
end)

test("cancel of a pending task means it never runs", function()
  local ran = false
  local h = task.spawn(function() ran = true end)
  task.cancel(h, "not needed")
  expect.error(function() h:await() end, "not needed")
  task.sleep(0.01)
  expect.falsy(ran)
end)

test("an error in a task is raised by await with its value intact", function()
  local h = task.spawn(function() error({ code = 42 }) end)
  local err = expect.error(function() h:await() end)
  expect.eq(err.code, 42)
  local h2 = task.spawn(function() error("plain") end)
  expect.error(function() h2:await() end, "tasks_test.lua")
end)

test("current returns the running task's handle", function()
  local me = task.current()
  expect.eq(me:status(), "running")
  local h = task.spawn(function() return task.current() end)
  expect.eq(h:await(), h)
end)

test("sleep checks its argument", function()
  expect.error(function() task.sleep(-1) end, "seconds must be a number >= 0")
  expect.error(function() task.sleep("x") end, "bad argument #1")
end)

test("many short tasks reuse coroutines", function()
  local n = 0
  for i = 1, 500 do task.spawn(function() n = n + 1 end) end
  task.sleep(0.01)
  expect.eq(n, 500)
end)
