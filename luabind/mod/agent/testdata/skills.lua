-- agent.new{skills = ...}: the local skills (HOME/skills/notes) and the
-- hub's servers' (runtime/testkit/servers/skills: pdf-processing, and evil,
-- tampered), offered to a Lua-function model.

local function the_hub()
  return mcp.hub{ servers = { docs = { command = SKILLS, args = { "-dir", SKILLS_DIR, "-tamper", "evil" } } } }
end

local scripted = require("scripted")

local function tool_names(req)
  local names = {}
  for _, t in ipairs(req.tools) do names[t.name] = true end
  return names
end

test("the model sees the skills, loads them and reads their files; a tampered one is an error", function()
  local h = the_hub()
  local model, seen = scripted{
    { tool_calls = {
      { name = "load_skill", arguments = { name = "notes" } },
      { name = "load_skill", arguments = { name = "docs__evil" } },
    } },
    { tool_calls = { { name = "read_skill_file", arguments = { name = "notes", path = "templates/meeting.md" } } } },
  }
  local text, tr = agent.new{ model = model, hub = h }:ask("take notes")
  expect.eq(text, "done")
  expect.match(seen[1].system, "\n- notes: Take meeting notes", true)
  expect.match(seen[1].system, "\n- docs__pdf-processing: Extract, fill, and assemble PDF documents", true)
  expect.truthy(tool_names(seen[1]).load_skill and tool_names(seen[1]).read_skill_file)
  expect.eq(tr.tool_calls[1].decision, "allow")
  expect.match(tr.tool_calls[1].result.content[1].text, "Use templates/meeting.md.", true)
  expect.eq(tr.tool_calls[2].error_kind, "integrity")
  expect.eq(tr.tool_calls[3].result.content[1].text, "# Meeting\n")
  h:close()
end)

test("skills = false offers none; a list of names only those", function()
  local h = the_hub()
  local model, seen = scripted{}
  agent.new{ model = model, hub = h, skills = false }:ask("hi")
  expect.falsy(tool_names(seen[1]).load_skill)
  expect.falsy((seen[1].system or ""):find("## Skills", 1, true))

  model, seen = scripted{}
  agent.new{ model = model, hub = h, skills = { "pdf-processing" } }:ask("hi")
  expect.match(seen[1].system, "- docs__pdf-processing:", true)
  expect.falsy(seen[1].system:find("- notes:", 1, true))

  model, seen = scripted{}
  agent.new{ model = model, hub = false }:ask("hi")
  expect.match(seen[1].system, "- notes: Take meeting notes", true)

  local err = expect.error(function() agent.new{ model = model, hub = false, skills = "notes" } end)
  expect.eq(err.kind, "invalid")
  h:close()
end)
