-- agent.file_agents: the agents of .luagent/agents/NAME.md files
-- (runtime/cmdfile) as agents = {...}: offered as tools named after them,
-- the body as the system prompt, the main agent's model unless the file
-- names one, tools = {} (only Claude Code's own tools) no hub, and each a
-- subagent whose answer fires SubagentStop.

local scripted = require("scripted")

test("a file's agent is a tool; its system prompt and the inherited model answer it", function()
  local sub_model, sub_seen = scripted{ { text = "looks fine" } }
  local subs = agent.file_agents({
    { name = "code-reviewer", description = "Reviews code", system = "You review code.", path = "reviewer.md", tools = {} },
  }, sub_model)
  expect.eq(#subs, 1)
  expect.eq(subs[1].name, "code-reviewer")
  local stops = {}
  subs[1]:on("SubagentStop", function(ev) stops[#stops + 1] = ev.hook_event_name end)
  local main, seen = scripted{ { tool_calls = { { name = "code-reviewer", arguments = { prompt = "check x.go" } } } }, { text = "the reviewer said so" } }
  local a = agent.new{ model = main, hub = false, agents = subs }
  local names = {}
  local text = a:ask("review x.go")
  expect.eq(text, "the reviewer said so")
  for _, t in ipairs(seen[1].tools) do names[#names + 1] = t.name .. ":" .. (t.description or "") end
  expect.eq(names, { "code-reviewer:Reviews code" })
  expect.eq(sub_seen[1].system, "You review code.")
  expect.match(seen[2].messages[#seen[2].messages].parts[1].text, "looks fine", true)
  expect.eq(stops, { "SubagentStop" })
end)

test("a file's tools restrict its calls; a file's model wins over the main one", function()
  local log = {}
  local own, own_seen = scripted{ { text = "own model" } }
  local subs = agent.file_agents({
    { name = "a", system = "", path = "a.md", model = own },
    { name = "b", system = "B", path = "b.md", tools = { "fs__read_file", "git__*" } },
  }, function() return "main model" end)
  expect.eq(subs[1]:ask("hi"), "own model")
  expect.eq(subs[2]:ask("hi"), "main model")
  expect.eq(subs[2]._opts.servers, { "fs", "git" })
  local ok = subs[2]._opts.hooks.before_tool({ name = "git__log" })
  expect.eq(ok, nil)
  local no, why = subs[2]._opts.hooks.before_tool({ name = "shell__run" })
  expect.eq(no, false)
  expect.match(why, "not among the tools of b.md", true)
end)
