-- help: what a newcomer at the REPL needs to get going. `help` (or /help)
-- prints the overview; help(value) lists what a module or object offers.

local overview = [[
luagent: Lua 5.1 with modules for the Model Context Protocol.
  Type Lua. An expression prints its value (tables through inspect); a
  statement runs; an unfinished one continues on the next line.
modules (globals, no require needed):
  mcp      mcp.connect{command=..., args={...}} or {url=...} is a client of an
           MCP server (c:tools(), c:call(name, args)); mcp.server{name=...}
           writes one (s:tool{...}), served by `luagent serve FILE`
  agent    agent.new{model="mock", hub=mcp.hub()} is a model with the hub's
           tools: a:ask("...") answers, calling tools under an approval policy
  task     task.spawn, task.sleep, task.all, task.timeout, task.pcall: tasks
           that wait without blocking each other
  json     json.encode, json.decode, json.null, json.array
  inspect  inspect(value) renders any value as Lua
  log      log.info, log.warn, log.error, log.debug (to stderr)
  env      env.get(name), env.require(name)
  and Lua's own: string, table, math, os, io, coroutine
  help(mcp) lists a module's functions with their signatures, help(mcp.connect)
  shows one, help(conn) an object's methods; mcp.<Tab> completes them.
keys: Tab completes, Ctrl-C cancels the running line, Ctrl-D exits
commands: /help (this text), /mcp (the catalog's servers: the manager, as in chat;
  their status when not on a terminal), /exit
docs: README.md (the tour and the Lua reference) and stdlib/doc/;
  `luagent --help` for the command line (luagent ask "..." asks an agent, luagent chat talks with one)]]

local function names(t)
  local fns, others = {}, {}
  for k, v in pairs(t) do
    if type(k) == "string" then
      if type(v) == "function" then fns[#fns + 1] = k .. "()" else others[#others + 1] = k end
    end
  end
  local mt = getmetatable(t)
  if type(mt) == "table" and type(mt.__index) == "table" and mt.__index ~= t then
    for k, v in pairs(mt.__index) do
      if type(k) == "string" and type(v) == "function" then fns[#fns + 1] = ":" .. k .. "()" end
    end
  end
  table.sort(fns)
  table.sort(others)
  return fns, others
end

-- The editor stubs' text (signatures, first sentences), where luagent's
-- Go side is there to read them (not in a sandbox).
local has_native, native = pcall(require, "help._native")

local function describe(v)
  local lazy = getmetatable(v)
  if type(lazy) == "table" and lazy.__luagent_load then
    v = lazy.__luagent_load() -- a module not loaded yet (mcp): load it
  end
  local doc = has_native and native.describe(v)
  if doc then return doc end
  local kind = type(v)
  if kind ~= "table" and kind ~= "userdata" then
    return ("%s: a %s (help() for the overview)"):format(tostring(v), kind)
  end
  if kind == "userdata" then
    local mt = getmetatable(v)
    if type(mt) ~= "table" or type(mt.__index) ~= "table" then
      return tostring(v) .. ": no methods to list"
    end
    v = mt.__index
  end
  local fns, others = names(v)
  local out = {}
  if #fns > 0 then out[#out + 1] = "functions: " .. table.concat(fns, " ") end
  if #others > 0 then out[#out + 1] = "values: " .. table.concat(others, " ") end
  if #out == 0 then return "an empty table" end
  return table.concat(out, "\n")
end

return setmetatable({ overview = overview }, {
  __tostring = function() return overview end,
  __call = function(_, ...)
    if select("#", ...) == 0 then
      print(overview)
    else
      print(describe((...)))
    end
  end,
})
