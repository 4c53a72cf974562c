-- mcp.catalog: the saved server catalog (config.json) from Lua, over the
-- private natives of mcp._catalog_native (luabind/mod/catalog, over
-- runtime/catalog). mcp.lua's mcp.catalog loads this file on first use.
-- cat:show, cat:preview and cat:apply are native (the catalog agent's
-- edits, stdlib/meta.lua); this file checks arguments and shapes what the
-- natives return.
--
-- Argument errors are raised at the script's line: a function here that
-- calls a native which may raise one calls it last (a tail call).
local C = require("mcp._catalog_native")
local json = require("json")

local M = {}
local Cat = C.catalog_methods

local function argerror(n, fname, msg, level)
  error("bad argument #" .. n .. " to " .. fname .. " (" .. msg .. ")", level + 1)
end

-- list copies a Go slice (gopher-luar; nil when the slice is) into a table.
local function list(ud)
  local out = {}
  if ud then
    for i, v in ud() do out[i] = v end
  end
  return out
end

-- mcp.catalog([path]): the catalog at path (default Home/config.json).
function M.catalog(path)
  if path ~= nil and type(path) ~= "string" and type(path) ~= "number" then
    argerror(1, "catalog", "string expected, got " .. type(path), 2)
  end
  if (path == nil or path == "") and not C.home then
    argerror(1, "catalog", "no luagent home to find the catalog in: pass its path", 2)
  end
  return C.catalog(path)
end

-- The catalog object:
--   local cat = mcp.catalog()          -- Home/config.json; mcp.catalog(path) for another
--   for _, s in ipairs(cat:list()) do print(s.name, s.transport, s.enabled) end
--   cat:add("fs", { command = "npx", args = { "-y", "@modelcontextprotocol/server-filesystem", "." } })
--   cat:disable("fs"); cat:enable("fs"); cat:remove("fs")

local function check_cat(c, fname, level)
  if getmetatable(c) ~= "mcp.catalog" then argerror(1, fname, "mcp catalog expected (call it as cat:method(...))", level + 1) end
end

local function check_name(name, fname, level)
  if type(name) ~= "string" and type(name) ~= "number" then
    argerror(2, fname, "string expected, got " .. type(name), level + 1)
  end
end

local function sorted_keys(m)
  local out = {}
  if m then
    for k in m() do out[#out + 1] = k end
  end
  table.sort(out)
  return json.array(out)
end

-- entry_table is an entry (a *catalog.Server) as Lua reads it:
-- config.json's names, env keys only, header values hidden (they may hold
-- tokens).
local function entry_table(s)
  local t = { name = s.Name, enabled = s.Enabled, transport = s:Transport(), roots = s.Roots, sampling = s.Sampling }
  if s.Roots and s.RootDirs then t.roots = json.array(list(s.RootDirs)) end -- "roots": [folders]
  if s.URL ~= "" then
    t.url, t.headers = s.URL, {}
    for _, k in ipairs(sorted_keys(s.Headers)) do t.headers[k] = "…" end
  else
    t.command, t.args, t.envKeys = s.Command, json.array(list(s.Args)), sorted_keys(s.Env)
    if s.Cwd ~= "" then t.cwd = s.Cwd end
  end
  if s.StartupTimeout > 0 then t.startupTimeoutSeconds = s.StartupTimeout / 1e9 end
  if s.RequestTimeout > 0 then t.requestTimeoutSeconds = s.RequestTimeout / 1e9 end
  if s.Protocol ~= "" then t.protocol = s.Protocol end
  if s.LogLevel ~= "" then t.logLevel = s.LogLevel end
  return t
end

function Cat:list()
  check_cat(self, "list", 2)
  local out = {}
  for i, s in ipairs(list(C.cat_list(self))) do out[i] = entry_table(s) end
  return json.array(out)
end

function Cat:get(name)
  check_cat(self, "get", 2)
  check_name(name, "get", 2)
  local s = C.cat_get(self, name)
  return s and entry_table(s) or nil
end

-- cat:add(name, entry [, {force = true}]): entry has config.json's fields.
function Cat:add(name, entry, o)
  check_cat(self, "add", 2)
  check_name(name, "add", 2)
  if type(entry) ~= "table" then argerror(3, "add", "table expected, got " .. type(entry), 2) end
  C.cat_add(self, name, entry, type(o) == "table" and rawget(o, "force") and true or false)
end

function Cat:remove(name)
  check_cat(self, "remove", 2)
  check_name(name, "remove", 2)
  C.cat_remove(self, name)
end

for fname, on in pairs({ enable = true, disable = false }) do
  Cat[fname] = function(self, name)
    check_cat(self, fname, 2)
    check_name(name, fname, 2)
    C.cat_enable(self, name, on)
  end
end

return M
