-- `make demo`: a short tour of the foundation, no keys or network needed.
print("luagent demo: " .. _VERSION .. " on gopher-lua")
print()

print("== values print readably")
local config = { name = "demo", servers = { "fs", "git" }, limits = { timeout = 30, retries = 3 } }
print(inspect(config))
print()

print("== tasks run concurrently")
local t0 = os.clock()
local clock = require("os").time
local done = task.all({
  function() task.sleep(0.2); return "slow job" end,
  function() task.sleep(0.1); return "quick job" end,
})
print("finished:", done[1], done[2])
print()

print("== JSON keeps nulls, [] and {}")
local v = json.decode('{"list": [], "obj": {}, "holes": [1, null, 3]}')
print(json.encode(v))
print()

print("== errors say what failed and carry a kind")
local ok, err = task.pcall(task.timeout, 0.05, task.sleep, 5)
print(ok, err.kind .. ": " .. tostring(err))
ok, err = task.pcall(function() pcall(task.sleep, 0.01) end)
print(ok, tostring(err))
print()

print("== an agent calls a Lua MCP server's tool (the mock model: no keys, no network)")
local dir = arg[0]:match("^(.*)/") or "."
local hub = mcp.hub{ servers = { echo = { command = arg[-1], args = { "serve", dir .. "/echo.lua" } } } }
local a = agent.new{ model = "mock", hub = hub }
local answer = a:stream("echo a greeting", function(ev)
  if ev.type == "tool_start" then
    print("  -> " .. ev.call.server .. " › " .. ev.call.tool .. " " .. json.encode(ev.call.arguments))
  elseif ev.type == "tool_end" then
    print("  <- " .. ev.result.content[1].text)
  end
end)
print("answer: " .. answer)
hub:close()
print()

log.info("logs go to stderr; set LUAGENT_LOG=debug for more")
print("demo finished")
