-- Tasks and skills of a Lua server (servers/tasks_skills.lua), driven by
-- luagent's own client in both eras: a call made a task is followed to its
-- result (status reported), input asked inside a task reaches on_elicit,
-- and the skills list, load and read with every digest checked. Over
-- stdio, or Streamable HTTP when HTTP_URL is set.
for _, era in ipairs({ "modern", "legacy" }) do
  local function connect(extra)
    local o = { name = "ts", command = LUAGENT, args = { "serve", SERVERS .. "/tasks_skills.lua" },
      env = { SKILLS_DIR = SKILLS_DIR }, protocol = era, timeout = 10 }
    if HTTP_URL then o.command, o.args, o.env, o.url = nil, nil, nil, HTTP_URL end
    for k, v in pairs(extra or {}) do o[k] = v end
    return mcp.connect(o)
  end

  test(era .. ": a tool runs as a task", function()
    local c = connect()
    local statuses = {}
    local r = c:call("report", { pages = 3 }, { task = true, progress = function(p)
      if p.status then statuses[#statuses + 1] = p.status end
    end })
    expect.eq(r.content[1].text, "3 pages")
    expect.eq(statuses[1], "working")
    expect.eq(statuses[#statuses], "completed")
    -- A JSON-RPC error fails the task; the call raises it.
    expect.error(function() c:call("broken", {}, { task = true }) end, "broken on purpose")
    c:close()
  end)

  test(era .. ": a task asks for input", function()
    local asked
    local c = connect{ on_elicit = function(p)
      asked = p.message
      return { action = "accept", content = { ok = true } }
    end }
    local r = c:call("confirm", {}, { task = true })
    expect.eq(r.content[1].text, "confirmed")
    expect.eq(asked, "Go on?")
    c:close()
  end)

  test(era .. ": skills", function()
    local c = connect()
    local list, problems = c:skills()
    expect.eq(#problems, 0)
    local names = {}
    for _, sk in ipairs(list) do names[#names + 1] = sk.name end
    table.sort(names)
    expect.eq(table.concat(names, " "), "evil pdf-processing release-notes")
    local body, files = c:load_skill("release-notes")
    expect.match(body, "See templates/entry.md.", true)
    expect.eq(files[1], "templates/entry.md")
    expect.eq(c:read_skill_file("release-notes", "templates/entry.md"), "- WHAT (WHY)\n")
    body, files = c:load_skill("pdf-processing")
    expect.match(body, "Fill forms", true)
    expect.eq(files[1], "references/FORMS.md")
    expect.eq(c:read_skill_file("pdf-processing", files[1]), "The form fields are name and date.\n")
    c:close()
  end)
end

test("hub skills of a Lua server", function()
  if HTTP_URL then return end -- the hub starts its own (stdio)
  local hub = mcp.hub{ servers = { ts = { command = LUAGENT, args = { "serve", SERVERS .. "/tasks_skills.lua" },
    env = { SKILLS_DIR = SKILLS_DIR } } } }
  local found
  for _, sk in ipairs(hub:skills()) do
    if sk.name == "ts__release-notes" then found = sk end
  end
  expect.eq(found.uri, "skill://release-notes/SKILL.md")
  local body = hub:load_skill("ts__release-notes")
  expect.match(body, "Release notes", true)
  hub:close()
end)
