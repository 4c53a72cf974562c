-- A Lua server for surface.lua (see server_surface_test.go): s:complete's
-- catch-all, which sees every ref and argument without a completer of its
-- own, and skills read from a folder and from a file. SKILLS_DIR (env) is
-- a folder of skill folders.
local s = mcp.server{ name = "surface", version = "1.0.0" }
local skills = os.getenv("SKILLS_DIR")

s:prompt{ name = "p", arguments = { { name = "who" }, { name = "lang" } }, get = function(a) return "hi " .. tostring(a.who) end }
s:template{ uriTemplate = "x://{id}", read = function(v) return v.id end }
s:complete(function(ref, arg, ctx)
  local given = {}
  for k, v in pairs(arg.context) do given[#given + 1] = k .. "=" .. v end
  table.sort(given)
  return { ref.type, ref.name or "-", ref.uri or "-", arg.name, arg.value, table.concat(given, ","), ctx.era }
end)

s:skill{ dir = skills .. "/pdf-processing" }
s:skill{ name = "evil", file = skills .. "/evil/SKILL.md", files = { ["notes.md"] = "n\n" } }

return s
