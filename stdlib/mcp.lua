-- mcp: connections to MCP servers (mcp_client.lua, loaded on first use)
-- and MCP servers written in Lua, over the private mcp._native; the
-- protocol is runtime/mcp's registry. This file is what a tools-only
-- server runs on its way to the first answer; everything else — checks'
-- messages, resources, templates, prompts, completion, auth, the request
-- context's asking methods, result shaping past a string — is
-- mcp_features.lua, loaded on first use. All three are built into the
-- binary compiled (luabind/preload): after editing them, regenerate
-- luabind/preload/protos_gen.go as its test says.
local native = require("mcp._native")
local S = native._server

-- The client surface is mcp_client.lua, loaded on first use: these are
-- stubs that call on (tail calls, so the client's argument errors count
-- the script's frame as theirs).
local M = {}
local client
for _, k in ipairs({ "connect", "login", "hub", "auth_redirect" }) do
  M[k] = function(...)
    client = client or require("mcp._client")
    return client[k](...)
  end
end
-- mcp.catalog is mcp_catalog.lua's (the saved catalog, no protocol), also
-- loaded on first use.
local catalog
function M.catalog(...)
  catalog = catalog or require("mcp._catalog")
  return catalog.catalog(...)
end

local features, copy, schema
local function more()
  features = features or require("mcp._features")(S, schema, copy)
  return features
end

-- copy is a definition table without the Lua-only fields.
function copy(t, skip)
  local out = {}
  for k, v in pairs(t) do
    if type(k) == "string" and not skip[k] then out[k] = v end
  end
  return out
end

-- The input shorthand: { a = "number", b = { type = "string", default =
-- "x" }, c = "string?", tags = "string[]" }: "T" required, "T?" optional,
-- "T[]" a list of T; a table is the property's schema (optional with a
-- default or optional = true). A table with a schema's top-level keys is a
-- JSON Schema, used as written.
local full = { "type", "$schema", "properties", "$defs", "anyOf", "oneOf", "allOf", "$ref", "additionalProperties" }
local types = { string = 1, number = 1, integer = 1, boolean = 1, object = 1, array = 1, null = 1 }

local function type_schema(s)
  if s:sub(-2) == "[]" then return { type = "array", items = type_schema(s:sub(1, -3)) } end
  return { type = s }
end

-- schema(v) is the JSON Schema (a table) v stands for, or nil and what
-- is wrong (mcp_features.lua words it).
function schema(v)
  if v == nil then return { type = "object", additionalProperties = false } end
  if type(v) ~= "table" then return nil, "input", v end
  for _, k in ipairs(full) do
    if rawget(v, k) ~= nil then return v end
  end
  local props, required = {}, {}
  for name, p in pairs(v) do
    local optional
    if type(name) ~= "string" then
      return nil, "key", name
    elseif type(p) == "string" then
      optional = p:sub(-1) == "?"
      local s = optional and p:sub(1, -2) or p
      if not types[s:match("^(.-)[%[%]]*$")] then return nil, "type", name, p end
      props[name] = type_schema(s)
    elseif type(p) == "table" then
      local ps = copy(p, { optional = true })
      if type(ps.type) == "string" and ps.type:sub(-2) == "[]" then
        for k, x in pairs(type_schema(ps.type)) do ps[k] = x end
      end
      props[name], optional = ps, p.optional or p.default ~= nil
    else
      return nil, "property", name, p
    end
    if not optional then required[#required + 1] = name end
  end
  table.sort(required)
  return { type = "object", properties = props, required = #required > 0 and required or nil }
end

-- mcp.server{name, version, title, instructions, capabilities}
local Server = S.server_methods

function M.server(o)
  if type(o) ~= "table" or type(o.name) ~= "string" or o.name == "" or o.capabilities ~= nil then
    local s = more().server(o) -- checks, and reads capabilities
    return s
  end
  local version = type(o.version) == "string" and o.version ~= "" and o.version or "0.1.0"
  return S.new(o.name, version, type(o.title) == "string" and o.title or "", type(o.instructions) == "string" and o.instructions or "")
end

-- s:tool{name, title, description, input, output, annotations, task,
-- manual_task, handler}:
-- a handler's string is the text result; mcp_features.lua shapes the rest.
-- The native sends a string result itself and calls this for any other.
local function shape_result(r, msg) return more().tool_result(r, msg) end

function Server:tool(t)
  local ok = S.is_server(self) and type(t) == "table" and type(t.name) == "string" and t.name ~= "" and type(t.handler) == "function"
  local input, output, err
  if ok then
    input, err = schema(t.input)
    if input and t.output ~= nil then output, err = schema(t.output) end
  end
  if not ok or err then more().refuse_tool(self, t, input) end
  local def = copy(t, { handler = true, input = true, output = true, task = true, manual_task = true })
  def.name, def.inputSchema, def.outputSchema = t.name, input, output
  -- task = "optional" | "required": the call may run as a task (runtime/mcp
  -- decides with the client); manual_task: the handler starts it
  -- (ctx:start_task()) after asking for input as an ordinary call.
  if t.task ~= nil then def.execution = { taskSupport = t.task } end
  ok, err = S.add_tool(self, t.name, def, t.handler, t.manual_task == true, shape_result)
  if not ok then more().refuse("tool", err) end
end

-- The rest are stubs that load mcp_features.lua. Each calls on in a
-- frame of its own (not a tail call), which error levels there count, and
-- returns what it returned.
local function all(...) return ... end

local function stubs(t, kind, names)
  for _, name in ipairs(names) do
    t[name] = function(...)
      return all(more()[kind][name](...))
    end
  end
end

stubs(M, "module", { "schema" })
stubs(Server, "methods", { "resource", "template", "prompt", "complete", "auth", "remove_tool", "remove_resource",
  "remove_template", "remove_prompt", "list_changed", "resource_updated", "skill", "skills_dir", "remove_skill" })
stubs(S.ctx_methods, "ctx", { "elicit", "elicit_url", "sample", "roots", "ask" })

return M
