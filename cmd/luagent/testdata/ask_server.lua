-- A server whose tools ask its client: a user for a name (elicitation),
-- a model for a summary (sampling).
local s = mcp.server{ name = "asker", version = "1.0.0" }
s:tool{
  name = "greet",
  description = "Greet the user by the name they give",
  annotations = { readOnlyHint = true },
  handler = function(_, ctx)
    local r = ctx:elicit{ message = "What is your name?", schema = { name = "string" } }
    return "greeting: " .. tostring(r.action) .. " " .. tostring(r.content and r.content.name or "")
  end,
}
s:tool{
  name = "summarize",
  description = "Summarize a text with the client's model (sampling)",
  annotations = { readOnlyHint = true },
  handler = function(_, ctx)
    local r = ctx:sample{ messages = { { role = "user", content = "summarize" } }, maxTokens = 10 }
    return "sampled: " .. tostring(r.content and r.content.text)
  end,
}
-- meet asks once two calls have arrived, so that two served agent runs
-- wait on this server at once (each must get its own answer).
local arrived, gate = 0, task.queue(8)
s:tool{
  name = "meet",
  description = "Meet someone, two at a time",
  annotations = { readOnlyHint = true },
  handler = function(_, ctx)
    arrived = arrived + 1
    if arrived == 2 then gate:put(true); gate:put(true) end
    if arrived <= 2 then gate:take() end
    local r = ctx:elicit{ message = "Who are you?", schema = { name = "string" } }
    return "met: " .. tostring(r.action) .. " " .. tostring(r.content and r.content.name or "")
  end,
}
return s
