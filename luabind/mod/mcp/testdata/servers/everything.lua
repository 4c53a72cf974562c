-- A server exercising the whole Lua server API, for the tests.
local s = mcp.server{ name = "everything-lua", version = "2.0.0", title = "Everything (Lua)",
  instructions = "A test server." }

s:tool{ name = "echo", input = { message = "string" }, handler = function(a) return a.message end }

s:tool{ name = "add", description = "Add two numbers",
  input = { a = "number", b = { type = "number", description = "the second" } },
  annotations = { readOnlyHint = true },
  handler = function(a) return a.a + a.b end }

s:tool{ name = "structured", input = { city = "string" },
  output = { temperature = "number", city = "string" },
  handler = function(a) return { city = a.city, temperature = 21.5 } end }

s:tool{ name = "bad_output", output = { n = "number" }, handler = function() return { n = "not a number" } end }

s:tool{ name = "fail", handler = function() error("the tool broke") end }
s:tool{ name = "fail_nil", handler = function() return nil, "nothing to return" end }
s:tool{ name = "fail_table", handler = function() error({ code = 7 }) end }

s:tool{ name = "content", handler = function()
  return {
    { type = "text", text = "a picture:" },
    { type = "image", data = "iVBORw0KGgo=", mimeType = "image/png" },
    { type = "resource_link", uri = "test://static", name = "static" },
  }
end }

s:tool{ name = "full_result", handler = function()
  return { content = { { type = "text", text = "custom" } }, isError = true }
end }

local finished_slow = 0
s:tool{ name = "slow", input = { seconds = "number" }, handler = function(a, ctx)
  local steps = math.floor(a.seconds * 10)
  for i = 1, steps do
    task.sleep(0.1)
    ctx:progress(i, steps, "step " .. i)
  end
  finished_slow = finished_slow + 1
  return "slept " .. a.seconds
end }

s:tool{ name = "finished_slow", handler = function() return finished_slow end }

s:tool{ name = "spin", handler = function() while true do end end }

s:tool{ name = "log", handler = function(_, ctx)
  for _, lvl in ipairs({ "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency" }) do
    ctx:log(lvl, { level = lvl })
  end
  return "logged"
end }

s:tool{ name = "ask_twice", handler = function(_, ctx)
  local first = ctx:elicit{ message = "First name?", schema = { name = "string" } }
  if first.action ~= "accept" then return "declined" end
  local second = ctx:elicit{ message = "Favourite colour?", schema = { colour = "string" } }
  return "hello " .. first.content.name .. ", who likes " .. second.content.colour
end }

s:tool{ name = "sample", handler = function(_, ctx)
  local r = ctx:sample{ messages = "Say something", maxTokens = 20 }
  return "the model said: " .. r.content.text
end }

s:tool{ name = "roots", handler = function(_, ctx)
  local out = {}
  for _, r in ipairs(ctx:roots()) do out[#out + 1] = r.uri end
  return table.concat(out, ",")
end }

s:tool{ name = "ask_all", handler = function(_, ctx)
  local a = ctx:ask{
    who = { elicit = { message = "Who?", schema = { name = "string" } } },
    said = { sample = { messages = "Say something", maxTokens = 5 } },
    where = { roots = {} },
    raw = { method = "elicitation/create", params = { message = "Raw?", requestedSchema = { type = "object", properties = {} } } },
  }
  return a.who.content.name .. " / " .. a.said.content.text .. " / " .. #a.where .. " roots / " .. a.raw.action
end }

s:tool{ name = "ask_badly", input = { how = "string" }, handler = function(args, ctx)
  if args.how == "spec" then return ctx:ask{ x = { shout = {} } } end
  if args.how == "method" then return ctx:ask{ x = { method = "tools/call" } } end
  if args.how == "capability" then ctx:require_capability("telepathy") end
  return "unreachable"
end }

s:tool{ name = "needs_sampling", handler = function(_, ctx)
  ctx:require_capability("sampling", "roots")
  return "has both"
end }

s:tool{ name = "touch_list", handler = function() s:list_changed("prompts"); return "ok" end }

s:tool{ name = "whoami", handler = function(_, ctx)
  return ctx.client.era .. " " .. ctx.client.protocol_version .. " " .. (ctx.client.name or "?")
end }

s:tool{ name = "add_tool", input = { name = "string" }, handler = function(a)
  s:tool{ name = a.name, handler = function() return "I am " .. a.name end }
  return "added " .. a.name
end }

s:tool{ name = "touch", input = { uri = "string" }, handler = function(a)
  s:resource_updated(a.uri)
  return "touched"
end }

s:resource{ uri = "test://static", name = "static", mimeType = "text/plain", read = function() return "static text" end }
s:resource{ uri = "test://binary", name = "binary", mimeType = "application/octet-stream",
  read = function() return { bytes = "\0\1\2\3" } end }

s:template{ uriTemplate = "test://items/{id}", name = "item", mimeType = "text/plain",
  read = function(vars) return "item " .. vars.id end,
  complete = { id = function(value) return { "1", "2", "10" } end } }

s:prompt{ name = "greet", description = "A greeting",
  arguments = { { name = "name", required = true, complete = function(v) return { "alice", "alfred", "bob" } end } },
  get = function(args) return "Hello, " .. args.name .. "!" end }

s:prompt{ name = "conversation", get = function()
  return { description = "two turns", messages = {
    { role = "user", content = "hi" },
    { role = "assistant", content = { type = "text", text = "hello" } } } }
end }

return s
