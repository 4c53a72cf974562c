-- Code mode from Lua: run_lua snippets written by Lua-function models,
-- over server-everything and a Lua server (kv), each run in a fresh
-- sandbox, every inner call through the agent's policy.

local scripted = require("scripted")

local function the_hub()
  return mcp.hub{ servers = {
    kv = { command = LUAGENT, args = { "serve", KV }, startupTimeoutSeconds = 20 },
    everything = { command = EVERYTHING, args = EVERYTHING_ARGS, startupTimeoutSeconds = 60 },
  } }
end

local h = the_hub()

-- marked(code) is code with MARK_PATH replaced by the mark file's path.
local function marked(code)
  return (code:gsub("MARK_PATH", string.format("%q", MARK)))
end

-- run(code) is a model that runs code once, then answers with its result.
local function run(code)
  return scripted{ { tool_calls = { { id = "r1", name = "run_lua", arguments = { code = code } } } },
    { text = "answered" } }
end

-- result(seen) is the run_lua result the model's second request carried.
local function result(seen)
  local last = seen[2].messages[#seen[2].messages]
  expect.eq(last.role, "tool")
  return last.parts[1].text, last.is_error
end

test("only: run_lua is offered instead of the tools, its description lists them as Lua functions", function()
  local model, seen = run("return 1")
  local a = agent.new{ model = model, hub = h, code_mode = true }
  a:ask("go")
  local names = {}
  for _, t in ipairs(seen[1].tools) do names[#names + 1] = t.name end
  expect.truthy(not table.concat(names, " "):find("kv__lookup", 1, true))
  local desc
  for _, t in ipairs(seen[1].tools) do if t.name == "run_lua" then desc = t.description end end
  expect.match(desc, "tools.kv.lookup{key=string} -> {key=string, value=number}  -- Look a key up", true)
  expect.match(desc, "tools.everything.get_sum{a=number, b=number} -> string  -- Returns the sum of two numbers", true)
  expect.match(desc, 'tools.everything.get_structured_content{location="New York"|"Chicago"|"Los Angeles"}', true)
  -- beside: run_lua and the tools
  local model2, seen2 = run("return 1")
  agent.new{ model = model2, hub = h, code_mode = "beside" }:ask("go")
  local has = {}
  for _, t in ipairs(seen2[1].tools) do has[t.name] = true end
  expect.truthy(has.run_lua and has.kv__lookup and has.everything__echo)
end)

test("a snippet calls three tools and returns a joined table; the transcript and the trace have each call under run_lua", function()
  local model, seen = run([[
    local w = tools.everything.get_structured_content{location = "Chicago"}
    local sum = tools.everything["get-sum"]{a = w.temperature, b = 6}
    local k = tools.kv.lookup{key = "beta"}
    print("conditions:", w.conditions)
    return { sum = sum, key = k.key, value = k.value, humidity = w.humidity }
  ]])
  local a = agent.new{ model = model, hub = h, code_mode = true }
  local text, tr = a:ask("join them")
  expect.eq(text, "answered")
  local res, is_error = result(seen)
  expect.falsy(is_error)
  expect.match(res, "[printed]\nconditions:\tLight rain / drizzle\n[returned]\n", true)
  local joined = json.decode(res:match("%[returned%]\n(.*)$"))
  expect.eq(joined, { sum = "The sum of 36 and 6 is 42.", key = "beta", value = 2, humidity = 82 })
  expect.eq(#tr.tool_calls, 1)
  local rl = tr.tool_calls[1]
  expect.eq(rl.name, "run_lua")
  expect.eq(rl.kind, "code")
  expect.eq(#rl.calls, 3)
  local servers, tools = {}, {}
  for i, c in ipairs(rl.calls) do
    servers[i], tools[i] = c.server, c.tool
    expect.eq(c.parent, "r1")
    expect.eq(c.id, "r1/" .. i)
    expect.eq(c.decision, "allow")
    expect.truthy(c.duration_ns > 0)
  end
  expect.eq(servers, { "everything", "everything", "kv" })
  expect.eq(tools, { "get-structured-content", "get-sum", "lookup" })
  expect.eq(rl.calls[2].arguments, { a = 36, b = 6 })
  -- The trace: each inner call's span is a child of run_lua's.
  local span, children = nil, 0
  for _, e in ipairs(json.decode(TRACE())) do
    if e.kind == "agent_tool_start" and e.tool == "run_lua" then span = e.span end
  end
  for _, e in ipairs(json.decode(TRACE())) do
    if e.kind == "agent_tool_call" and e.parent == span and span then children = children + 1 end
  end
  expect.eq(children, 3)
end)

test("a denied call comes back as nil, err for the snippet to handle; hooks see the inner calls", function()
  local model, seen = run([[
    local ok, err = tools.kv.write{key = "x", value = 1}
    if not ok then return { handled = err.kind, why = err.message } end
    return "written"
  ]])
  local before = {}
  local a = agent.new{ model = model, hub = h, code_mode = true,
    hooks = { before_tool = function(call) before[#before + 1] = call.name .. ":" .. tostring(call.parent) end } }
  local text, tr = a:ask("write x")
  expect.eq(text, "answered")
  local res = json.decode(result(seen))
  expect.eq(res.handled, "auth")
  expect.match(res.why, "denied", true)
  expect.eq(tr.tool_calls[1].calls[1].decision, "deny")
  expect.eq(before, { "run_lua:nil", "kv__write:r1" })
  expect.eq(h:call("kv__lookup", { key = "x" }).structuredContent.value, 0)
  -- With an approve policy that allows it, the same snippet writes.
  local model2, seen2 = run("return tools.kv.write{key = 'x', value = 5}")
  agent.new{ model = model2, hub = h, code_mode = true, approve = function() return "allow" end }:ask("write x")
  expect.eq(json.decode(result(seen2)), "wrote x")
end)

-- limited(code, limits) runs code under limits; the agent still answers,
-- and the model saw an error result.
local function limited(code, limits)
  limits.mode = "only"
  local model, seen = run(marked(code))
  local t0 = NOW()
  local text, tr = agent.new{ model = model, hub = h, code_mode = limits }:ask("go")
  expect.eq(text, "answered")
  local res, is_error = result(seen)
  expect.truthy(is_error)
  return res, tr.tool_calls[1], NOW() - t0
end

test("an infinite loop is stopped by the instruction limit, with its line", function()
  local res, rec, took = limited("local n = 0\nwhile true do\n  n = n + 1\nend", { instructions = 1e6 })
  expect.match(res, "^run_lua: snippet:[34]: instruction limit of 1000000 reached")
  expect.eq(rec.error_kind, "limit")
  expect.truthy(took < 2)
end)

test("a memory bomb is stopped by the memory ceiling", function()
  local res, rec = limited("local s = 'x'\nfor i = 1, 40 do\n  s = s .. s\nend\nreturn #s", { memory = 8 * 1024 * 1024 })
  expect.match(res, "snippet:3: memory limit of 8 MiB reached by '..'", true)
  expect.eq(rec.error_kind, "limit")
end)

test("a 1,000-call loop is stopped by the tool call limit; the calls before it ran", function()
  local res, rec = limited("for i = 1, 1000 do\n  tools.kv.lookup{key = 'alpha'}\nend", { tool_calls = 20 })
  expect.match(res, "snippet:2: tool call limit of 20 reached by tools.kv.lookup", true)
  expect.eq(rec.error_kind, "limit")
  expect.eq(#rec.calls, 20)
end)

test("the time limit stops a snippet waiting on a tool, and the tool's call is cancelled", function()
  os.remove(MARK)
  local res, rec, took = limited("print('start')\nreturn tools.kv.wait{mark = MARK_PATH}", { time = 0.5 })
  expect.match(res, "time limit of 500ms exceeded", true)
  expect.match(res, "[printed before the error]\nstart", true)
  expect.eq(rec.error_kind, "timeout")
  expect.truthy(took < 5)
end)

test("errors and output: a Lua error has its line, a syntax error its kind, long output is cut with a note", function()
  local res = limited("local t = nil\nreturn t.x", {})
  expect.match(res, "snippet:2: attempt to index", true)
  local res2, rec2 = limited("return (", {})
  expect.eq(rec2.error_kind, "syntax")
  expect.match(res2, "snippet", true)
  local model, seen = run("for i = 1, 2000 do print(string.rep('y', 20)) end return 'end'")
  agent.new{ model = model, hub = h, code_mode = { output = 1000 } }:ask("go")
  local out = result(seen)
  expect.match(out, "[truncated: ", true)
  expect.truthy(#out < 1200)
  -- tools that are not there say so
  local res3 = limited("return tools.nosuch.x{}", {})
  expect.match(res3, "tools.nosuch is not a tool or server here", true)
end)

test("cancelling the turn stops the snippet and cancels its running calls on the servers", function()
  os.remove(MARK)
  local model = scripted{ { tool_calls = { { id = "r1", name = "run_lua", arguments = { code = marked[[
    local a = task.spawn(function() return tools.kv.wait{mark = MARK_PATH} end)
    return tools.everything["trigger-long-running-operation"]{duration = 30, steps = 30}
  ]] } } } } }
  local a = agent.new{ model = model, hub = h, code_mode = true }
  local progressed = {}
  local t0 = NOW()
  local asking
  asking = task.spawn(function()
    return a:ask("go", { on_event = function(e)
      if e.type == "tool_progress" and e.call.parent == "r1" then
        progressed[e.call.server] = true
        if progressed.kv and progressed.everything then asking:cancel() end
      end
    end })
  end)
  local ok, err = task.pcall(asking.await, asking)
  expect.falsy(ok)
  expect.eq(err.kind, "cancelled")
  expect.truthy(NOW() - t0 < 10)
  -- The Lua server saw its call cancelled; the hub told server-everything.
  local saw = false
  for _ = 1, 500 do
    local f = io.open(MARK, "r")
    if f then saw = f:read("*a") == "cancelled"; f:close(); break end
    task.sleep(0.01)
  end
  expect.truthy(saw)
  -- (The notification goes out as the call is abandoned, maybe just after.)
  local told = false
  for _ = 1, 500 do
    for _, e in ipairs(json.decode(TRACE())) do
      if e.kind == "notification_out" and e.server == "everything" and e.method == "notifications/cancelled" then told = true end
    end
    if told then break end
    task.sleep(0.01)
  end
  expect.truthy(told)
end)
