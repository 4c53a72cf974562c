-- Skills over the skills extension: conn:skills, conn:load_skill,
-- conn:read_skill_file and the hub's, against runtime/testkit/servers/skills
-- (pdf-processing, and evil, whose SKILL.md is tampered with).
local function server(protocol)
  return { name = "docs", command = SKILLS, args = { "-dir", SKILLS_DIR, "-tamper", "evil" }, protocol = protocol }
end

for _, protocol in ipairs({ "legacy", "modern" }) do
  test("conn skills (" .. protocol .. ")", function()
    local c = mcp.connect(server(protocol))
    local list, problems = c:skills()
    expect.eq(#list, 2)
    expect.eq(#problems, 0)
    local pdf = list[2]
    expect.eq(pdf.name, "pdf-processing")
    expect.eq(pdf.uri, "skill://pdf-processing/SKILL.md")
    expect.eq(pdf.description, "Extract, fill, and assemble PDF documents")
    expect.eq(pdf.frontmatter.name, "pdf-processing")
    expect.eq(#pdf.resources, 2)

    local text, err = c:read_skill_file("pdf-processing", "references/FORMS.md")
    expect.eq(text, nil)
    expect.eq(err.kind, "invalid")

    local body, files = c:load_skill("pdf-processing")
    expect.match(body, "Fill forms with references/FORMS.md.", true)
    expect.eq(files[1], "references/FORMS.md")
    local content, mime = c:read_skill_file("pdf-processing", "references/FORMS.md")
    expect.eq(content, "The form fields are name and date.\n")
    expect.eq(mime, "text/markdown")
    expect.eq(c:read_skill_file("skill://pdf-processing/SKILL.md", "skill://pdf-processing/references/FORMS.md"), content)

    body, err = c:load_skill("evil")
    expect.eq(body, nil)
    expect.eq(err.kind, "integrity")
    expect.match(tostring(err), "failed verification", true)
    body, err = c:load_skill("nope")
    expect.eq(err.kind, "not_found")
    c:close()
  end)
end

test("hub skills", function()
  local hub = mcp.hub{ servers = { docs = { command = SKILLS, args = { "-dir", SKILLS_DIR, "-tamper", "evil" } } } }
  local list = hub:skills()
  expect.eq(#list, 2)
  expect.eq(list[2].name, "docs__pdf-processing")
  expect.eq(list[2].server, "docs")
  expect.eq(list[2].skill, "pdf-processing")
  expect.eq(list[2].uri, "skill://pdf-processing/SKILL.md")
  local body, files = hub:load_skill("docs__pdf-processing")
  expect.match(body, "Fill forms", true)
  expect.eq(#files, 1)
  expect.eq(hub:read_skill_file("docs__pdf-processing", files[1]), "The form fields are name and date.\n")
  local none, err = hub:load_skill("docs__evil")
  expect.eq(none, nil)
  expect.eq(err.kind, "integrity")
  hub:close()
end)
