-- A server whose tool asks its client's user for a name (elicitation).
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
return s
