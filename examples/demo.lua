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

log.info("logs go to stderr; set LUAGENT_LOG=debug for more")
print("demo finished")
