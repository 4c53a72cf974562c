-- A Lua server with task tools and skills, for tasks_skills.lua (see
-- tasks_skills_test.go). SKILLS_DIR (env) is a folder of skill folders.
local s = mcp.server{ name = "tasks-skills", version = "1.0.0" }

s:tool{ name = "report", description = "Takes a moment; runs as a task", input = { pages = "integer" }, task = "optional",
  handler = function(args)
    task.sleep(0.05)
    return ("%d pages"):format(args.pages)
  end }

s:tool{ name = "confirm", description = "Asks, as a task", input = {}, task = "required",
  handler = function(_, ctx)
    local a = ctx:elicit{ message = "Go on?", schema = { ok = "boolean" } }
    return a.action == "accept" and a.content.ok and "confirmed" or "declined"
  end }

s:tool{ name = "broken", description = "Fails with a JSON-RPC error, as a task", input = {}, task = "optional",
  handler = function(_, ctx) ctx:fail(-32603, "broken on purpose") end }

s:skill{ name = "release-notes", description = "Write release notes: newest first",
  body = "# Release notes\n\nSee templates/entry.md.\n",
  files = { ["templates/entry.md"] = "- WHAT (WHY)\n" } }
s:skills_dir(os.getenv("SKILLS_DIR"))

return s
