-- One case per row of LUA.md §1.10: where a wait may happen, and the clear
-- error (never a Go panic, never a silent early return) where it may not.

test("a direct wait returns its value", function()
  task.sleep(0)
  local h = task.spawn(function() return 1, 2, 3 end)
  expect.eq({ h:await() }, { 1, 2, 3 })
end)

test("a wait nested in non-tail Lua calls", function()
  local function inner() task.sleep(0.001); return "inner" end
  local function outer() local v = inner(); return v .. "!" end
  expect.eq(outer(), "inner!")
end)

test("return await() as a tail call in the task's base function", function()
  -- Without the trampoline this ends the coroutine early, with the yielded
  -- values as its result.
  local h = task.spawn(function() return task.spawn(function() return "late" end):await() end)
  expect.eq(h:await(), "late")
  local h2 = task.spawn(function() task.sleep(0.001); return "after" end)
  local h3 = task.spawn(function() return h2:await() end)
  expect.eq(h3:await(), "after")
end)

test("a tail-called wait inside an inner function", function()
  local function get() return task.spawn(function() return 7 end):await() end
  expect.eq(get() + 1, 8)
end)

test("inside pcall: a clear error that pcall cannot swallow", function()
  local err = expect.error(function()
    local ok, e = pcall(function() task.sleep(0.001) end)
    -- not reached: the guard error passes through pcall
    error("pcall returned " .. tostring(ok) .. " " .. tostring(e))
  end, "task.sleep: cannot wait inside pcall; use task.pcall")
  expect.eq(err.kind, "invalid")
  expect.match(tostring(err), "await_test.lua:%d+: task.sleep")
end)

test("inside xpcall, even when the handler rewrites the error", function()
  expect.error(function()
    xpcall(function() task.sleep(0) end, function() return "swallowed" end)
    error("not reached")
  end, "cannot wait inside xpcall")
end)

test("task.pcall is the pcall that may wait", function()
  local ok, v = task.pcall(function() task.sleep(0.001); return "fine" end)
  expect.eq({ ok, v }, { true, "fine" })
  local ok2, e = task.pcall(function() task.sleep(0.001); error("bad", 0) end)
  expect.eq({ ok2, e }, { false, "bad" })
  local ok3, t = task.pcall(function() error({ code = 7 }) end)
  expect.eq(ok3, false)
  expect.eq(t.code, 7)
end)

test("inside an __index metamethod", function()
  local t = setmetatable({}, { __index = function() task.sleep(0) end })
  expect.error(function() local _ = t.x end, "task.sleep: cannot wait inside a metamethod; use task.pcall")
end)

test("inside an __add metamethod", function()
  local t = setmetatable({}, { __add = function() task.sleep(0) end })
  expect.error(function() local _ = t + 1 end, "cannot wait inside a metamethod")
end)

test("inside a __tostring metamethod", function()
  local t = setmetatable({}, { __tostring = function() task.sleep(0) return "" end })
  expect.error(function() tostring(t) end, "cannot wait inside")
end)

test("inside a Lua iterator of for-in (a Go panic without the guard)", function()
  expect.error(function()
    for _ in function() task.sleep(0) end do end
  end, "task.sleep: cannot wait inside a for-in iterator function; use task.pcall")
end)

test("waiting in the body of a for-in loop is fine", function()
  local sum = 0
  for _, v in ipairs({ 1, 2, 3 }) do task.sleep(0); sum = sum + v end
  expect.eq(sum, 6)
end)

test("inside a table.sort comparator (a Go panic without the guard)", function()
  expect.error(function()
    table.sort({ 3, 2, 1 }, function(a, b) task.sleep(0); return a < b end)
  end, "cannot wait inside a table.sort comparator")
end)

test("inside a string.gsub callback (a Go panic without the guard)", function()
  expect.error(function()
    string.gsub("abc", "%w", function() task.sleep(0) end)
  end, "cannot wait inside a string.gsub callback")
end)

test("inside a module body run by require (a Go panic without the guard)", function()
  package.preload["sleepy_module"] = function() task.sleep(0); return {} end
  expect.error(function() require("sleepy_module") end, "cannot wait inside a module body run by require")
end)

test("inside a coroutine made with coroutine.create", function()
  local co = coroutine.create(function() task.sleep(0) end)
  expect.error(function()
    local ok, e = coroutine.resume(co)
    error(e, 0)
  end, "cannot wait inside a coroutine made with coroutine.create")
end)

test("coroutine.yield inside pcall in a task is refused, not a crash", function()
  expect.error(function()
    pcall(function() coroutine.yield() end)
  end, "coroutine.yield: cannot yield inside pcall")
end)

test("plain coroutines still work inside tasks", function()
  local co = coroutine.wrap(function(a) local b = coroutine.yield(a + 1); return b * 2 end)
  expect.eq(co(1), 2)
  expect.eq(co(5), 10)
end)

test("a bare coroutine.yield in a task lets other tasks run", function()
  local order = {}
  local h = task.spawn(function() order[#order + 1] = "other" end)
  coroutine.yield()
  order[#order + 1] = "me"
  h:await()
  expect.eq(order, { "other", "me" })
end)

test("pcall of ordinary errors still works", function()
  local ok, e = pcall(error, "x", 0)
  expect.eq({ ok, e }, { false, "x" })
end)
