local function connect(era, extra)
  local o = { name = "fake-" .. era, command = FAKE, args = { "-era", era }, timeout = 10, probe_timeout = 2 }
  for k, v in pairs(extra or {}) do o[k] = v end
  return mcp.connect(o)
end

for _, era in ipairs({ "legacy", "modern" }) do
  test(era .. ": connect, info, tools, call", function()
    local c = connect(era)
    local info = c:info()
    expect.eq(info.era, era)
    expect.eq(info.name, "fake")
    expect.eq(info.protocol_version, era == "modern" and "2026-07-28" or "2025-11-25")
    expect.truthy(info.capabilities.tools)
    local names = {}
    for _, t in ipairs(c:tools()) do names[#names + 1] = t.name end
    expect.truthy(#names >= 12)
    expect.eq(names[1], "echo")
    local r = c:call("echo", { message = "hello" })
    expect.eq(r.content[1].text, "hello")
    expect.falsy(r.isError)
    local sum = c:call("add", { a = 2, b = 40 })
    expect.eq(sum.structuredContent.sum, 42)
    expect.truthy(c:call("fail").isError)
    expect.match(tostring(c), "mcp connection \"fake%-" .. era .. "\"")
    c:close()
  end)

  test(era .. ": calls run concurrently", function()
    local c = connect(era)
    local fns = {}
    for i = 1, 10 do
      fns[i] = function() return c:call("slow", { seconds = 0.3 }).content[1].text end
    end
    local t0 = os.time()
    local results = task.all(fns)
    expect.eq(#results, 10)
    expect.eq(results[10], "slept")
    c:close()
  end)

  test(era .. ": progress, timeout, cancellation", function()
    local c = connect(era)
    local seen = {}
    c:call("slow", { seconds = 0.3, progress = true }, { progress = function(p) seen[#seen + 1] = p.progress end })
    task.sleep(0.05)
    expect.eq(seen, { 1, 2, 3 })
    local err = expect.error(function() c:call("slow", { seconds = 3 }, { timeout = 0.2 }) end, "timed out")
    expect.eq(err.kind, "timeout")
    err = expect.error(function()
      task.timeout(0.2, function() c:call("slow", { seconds = 3 }) end)
    end, "timed out")
    expect.eq(err.kind, "timeout")
    local h = task.spawn(function() return c:call("slow", { seconds = 3 }) end)
    task.sleep(0.1)
    h:cancel()
    err = expect.error(function() h:await() end)
    expect.eq(err.kind, "cancelled")
    c:close()
  end)

  test(era .. ": errors have kinds and name the field", function()
    local c = connect(era)
    local err = expect.error(function() c:call("echo", { msg = "typo" }) end, "message")
    expect.eq(err.kind, "invalid")
    err = expect.error(function() c:call("nope") end, 'has no tool "nope"')
    expect.eq(err.kind, "not_found")
    err = expect.error(function() c:read("test://missing") end)
    expect.eq(err.kind, "not_found")
    expect.truthy(err.code == -32002 or err.code == -32602)
    expect.eq(err.data.uri, "test://missing")
    err = expect.error(function() c:call("echo", { 1, 2 }) end, "named arguments")
    c:close()
    err = expect.error(function() c:call("echo", { message = "x" }) end, "closed")
    expect.eq(err.kind, "closed")
  end)

  test(era .. ": a crash fails the call and the next call restarts the server", function()
    local c = connect(era)
    local err = expect.error(function() c:call("crash") end, "exited with status 3")
    -- The tool may have run before the server died: it is not sent again.
    expect.eq(err.kind, "unknown_outcome")
    expect.match(tostring(err), "the tool call may have run; check its effect before calling it again", true)
    expect.match(tostring(err), "fatal: the crash tool was called", true)
    expect.eq(c:call("echo", { message = "again" }).content[1].text, "again")
    c:close()
  end)

  test(era .. ": resources, templates, prompts, completion", function()
    local c = connect(era)
    expect.eq(c:resources()[1].uri, "test://static")
    expect.eq(c:templates()[1].uriTemplate, "test://items/{id}")
    expect.eq(c:read("test://items/1").contents[1].text, "content of test://items/1")
    expect.eq(c:prompts()[1].name, "greet")
    expect.eq(c:prompt("greet", { name = "Ada" }).messages[1].content.text, "Hello, Ada")
    local comp = c:complete({ type = "ref/prompt", name = "greet" }, { name = "name", value = "al" })
    expect.eq(comp.values, { "alice", "alfred" })
    c:close()
  end)

  test(era .. ": the server asks, Lua callbacks answer", function()
    local asked = {}
    local c = connect(era, {
      on_elicit = function(p) asked[#asked + 1] = p.message; return { action = "accept", content = { name = "Ada" } } end,
      on_sample = function(p) task.sleep(0.01); return { role = "assistant", content = { type = "text", text = "hi" }, model = "lua" } end,
      roots = { { uri = "file:///tmp", name = "tmp" } },
    })
    expect.match(c:call("ask").content[1].text, '"name":"Ada"', true)
    expect.match(c:call("sample").content[1].text, '"text":"hi"', true)
    expect.match(c:call("roots").content[1].text, "file:///tmp", true)
    expect.eq(asked, { "What is your name?" })
    c:close()
  end)

  test(era .. ": a callback that fails is reported", function()
    local c = connect(era, { on_elicit = function() error("user closed the dialog") end })
    if era == "legacy" then
      local r = c:call("ask")
      expect.truthy(r.isError)
      expect.match(r.content[1].text, "user closed the dialog", true)
    else
      expect.error(function() c:call("ask") end, "user closed the dialog")
    end
    c:close()
  end)

  test(era .. ": events and subscriptions", function()
    local c = connect(era)
    local updated = nil
    c:on("resource_updated", function(p) updated = p.uri end)
    c:subscribe("test://static")
    for _ = 1, 100 do
      if updated then break end
      task.sleep(0.02)
    end
    expect.eq(updated, "test://static")
    if era == "legacy" then
      local changed, logged = false, nil
      c:on("tools_changed", function() changed = true end)
      c:on("log", function(p) logged = p.data.note end)
      c:call("notify")
      for _ = 1, 100 do
        if changed and logged then break end
        task.sleep(0.02)
      end
      expect.truthy(changed)
      expect.eq(logged, "hello")
    end
    expect.error(function() c:on("nonsense", print) end, "unknown event nonsense")
    c:close()
  end)

  test(era .. ": tasks are followed to completion", function()
    local c = connect(era, { on_elicit = function() return { action = "accept", content = { name = "ok" } } end })
    local statuses = {}
    local r = c:call("long_task", { seconds = 0.2 }, { task = true, progress = function(p) statuses[#statuses + 1] = p.status end })
    expect.eq(r.content[1].text, "task finished")
    task.sleep(0.05)
    expect.truthy(#statuses >= 2, inspect(statuses))
    c:close()
  end)
end

test("waiting on a connection inside pcall is refused clearly", function()
  local c = connect("legacy")
  expect.error(function()
    pcall(function() c:call("echo", { message = "x" }) end)
  end, "conn:call: cannot wait inside pcall; use task.pcall")
  c:close()
end)

test("connect errors", function()
  local err = expect.error(function() mcp.connect({ name = "ghost", command = "no-such-server-xyz" }) end, "ghost")
  expect.eq(err.kind, "process")
  for _ = 1, 10 do
    err = expect.error(function() mcp.connect({ name = "nope", command = "/bin/false" }) end, 'server "nope" exited with status 1')
    expect.eq(err.kind, "process")
  end
  expect.error(function() mcp.connect({}) end, "command or url is required")
  expect.error(function() mcp.connect({ command = FAKE, url = "http://127.0.0.1:1/mcp" }) end, "not both")
  expect.error(function() mcp.connect({ url = "ftp://x/mcp" }) end, "http:// or https://")
  expect.error(function() mcp.connect({ url = "http://127.0.0.1:1/mcp", headers = "x" }) end, "headers must be a table")
  -- Nothing listening: the error names the endpoint.
  err = expect.error(function() mcp.connect({ url = "http://127.0.0.1:1/mcp", startup_timeout = 5 }) end, "cannot reach MCP server")
  expect.eq(err.kind, "process")
  expect.error(function() mcp.connect({ command = FAKE, timeout = "soon" }) end, "timeout must be a number of seconds")
  err = expect.error(function()
    mcp.connect({ command = FAKE, args = { "-era", "legacy" }, protocol = "modern", timeout = 2 })
  end, 'use protocol = "legacy" or "auto"')
  expect.eq(err.kind, "protocol")
end)
