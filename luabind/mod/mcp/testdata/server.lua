-- The Lua server API, driven by luagent's own client in both eras (see
-- server_test.go TestServer). LUAGENT is the binary, SERVERS the folder of
-- test servers. When HTTP_URLS is set, the same tests run over Streamable
-- HTTP against servers started by the Go test: HTTP_URLS[""] plain,
-- HTTP_URLS["--handler-timeout 0.3"] with those serve arguments.

local function serve(era, extra, serve_args)
  local o = { name = "lua-server", protocol = era, timeout = 10 }
  if HTTP_URLS then
    o.url = HTTP_URLS[table.concat(serve_args or {}, " ")]
  else
    local args = { "serve" }
    for _, a in ipairs(serve_args or {}) do args[#args + 1] = a end
    args[#args + 1] = SERVERS .. "/everything.lua"
    o.command, o.args = LUAGENT, args
  end
  for k, v in pairs(extra or {}) do o[k] = v end
  return mcp.connect(o)
end

local answers = {
  on_elicit = function(p)
    if p.message:find("First") then return { action = "accept", content = { name = "Ada" } } end
    return { action = "accept", content = { colour = "green" } }
  end,
  on_sample = function(p) return { role = "assistant", content = { type = "text", text = "hi from Lua" }, model = "test" } end,
  roots = { { uri = "file:///a", name = "a" }, { uri = "file:///b" } },
}

for _, era in ipairs({ "modern", "legacy" }) do
  test(era .. ": info, lists and plain calls", function()
    local c = serve(era)
    local info = c:info()
    expect.eq(info.era, era)
    expect.eq(info.name, "everything-lua")
    expect.eq(info.instructions, "A test server.")
    local names = {}
    for _, t in ipairs(c:tools()) do names[t.name] = t end
    expect.eq(names.add.inputSchema.required, { "a", "b" })
    expect.eq(names.add.inputSchema.properties.b.description, "the second")
    expect.truthy(names.add.annotations.readOnlyHint)
    expect.eq(c:call("echo", { message = "x" }).content[1].text, "x")
    expect.eq(c:call("add", { a = 2, b = 3 }).content[1].text, "5")
    local st = c:call("structured", { city = "Oslo" })
    expect.eq(st.structuredContent, { city = "Oslo", temperature = 21.5 })
    expect.eq(json.decode(st.content[1].text).city, "Oslo")
    expect.eq(c:call("content").content[2].type, "image")
    local full = c:call("full_result")
    expect.truthy(full.isError)
    expect.eq(full.content[1].text, "custom")
    expect.eq(c:call("whoami").content[1].text, era .. " " .. (era == "modern" and "2026-07-28" or "2025-11-25") .. " luagent")
    c:close()
  end)

  test(era .. ": handler errors become isError results", function()
    local c = serve(era)
    local r = c:call("fail")
    expect.truthy(r.isError)
    expect.eq(r.content[1].text, "the tool broke")
    r = c:call("fail_nil")
    expect.eq({ r.isError, r.content[1].text }, { true, "nothing to return" })
    -- A table raised as the error is shown through inspect.
    r = c:call("fail_table")
    expect.eq({ r.isError, r.content[1].text }, { true, "{ code = 7 }" })
    r = c:call("bad_output")
    expect.truthy(r.isError)
    expect.match(r.content[1].text, "does not match its output schema: field n is a string, want a number", true)
    -- The server validates arguments too (our client would catch this one
    -- itself, so skip its check).
    local raw = c:request("tools/call", { name = "add", arguments = { a = "x", b = 1 } })
    expect.truthy(raw.isError)
    expect.eq(raw.content[1].text, "invalid arguments for tool add: argument a is a string, want a number")
    -- echo's schema (type names only) is compiled at its first call.
    raw = c:request("tools/call", { name = "echo", arguments = { message = 5 } })
    expect.truthy(raw.isError)
    expect.eq(raw.content[1].text, "invalid arguments for tool echo: argument message is an integer, want a string")
    expect.eq(c:call("echo", { message = "still serving" }).content[1].text, "still serving")
    c:close()
  end)

  test(era .. ": resources, templates, prompts, completion", function()
    local c = serve(era)
    expect.eq(#c:resources(), 2)
    expect.eq(c:read("test://static").contents[1].text, "static text")
    local bin = c:read("test://binary").contents[1]
    expect.eq({ bin.blob, bin.mimeType }, { "AAECAw==", "application/octet-stream" })
    expect.eq(c:templates()[1].uriTemplate, "test://items/{id}")
    expect.eq(c:read("test://items/42").contents[1].text, "item 42")
    local err = expect.error(function() c:read("test://nope") end)
    expect.eq(err.kind, "not_found")
    expect.eq(err.code, era == "modern" and -32602 or -32002)
    expect.eq(c:prompt("greet", { name = "Ada" }).messages[1].content.text, "Hello, Ada!")
    expect.eq(#c:prompt("conversation").messages, 2)
    expect.error(function() c:prompt("greet", {}) end, "needs argument name")
    expect.eq(c:complete({ type = "ref/prompt", name = "greet" }, { name = "name", value = "al" }).values, { "alice", "alfred", "bob" })
    expect.eq(c:complete({ type = "ref/resource", uri = "test://items/{id}" }, { name = "id", value = "1" }).values, { "1", "2", "10" })
    c:close()
  end)

  test(era .. ": progress and logging reach the client", function()
    local c = serve(era, {}, {})
    local seen = {}
    c:call("slow", { seconds = 0.3 }, { progress = function(p) seen[#seen + 1] = p.progress .. "/" .. p.total end })
    task.sleep(0.05)
    expect.eq(seen, { "1/3", "2/3", "3/3" })
    local levels = {}
    c:on("log", function(p) levels[#levels + 1] = p.level end)
    c:log_level("warning")
    c:call("log")
    task.sleep(0.1)
    expect.eq(levels, { "warning", "error", "critical", "alert", "emergency" })
    c:close()
  end)

  test(era .. ": a log handler hears logs without log_level, in both eras", function()
    local c = serve(era, {}, {})
    local levels = {}
    c:on("log", function(p) levels[#levels + 1] = p.level end)
    c:call("log")
    for _ = 1, 100 do
      if #levels == 8 then break end
      task.sleep(0.02)
    end
    expect.eq(levels, { "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency" })
    c:close()
  end)

  test(era .. ": elicitation over two rounds, sampling and roots", function()
    local c = serve(era, answers)
    expect.eq(c:call("ask_twice").content[1].text, "hello Ada, who likes green")
    expect.eq(c:call("sample").content[1].text, "the model said: hi from Lua")
    expect.eq(c:call("roots").content[1].text, "file:///a,file:///b")
    c:close()
  end)

  test(era .. ": ctx:ask asks for several inputs at once", function()
    local asked = {}
    local c = serve(era, {
      on_elicit = function(p)
        asked[#asked + 1] = p.message
        return { action = "accept", content = { name = "Ada" } }
      end,
      on_sample = answers.on_sample, roots = answers.roots,
    })
    expect.eq(c:call("ask_all").content[1].text, "Ada / hi from Lua / 2 roots / accept")
    table.sort(asked)
    expect.eq(asked, { "Raw?", "Who?" })
    -- Mistakes in the handler's asking are tool errors naming the problem.
    expect.match(c:call("ask_badly", { how = "spec" }).content[1].text, "x: say what to ask", true)
    expect.match(c:call("ask_badly", { how = "method" }).content[1].text, 'cannot ask the client for "tools/call"', true)
    expect.match(c:call("ask_badly", { how = "capability" }).content[1].text, 'unknown client capability "telepathy"', true)
    expect.eq(c:call("needs_sampling").content[1].text, "has both")
    -- s:list_changed sends the notification without changing the list.
    local changed = 0
    c:on("prompts_changed", function() changed = changed + 1 end)
    expect.eq(c:call("touch_list").content[1].text, "ok")
    task.sleep(0.1)
    if era == "legacy" then expect.eq(changed, 1) end
    c:close()
  end)

  test(era .. ": a capability the client did not declare", function()
    local c = serve(era)
    if era == "modern" then
      local err = expect.error(function() c:call("ask_twice") end)
      expect.eq(err.code, -32021)
      expect.eq(err.data.requiredCapabilities.elicitation, {})
      err = expect.error(function() c:call("needs_sampling") end)
      expect.eq(err.code, -32021)
      expect.eq(err.data.requiredCapabilities, { sampling = {}, roots = {} })
    else
      local r = c:call("ask_twice")
      expect.truthy(r.isError)
      expect.match(r.content[1].text, "did not declare the elicitation capability", true)
      r = c:call("needs_sampling")
      expect.truthy(r.isError)
      expect.match(r.content[1].text, "did not declare the sampling and roots capabilities", true)
    end
    c:close()
  end)

  test(era .. ": a handler past --handler-timeout is stopped and the server goes on", function()
    local c = serve(era, {}, { "--handler-timeout", "0.3" })
    local r = c:call("spin")
    expect.truthy(r.isError)
    expect.match(r.content[1].text, "took longer than 300ms", true)
    expect.eq(c:call("echo", { message = "alive" }).content[1].text, "alive")
    c:close()
  end)

  test(era .. ": cancelling the call stops the handler", function()
    local c = serve(era)
    local before = c:call("finished_slow").content[1].text
    local err = expect.error(function()
      task.timeout(0.2, function() c:call("slow", { seconds = 0.6 }) end)
    end, "timed out")
    expect.eq(c:call("echo", { message = "after cancel" }).content[1].text, "after cancel")
    task.sleep(0.8)
    -- Had the handler gone on, it would have finished by now.
    expect.eq(c:call("finished_slow").content[1].text, before)
    c:close()
  end)

  test(era .. ": list changes and resource updates are notified", function()
    local c = serve(era)
    local changed, updated = 0, nil
    c:on("tools_changed", function() changed = changed + 1 end)
    c:on("resource_updated", function(p) updated = p.uri end)
    c:subscribe("test://static")
    task.sleep(0.1)
    c:call("add_tool", { name = "newcomer" })
    c:call("touch", { uri = "test://static" })
    for _ = 1, 100 do
      if changed > 0 and updated then break end
      task.sleep(0.02)
    end
    expect.truthy(changed > 0)
    expect.eq(updated, "test://static")
    expect.eq(c:call("newcomer").content[1].text, "I am newcomer")
    c:close()
  end)
end

test("many calls in flight at once", function()
  local c = serve("modern")
  local fns = {}
  for i = 1, 20 do fns[i] = function() return c:call("slow", { seconds = 0.3 }).content[1].text end end
  local t0 = os.time()
  local r = task.all(fns)
  expect.eq(#r, 20)
  expect.eq(r[20], "slept 0.3")
  c:close()
end)

test("registering a key again replaces the entry where it stands, for every kind", function()
  local c = mcp.connect{ name = "replace", command = LUAGENT, args = { "serve", SERVERS .. "/replace.lua" }, timeout = 10 }
  local names = {}
  for _, t in ipairs(c:tools()) do names[#names + 1] = t.name end
  expect.eq(names, { "t", "u" })
  expect.eq(c:call("t").content[1].text, "second")
  expect.eq({ #c:resources(), #c:templates(), #c:prompts() }, { 1, 1, 1 })
  expect.eq(c:read("n://static").contents[1].text, "second")
  expect.eq(c:read("n://7").contents[1].text, "second 7")
  expect.eq(c:prompt("p").messages[1].content.text, "second")
  expect.eq(c:complete({ type = "ref/resource", uri = "n://{id}" }, { name = "id", value = "" }).values, { "second" })
  c:close()
end)

test("registration mistakes are reported where they are made", function()
  local s = mcp.server{ name = "mistakes" }
  local noop = function() end
  expect.error(function() s:tool{ name = "a", input = { n = "strng" }, handler = noop } end, 'input.n: unknown type "strng"')
  expect.error(function() s:tool{ name = "b", input = { n = "list[]?" }, handler = noop } end, 'unknown type "list[]?"')
  -- A property written as a table, or a whole schema, compiles at once.
  expect.error(function() s:tool{ name = "c", input = { n = { type = "integer", minimum = "low" } }, handler = noop } end, "input schema")
  expect.error(function() s:tool{ name = "d", input = { type = "object", properties = 5 }, handler = noop } end, "input schema")
  expect.error(function() s:tool{ name = "e", output = { type = "object", required = "x" }, handler = noop } end, "output schema")
  expect.error(function() s:tool{ name = 5, handler = noop } end, "name must be a string, not a number")
  expect.error(function() s:prompt{ name = {}, handler = noop } end, "name must be a string, not a table")
  expect.error(function() s:tool{ handler = noop } end, "name is required")
  s:tool{ name = "fine", input = { n = "integer", tags = "string[]?" }, output = { ok = "boolean" }, handler = noop }
  -- Each names the script's line, whichever part of mcp's Lua raised it.
  for _, f in ipairs({
    function() s:tool{ name = "a", input = { n = "strng" }, handler = noop } end,
    function() s:tool{ name = "d", input = { type = "object", properties = 5 }, handler = noop } end,
    function() s:resource{ uri = "x://" } end,
    function() s:auth{ authorization_servers = { "http://evil.example" } } end,
    function() mcp.server{ name = "x", capabilities = { bogus = true } } end,
    function() s.tool(nil, {}) end,
  }) do
    expect.match(tostring(expect.error(f)), "^[^:]*server%.lua:%d+: bad argument #%d to %a+ %(")
  end
end)
