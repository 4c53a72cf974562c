-- Every kind registered twice under one key, and a tool between them: the
-- second registration replaces the first where it stands.
local s = mcp.server{ name = "replace-lua", version = "1.0.0" }
for _, word in ipairs({ "first", "second" }) do
  s:tool{ name = "t", handler = function() return word end }
  if word == "first" then s:tool{ name = "u", handler = function() return "u" end } end
  s:resource{ uri = "n://static", read = function() return word end }
  s:template{ uriTemplate = "n://{id}", read = function(v) return word .. " " .. v.id end,
    complete = { id = function() return { word } end } }
  s:prompt{ name = "p", get = function() return word end }
end
return s
