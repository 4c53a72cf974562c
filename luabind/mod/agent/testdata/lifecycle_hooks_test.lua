-- The lifecycle hooks in Lua: hooks = {PreToolUse = fn or {fn, ...}} and
-- a:on(event, fn), several handlers per event, any one vetoes; the return
-- shape is a hook command's JSON output (stdlib/doc/hooks.md).

local scripted = require("scripted")

local function writer(log)
  return { name = "write", input = { text = "string" },
    handler = function(args) log[#log + 1] = args.text; return "wrote " .. args.text end }
end

test("several PreToolUse handlers: the second vetoes with a reason the model sees", function()
  local log, order = {}, {}
  local model, seen = scripted{ { tool_calls = { { name = "write", arguments = { text = "x" } } } } }
  local a = agent.new{ model = model, hub = false, yes = true, tools = { writer(log) },
    hooks = { PreToolUse = {
      function(ev)
        expect.match(ev.session_id, "^%x+%-%x+%-4%x+%-%x+%-%x+$")
        order[#order + 1] = "first " .. ev.tool_name .. " " .. ev.tool_input.text .. " " .. ev.hook_event_name
      end,
      function(ev) order[#order + 1] = "second"; return false, "not today" end,
    } } }
  local _, tr = a:ask("write")
  expect.eq(order, { "first write x PreToolUse", "second" })
  expect.eq(#log, 0)
  expect.eq(tr.tool_calls[1].decision, "deny")
  expect.match(seen[2].messages[#seen[2].messages].parts[1].text, "PreToolUse hook: not today", true)
end)

test("a:on adds handlers; permissionDecision allow runs a call nobody could be asked about, updatedInput changes it", function()
  local log = {}
  local model = scripted{ { tool_calls = { { name = "write", arguments = { text = "x" } } } } }
  local a = agent.new{ model = model, hub = false, tools = { writer(log) } }
  a:on("PreToolUse", function(ev)
    return { hookSpecificOutput = { hookEventName = "PreToolUse", permissionDecision = "allow",
      permissionDecisionReason = "a safe write", updatedInput = { text = "y" } } }
  end)
  local _, tr = a:ask("write")
  expect.eq(log, { "y" })
  expect.eq(tr.tool_calls[1].decision, "allow")
  expect.match(tr.tool_calls[1].reason, "a safe write", true)
end)

test("flat fields, PostToolUse context, Stop that goes on once, and a raising handler that does not veto", function()
  local log, stops, notes = {}, {}, {}
  local model, seen = scripted{
    { tool_calls = { { name = "write", arguments = { text = "x" } } } },
    { text = "done" },
    { text = "really done" },
  }
  local a = agent.new{ model = model, hub = false, tools = { writer(log) },
    hooks = {
      PreToolUse = function() return { permissionDecision = "allow" } end,
      PostToolUse = function(ev) return { additionalContext = "the result was " .. ev.tool_response.content[1].text } end,
      Stop = function(ev)
        stops[#stops + 1] = ev.stop_hook_active
        if not ev.stop_hook_active then return { decision = "block", reason = "check the file" } end
      end,
    } }
  a:on("UserPromptSubmit", function() error("a broken handler") end)
  a:on("UserPromptSubmit", function() return {} end) -- nothing to say, nothing shown
  local text = a:ask("write", { on_event = function(e) if e.type == "hook" then notes[#notes + 1] = e.message end end })
  expect.eq(text, "really done")
  expect.eq(log, { "x" })
  expect.eq(stops, { false, true })
  expect.match(seen[2].messages[#seen[2].messages].parts[1].text, "the result was wrote x", true)
  expect.eq(seen[3].messages[#seen[3].messages].parts[1].text, "Stop hook: check the file")
  expect.match(notes[1], "a broken handler", true)
  expect.eq(#notes, 1)
end)

test("a:with keeps a:on's handlers; bad events are errors", function()
  local count = 0
  local a = agent.new{ model = "mock", hub = false }
  a:on("UserPromptSubmit", function() count = count + 1 end)
  a:with{ yes = true }:ask("hi")
  expect.eq(count, 1)
  expect.error(function() a:on("PreToolUs", function() end) end, "not an event")
  expect.error(function() agent.new{ model = "mock", hub = false, hooks = { Stop = 3 } } end, "hooks.Stop must be a function")
end)
