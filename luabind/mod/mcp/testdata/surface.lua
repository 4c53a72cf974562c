-- Parts of the Lua server surface the other servers leave out (see
-- server_surface_test.go): s:complete's catch-all, s:skill{dir=|file=}
-- and the mistakes those report where they are made. LUAGENT is the
-- binary, SERVERS the folder of test servers, SKILLS_DIR the skills.

for _, era in ipairs({ "modern", "legacy" }) do
  test(era .. ": the catch-all completion and skills from files", function()
    local c = mcp.connect{ name = "surface", protocol = era, command = LUAGENT, args = { "serve", SERVERS .. "/surface.lua" }, timeout = 10 }
    expect.eq(c:complete({ type = "ref/prompt", name = "p" }, { name = "who", value = "a" }, { lang = "en" }).values,
      { "ref/prompt", "p", "-", "who", "a", "lang=en", era })
    expect.eq(c:complete({ type = "ref/resource", uri = "x://{id}" }, { name = "id", value = "" }).values,
      { "ref/resource", "-", "x://{id}", "id", "", "", era })
    local list, problems = c:skills()
    expect.eq(#problems, 0)
    local names = {}
    for _, sk in ipairs(list) do names[#names + 1] = sk.name end
    table.sort(names)
    expect.eq(names, { "evil", "pdf-processing" })
    local _, files = c:load_skill("pdf-processing")
    expect.eq(files, { "references/FORMS.md" })
    _, files = c:load_skill("evil")
    expect.eq(files, { "notes.md" })
    expect.eq(c:read_skill_file("evil", "notes.md"), "n\n")
    c:close()
  end)
end

test("s:skill and s:skills_dir report what they cannot read", function()
  local s = mcp.server{ name = "mistakes" }
  local missing = SKILLS_DIR .. "/no-such-skill"
  expect.error(function() s:skill{ name = "other", dir = SKILLS_DIR .. "/pdf-processing" } end,
    'name "other" is not the name in SKILL.md\'s front matter (pdf-processing)')
  expect.error(function() s:skill{ dir = missing } end, "skill folder: ")
  expect.error(function() s:skill{ dir = SKILLS_DIR } end, "has no SKILL.md")
  expect.error(function() s:skill{ file = missing .. "/SKILL.md" } end, "skill file: ")
  expect.error(function() s:skills_dir(missing) end, "skills folder: ")
  expect.eq(s:skills_dir(SKILLS_DIR), 2)
end)
