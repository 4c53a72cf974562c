-- Interop with real servers (see mcp_test.go TestInterop).

local function with(server, extra)
  local o = { name = extra and extra.name or "peer", command = server.command, args = server.args, url = server.url, timeout = 20, startup_timeout = 60 }
  for k, v in pairs(extra or {}) do o[k] = v end
  return mcp.connect(o)
end

local function names(list)
  local out = {}
  for _, x in ipairs(list) do out[#out + 1] = x.name end
  table.sort(out)
  return out
end

local function has(list, name)
  for _, x in ipairs(list) do if x == name then return true end end
  return false
end

-- server-everything registers the tools that need a client capability
-- (sampling, elicitation, roots) only after the handshake; over HTTP a call
-- right after connecting can be faster than that. Wait for one to appear.
-- (A call of an unlisted tool refreshes the list once before failing.)
local function call_listed(c, name, args, opts)
  for _ = 1, 100 do
    local ok, r = task.pcall(function() return c:call(name, args, opts) end)
    if ok then return r end
    if r.kind ~= "not_found" then error(r, 0) end
    task.sleep(0.05)
  end
  return c:call(name, args, opts)
end

local elicited, sampled = {}, {}
local callbacks = {
  on_elicit = function(p)
    elicited[#elicited + 1] = p.message
    local content = {}
    for k, prop in pairs(p.requestedSchema.properties) do
      if prop.type == "string" and not prop.enum and not prop.oneOf and not prop.format then content[k] = "Ada"
      elseif prop.oneOf then content[k] = prop.oneOf[1].const
      elseif prop.enum then content[k] = prop.enum[1]
      end
    end
    return { action = "accept", content = content }
  end,
  on_sample = function(p)
    sampled[#sampled + 1] = p.messages[1].content.text
    return { role = "assistant", content = { type = "text", text = "sampled by Lua" }, model = "lua-test", stopReason = "endTurn" }
  end,
  roots = { { uri = "file:///tmp", name = "tmp" } },
}

-- server-everything over stdio, over Streamable HTTP (its stateful
-- TypeScript SDK 1.x server, with resumable SSE) and over the deprecated
-- HTTP+SSE transport (reached by falling back after POST /sse is a 404).
for _, ev in ipairs({ { "stdio", EVERYTHING }, { "HTTP", EVERYTHING_HTTP }, { "HTTP+SSE", EVERYTHING_SSE } }) do
  local transport, EVERYTHING = ev[1], ev[2]
  test("server-everything (" .. transport .. "): legacy era, every tool listed", function()
    local c = with(EVERYTHING, { name = "everything" })
    local info = c:info()
    expect.eq(info.era, "legacy")
    expect.eq(info.protocol_version, "2025-11-25")
    expect.eq(info.name, "mcp-servers/everything")
    local tools = names(c:tools())
    for _, want in ipairs({ "echo", "get-sum", "trigger-long-running-operation", "get-structured-content", "get-tiny-image" }) do
      expect.truthy(has(tools, want), want .. " missing from " .. inspect(tools))
    end
    expect.eq(c:call("echo", { message = "hi" }).content[1].text, "Echo: hi")
    expect.eq(c:call("get-sum", { a = 2, b = 3 }).content[1].text, "The sum of 2 and 3 is 5.")
    local s = c:call("get-structured-content", { location = "Chicago" })
    expect.truthy(s.structuredContent.temperature)
    local img = c:call("get-tiny-image")
    local found = false
    for _, b in ipairs(img.content) do found = found or b.type == "image" end
    expect.truthy(found)
    -- Arguments are checked against the schema before sending.
    expect.error(function() c:call("get-sum", { a = "two", b = 3 }) end, "argument a is a string, want a number")
    c:close()
  end)

  test("server-everything (" .. transport .. "): progress of a long-running operation", function()
    local c = with(EVERYTHING)
    local seen = {}
    local r = c:call("trigger-long-running-operation", { duration = 1, steps = 4 },
      { progress = function(p) seen[#seen + 1] = p.progress .. "/" .. p.total end })
    expect.match(r.content[1].text, "Long running operation completed")
    task.sleep(0.05)
    expect.eq(seen, { "1/4", "2/4", "3/4", "4/4" })
    c:close()
  end)

  test("server-everything (" .. transport .. "): resources, templates, prompts, completion", function()
    local c = with(EVERYTHING)
    local res = c:resources()
    expect.eq(#res, 7)
    local read = c:read(res[1].uri)
    expect.truthy(#read.contents[1].text > 0)
    local tpl = c:templates()
    expect.eq(#tpl, 2)
    expect.match(c:read("demo://resource/dynamic/text/1").contents[1].uri, "demo://resource/dynamic/text/1", true)
    local err = expect.error(function() c:read("demo://nope") end, "not found")
    expect.eq(err.kind, "not_found")
    expect.truthy(has(names(c:prompts()), "args-prompt"))
    local p = c:prompt("args-prompt", { city = "Paris" })
    expect.match(p.messages[1].content.text, "Paris")
    local comp = c:complete({ type = "ref/prompt", name = "completable-prompt" }, { name = "department", value = "S" })
    expect.eq(comp.values, { "Sales", "Support" })
    c:close()
  end)

  test("server-everything (" .. transport .. "): sampling, elicitation and roots answered by Lua", function()
    local c = with(EVERYTHING, callbacks)
    local r = call_listed(c, "trigger-sampling-request", { prompt = "say hi", maxTokens = 20 })
    expect.match(r.content[1].text, "sampled by Lua", true)
    expect.match(sampled[#sampled], "say hi", true)
    r = c:call("trigger-elicitation-request")
    expect.falsy(r.isError)
    expect.match(elicited[#elicited], "Please provide inputs", true)
    r = c:call("get-roots-list")
    expect.match(r.content[1].text, "file:///tmp", true)
    c:close()
  end)

  test("server-everything (" .. transport .. "): a task-only tool runs as a task, with status updates", function()
    local c = with(EVERYTHING, callbacks)
    local statuses = {}
    local r = call_listed(c, "simulate-research-query", { topic = "lua", ambiguous = true }, {
      task = true, progress = function(p) if p.status then statuses[#statuses + 1] = p.status end end })
    expect.match(r.content[1].text, "Research Report", true)
    task.sleep(0.05)
    expect.truthy(has(statuses, "working"), inspect(statuses))
    expect.truthy(has(statuses, "completed"), inspect(statuses))
    expect.match(elicited[#elicited], "multiple interpretations", true)
    c:close()
  end)

  test("server-everything (" .. transport .. "): cancelling the Lua task cancels the call", function()
    local c = with(EVERYTHING)
    local err = expect.error(function()
      task.timeout(0.3, function() c:call("trigger-long-running-operation", { duration = 5, steps = 5 }) end)
    end, "timed out")
    expect.eq(err.kind, "timeout")
    -- The connection is still fine.
    expect.eq(c:call("echo", { message = "after" }).content[1].text, "Echo: after")
    c:close()
  end)
end

test("server-filesystem: read_text_file", function()
  local c = with(FILESYSTEM, { name = "fs" })
  expect.eq(c:info().era, "legacy")
  local r = c:call("read_text_file", { path = FS_ROOT .. "/hello.txt" })
  expect.eq(r.content[1].text, "hello from the filesystem\n")
  expect.eq(r.structuredContent.content, "hello from the filesystem\n")
  local denied = c:call("read_text_file", { path = "/etc/passwd" })
  expect.truthy(denied.isError)
  c:close()
end)

for _, case in ipairs({
  { "modern", GOSDK_MODERN, "modern", "2026-07-28" },
  { "legacy", GOSDK_LEGACY, "legacy", "2025-11-25" },
  { "sdk-legacy (-32022 listing only legacy versions)", GOSDK_SDK_LEGACY, "legacy", "2025-11-25" },
  { "over HTTP, stateful (2025-11-25 sessions)", GOSDK_HTTP_STATEFUL, "legacy", "2025-11-25" },
  { "over HTTP, stateless (2026-07-28)", GOSDK_HTTP_STATELESS, "modern", "2026-07-28" },
}) do
  local label, server, era, version = case[1], case[2], case[3], case[4]
  test("go-sdk v1.8.0 server, " .. label, function()
    local c = with(server, callbacks)
    local info = c:info()
    expect.eq(info.era, era)
    expect.eq(info.protocol_version, version)
    expect.eq(info.name, "luagent-gosdk-testserver")
    expect.truthy(has(names(c:tools()), "echo"))
    expect.eq(c:call("echo", { message = "go" }).content[1].text, "go")
    local sum = c:call("add", { a = 1.5, b = 2 })
    expect.eq(sum.structuredContent.sum, 3.5)
    local seen = 0
    expect.eq(c:call("slow", { seconds = 0.3 }, { progress = function() seen = seen + 1 end }).isError, nil)
    task.sleep(0.05)
    expect.truthy(seen >= 2, "progress events: " .. seen)
    expect.match(c:call("ask").content[1].text, "hello Ada", true)
    expect.match(c:call("sample", { prompt = "hi" }).content[1].text, "sampled by Lua", true)
    expect.match(c:call("roots").content[1].text, "file:///tmp", true)
    expect.eq(c:read("test://static").contents[1].text, "static content")
    expect.eq(c:read("test://items/7").contents[1].text, "item 7")
    expect.eq(c:prompt("greet", { name = "Lua" }).messages[1].content.text, "Hello, Lua!")
    expect.truthy(has(c:complete({ type = "ref/prompt", name = "greet" }, { name = "name", value = "a" }).values, "alice"))
    c:close()
  end)
end

test("go-sdk v1.8.0 server: pagination is followed", function()
  local args = {}
  for i, a in ipairs(GOSDK_MODERN.args) do args[i] = a end
  for _, a in ipairs({ "-tools", "120", "-page-size", "50" }) do args[#args + 1] = a end
  local c = with({ command = GOSDK_MODERN.command, args = args })
  local tools = c:tools()
  expect.truthy(#tools >= 126, "tools: " .. #tools)
  c:close()
end)
