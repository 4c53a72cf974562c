-- The context window from Lua: context_window, a Lua summarize(messages,
-- focus), a:pin, a:compact(focus) and a:context() (stdlib/doc/context.md).

-- model answers each prompt, reporting input tokens near the window.
local function model(seen)
  return function(req)
    seen[#seen + 1] = req
    local last = req.messages[#req.messages].parts[1].text
    return { text = "answer to " .. last, usage = { input_tokens = 900, output_tokens = 3 } }
  end
end

test("a request at 80% of the window compacts before the next, with the Lua summariser; pins survive", function()
  local seen, calls = {}, {}
  local a = agent.new{ model = model(seen), hub = false, context_window = 1000, keep_turns = 1,
    summarize = function(messages, focus)
      calls[#calls + 1] = { n = #messages, focus = focus, first = messages[1].parts[1].text }
      return "LUA SUMMARY"
    end }
  a:pin("the user is Ada")
  local compacted = 0
  a:on("PreCompact", function(ev) compacted = compacted + 1; expect.eq(ev.trigger, "auto") end)
  a:ask("one")
  local events = {}
  a:ask("two", { on_event = function(e) if e.type == "compact" then events[#events + 1] = e end end })
  expect.eq(#events, 1)
  expect.eq(events[1].trigger, "auto")
  expect.eq(events[1].pre_tokens, 900)
  expect.match(events[1].message, "compacted 2 messages", true)
  expect.eq(#calls, 1)
  expect.eq(calls[1], { n = 2, focus = "", first = "one" })
  expect.eq(compacted, 1)
  local msgs = seen[2].messages
  expect.eq(#msgs, 2)
  expect.match(msgs[1].parts[1].text, "LUA SUMMARY", true)
  expect.match(msgs[1].parts[1].text, "the user is Ada", true)
  expect.eq(msgs[2].parts[1].text, "two")
end)

test("a:compact(focus) on demand, a:context() says where the tokens go", function()
  local seen, focus = {}, nil
  local a = agent.new{ model = model(seen), hub = false, system = "be brief", context_window = 100000,
    summarize = function(_, f) focus = f; return "short" end }
  a:ask("one")
  a:ask("two")
  a:ask("three")
  local r = a:compact("the numbers")
  expect.eq(focus, "the numbers")
  expect.eq(r.summarized, 2)
  expect.eq(r.kept, 4)
  expect.eq(r.summary, "short")
  local c = a:context()
  expect.eq(c.window, 100000)
  expect.eq(c.compactions, 1)
  expect.eq(c.parts[1].name, "system prompt")
  expect.match(c.text, "bytes/4", true)
end)

test("a summariser that returns no text fails the compaction, the conversation stays", function()
  local a = agent.new{ model = model({}), hub = false, summarize = function() return nil end }
  a:ask("one")
  a:ask("two")
  a:ask("three")
  local ok, err = task.pcall(a.compact, a)
  expect.eq(ok, false)
  expect.match(tostring(err.message or err), "summarize must return the summary", true)
  expect.eq(#a:messages(), 6)
end)

test("bad options are errors naming them", function()
  for _, o in ipairs({ { context_window = 0 }, { context_window = 1.5 }, { compact_at = 2 }, { summarize = "x" } }) do
    o.model = "mock"; o.hub = false
    local ok, err = pcall(agent.new, o)
    expect.eq(ok, false)
  end
  -- The mock's window is unknown, unless context_window says otherwise.
  expect.eq(agent.new{ model = "mock", hub = false }:context().window, 0)
  expect.eq(agent.new{ model = "mock", hub = false, context_window = 5000 }:context().window, 5000)
end)
