-- mcp: connections to MCP servers (native: connect, hub, catalog, login)
-- and MCP servers written in Lua, whose surface is this file, over the
-- private mcp._native. The protocol — lists, argument checks, result
-- envelopes, both eras — is runtime/mcp's registry; what is here runs when
-- a script registers something, plus a small shaping step per call.
--
--   local s = mcp.server{ name = "calc", version = "1.0.0" }
--   s:tool{ name = "add", input = { a = "number", b = "number" },
--     handler = function(args, ctx) return args.a + args.b end }
--   return s                      -- luagent serve calc.lua
local native = require("mcp._native")
local json = require("json")
local S = native._server

local M = {}
for k, v in pairs(native) do
  if k:sub(1, 1) ~= "_" then M[k] = v end
end

-- argerror raises what a Go binding's argument check raises, at the
-- caller of the API function (level: how far up the stack that is, from
-- argerror's caller; 1 by default).
local function argerror(n, fname, msg, level)
  error("bad argument #" .. n .. " to '" .. fname .. "' (" .. msg .. ")", 2 + (level or 1))
end

local function str(v)
  if type(v) == "string" then return v end
  return ""
end

-- copy is a definition table without the Lua-only fields.
local function copy(t, skip)
  local out = {}
  for k, v in pairs(t) do
    if type(k) == "string" and not skip[k] then out[k] = v end
  end
  return out
end

-- ---------------------------------------------------------------------
-- The input shorthand:
--
--   input = { a = "number", b = { type = "string", description = "…", default = "x" },
--             c = "string?", tags = "string[]" }
--
-- Each key is a property; "T" is required, "T?" optional, "T[]" an array
-- of T; a table is the property's own schema (optional when it has a
-- default or optional = true). A table that looks like a JSON Schema itself
-- (type, $schema, properties, $defs, anyOf, oneOf, allOf, $ref or
-- additionalProperties at the top) is used exactly as written.

local schema_keys = { "type", "$schema", "properties", "$defs", "anyOf", "oneOf", "allOf", "$ref", "additionalProperties" }
local json_types = { string = true, number = true, integer = true, boolean = true, object = true, array = true, null = true }

local function type_schema(s)
  if s:sub(-2) == "[]" then return { type = "array", items = type_schema(s:sub(1, -3)) } end
  return { type = s }
end

-- schema(v) is the JSON Schema (a table) an input field stands for, or
-- nil and why not.
local function schema(v)
  if v == nil then return { type = "object", additionalProperties = false } end
  if type(v) ~= "table" then
    return nil, "input must be a table (a shorthand or a JSON Schema), not a " .. type(v)
  end
  for _, k in ipairs(schema_keys) do
    if rawget(v, k) ~= nil then return v end
  end
  local props, required = {}, {}
  for name, p in pairs(v) do
    if type(name) ~= "string" then
      return nil, "input shorthand keys must be property names, not " .. type(name)
    end
    if type(p) == "string" then
      local optional = p:sub(-1) == "?"
      local s = optional and p:sub(1, -2) or p
      if not json_types[s:match("^(.-)[%[%]]*$")] then
        return nil, "input." .. name .. ': unknown type "' .. p ..
          '" (string, number, integer, boolean, object, array or null; add ? for optional, [] for a list)'
      end
      props[name] = type_schema(s)
      if not optional then required[#required + 1] = name end
    elseif type(p) == "table" then
      local ps = {}
      for k, x in pairs(p) do
        if k ~= "optional" then ps[k] = x end
      end
      if type(ps.type) == "string" and ps.type:sub(-2) == "[]" then
        for k, x in pairs(type_schema(ps.type)) do ps[k] = x end
      end
      props[name] = ps
      if not (p.optional or p.default ~= nil) then required[#required + 1] = name end
    else
      return nil, "input." .. name .. ' must be a type name ("string", "number?") or a schema table, not a ' .. type(p)
    end
  end
  table.sort(required)
  local out = { type = "object", properties = props }
  if #required > 0 then out.required = required end
  return out
end

-- mcp.schema(input) is the JSON Schema a tool's input shorthand (or nil, or
-- a full schema) stands for: for tools defined outside mcp.server (an
-- agent's own tools).
function M.schema(input)
  local s, err = schema(input)
  if not s then argerror(1, "schema", err) end
  return s
end

-- ---------------------------------------------------------------------
-- Result shaping: what a handler returns, as the result runtime/mcp sends.
-- The native side takes a string (a tool's text), a table (the whole
-- result), nil (nothing: an empty result, or not found), or nil and a
-- message (an error).

local content_types = { text = true, image = true, audio = true, resource = true, resource_link = true }

local function is_content_list(t)
  for i = 1, #t do
    local b = t[i]
    if type(b) ~= "table" or not content_types[rawget(b, "type")] then return false end
  end
  return true
end

-- tool_result: a string (text), number or boolean (as text), a full result
-- {content = ..., structuredContent = ..., isError = ...}, a list of content
-- blocks, or any other table (structured content, also as JSON text);
-- nil, "message" is a tool error.
local function tool_result(r, msg)
  local ty = type(r)
  if r == nil then
    if msg ~= nil then return nil, tostring(msg) end
    return nil
  elseif ty == "number" or ty == "boolean" then
    return tostring(r)
  elseif ty ~= "table" then
    return nil, "the tool returned a " .. ty .. ", which cannot be sent"
  end
  local c = rawget(r, "content")
  if type(c) == "table" and (#c > 0 or json.is_array(c)) and is_content_list(c) then return r end
  if #r > 0 and is_content_list(r) then return { content = r } end
  local ok, text = pcall(json.encode, r)
  if not ok then return nil, "the tool's result cannot be sent as JSON: " .. tostring(text) end
  return { content = { { type = "text", text = text } }, structuredContent = r }
end

local function content(uri, mime, x)
  local c = { uri = uri, mimeType = mime }
  if type(x) == "string" then
    c.text = x
    return c
  elseif type(x) ~= "table" then
    return nil, "the resource's read returned a " .. type(x) .. "; return a string or {text=...}/{blob=...}"
  end
  for _, k in ipairs({ "uri", "mimeType", "text", "blob" }) do
    if type(rawget(x, k)) == "string" then c[k] = rawget(x, k) end
  end
  if type(rawget(x, "bytes")) == "string" then c.blob = S.base64(rawget(x, "bytes")) end
  if c.text == nil and c.blob == nil then
    return nil, "the resource's read returned a table without text, blob or bytes"
  end
  if type(rawget(x, "_meta")) == "table" then c._meta = rawget(x, "_meta") end
  return c
end

-- read_result: a string (text), {text=}, {blob= base64}, {bytes= raw}, or
-- a list of those (each may name its uri and mimeType); nil is not found.
local function read_result(uri, mime, v)
  if v == nil then return nil end
  local list = {}
  if type(v) == "table" and #v > 0 then
    for i = 1, #v do
      local c, err = content(uri, mime, v[i])
      if not c then return nil, err end
      list[i] = c
    end
  else
    local c, err = content(uri, mime, v)
    if not c then return nil, err end
    list[1] = c
  end
  return { contents = list }
end

local function prompt_message(x)
  if type(x) == "string" then
    return { role = "user", content = { type = "text", text = x } }
  elseif type(x) ~= "table" then
    return nil, "a prompt message must be a string or a table, not a " .. type(x)
  end
  local m = {}
  for k, v in pairs(x) do m[k] = v end
  if type(m.content) == "string" then m.content = { type = "text", text = m.content } end
  if m.role == nil then m.role = "user" end
  return m
end

-- prompt_result: a string (one user message), a list of messages ({role=,
-- content=}, content a string or a block), or {description=, messages=}.
local function prompt_result(v)
  if type(v) == "string" then return { messages = { prompt_message(v) } } end
  if type(v) ~= "table" then
    return nil, "the prompt's get returned a " .. type(v) .. "; return a string or a list of messages"
  end
  local out, list = {}, v
  if type(rawget(v, "messages")) == "table" then
    list = v.messages
    if type(rawget(v, "description")) == "string" then out.description = v.description end
  end
  local msgs = {}
  for i = 1, #list do
    local m, err = prompt_message(list[i])
    if not m then return nil, err end
    msgs[i] = m
  end
  out.messages = json.array(msgs)
  return out
end

-- completion_result: a list of values, or {values=, total=, hasMore=}.
local function completion_result(v)
  local out = { values = json.array() }
  if type(v) ~= "table" then return out end
  local vs = v
  if type(rawget(v, "values")) == "table" then
    vs = v.values
    if type(v.total) == "number" then out.total = math.floor(v.total) end
    out.hasMore = v.hasMore and true or false
  end
  for i = 1, #vs do out.values[i] = tostring(vs[i]) end
  return out
end

-- ---------------------------------------------------------------------
-- mcp.server{name, version, title, instructions, capabilities} and its
-- methods.

local Server = S.server_methods

local capability_names = { tools = true, resources = true, prompts = true, completions = true }

function M.server(opts)
  if type(opts) ~= "table" then argerror(1, "server", "table expected, got " .. type(opts)) end
  local name = str(opts.name)
  if name == "" then argerror(1, "server", 'name is required (the server\'s name, e.g. name = "notes")') end
  local declared = {}
  if type(opts.capabilities) == "table" then
    -- A server that adds resources (or prompts, tools) at run time
    -- declares them from the start: modern clients ask for changes only of
    -- what initialize/discover listed.
    local bad = {}
    for k, v in pairs(opts.capabilities) do
      if capability_names[k] then
        declared[k] = v and true or false
      else
        bad[#bad + 1] = tostring(k)
      end
    end
    if #bad > 0 then
      argerror(1, "server", "capabilities: unknown " .. table.concat(bad, ", ") ..
        " (tools, resources, prompts or completions = true)")
    end
  end
  local version = str(opts.version)
  if version == "" then version = "0.1.0" end
  return S.new(name, version, str(opts.title), str(opts.instructions), declared)
end

local function check_server(s, fname, level)
  if not S.is_server(s) then
    argerror(1, fname, "mcp server expected (call it as s:" .. fname .. "{...})", (level or 1) + 1)
  end
end

-- entry checks s:fname(t): t a table whose field key is set and whose
-- field fn is a function (of signature); it returns both.
local function entry(s, t, fname, key, hint, fn, signature)
  check_server(s, fname, 2)
  if type(t) ~= "table" then argerror(2, fname, "table expected, got " .. type(t), 2) end
  if str(t[key]) == "" then argerror(2, fname, key .. " is required" .. hint, 2) end
  if type(t[fn]) ~= "function" then argerror(2, fname, fn .. " must be a function" .. signature, 2) end
  return t[key], t[fn]
end

-- reader_def is a resource's or template's definition (named after key
-- when it has no name) and its mimeType.
local function reader_def(t, key, skip)
  local def = copy(t, skip)
  if def.name == nil then def.name = key end
  local mime = type(t.mimeType) == "string" and t.mimeType ~= "" and t.mimeType or nil
  return def, mime
end

-- register hands a definition to the native side; its refusal (a schema
-- that does not compile, say) is raised at the script's line.
local function register(fname, ok, err)
  if not ok then error("bad argument #2 to '" .. fname .. "' (" .. err .. ")", 3) end
end

-- s:tool{name, title, description, input, output, annotations, handler}
function Server:tool(t)
  local name, handler = entry(self, t, "tool", "name", "", "handler", "(args, ctx)")
  local input, err = schema(t.input)
  if not input then argerror(2, "tool", err) end
  local output
  if t.output ~= nil then
    output, err = schema(t.output)
    if not output then argerror(2, "tool", "output: " .. err) end
  end
  local def = copy(t, { handler = true, input = true, output = true })
  def.name, def.inputSchema, def.outputSchema = name, input, output
  register("tool", S.add_tool(self, name, def, function(args, ctx)
    local r, msg = handler(args, ctx)
    if type(r) == "string" then return r end
    return tool_result(r, msg)
  end))
end

-- s:resource{uri, name, title, description, mimeType, read}
function Server:resource(t)
  local uri, read = entry(self, t, "resource", "uri", "", "read", "(ctx)")
  local def, mime = reader_def(t, uri, { read = true })
  register("resource", S.add_resource(self, uri, def, function(ctx)
    return read_result(uri, mime, (read(ctx)))
  end))
end

-- A value completer is function(value, argument, ctx); the native side
-- calls every completion as function(ref, argument, ctx).
local function value_completer(fn)
  return function(_, arg, ctx) return completion_result(fn(arg.value, arg, ctx)) end
end

-- s:template{uriTemplate, name, title, description, mimeType, read, complete}
function Server:template(t)
  local tpl, read = entry(self, t, "template", "uriTemplate", ' (e.g. "notes://{id}")', "read", "(vars, ctx)")
  local def, mime = reader_def(t, tpl, { read = true, complete = true })
  register("template", S.add_template(self, tpl, def, function(vars, ctx, uri)
    return read_result(uri, mime, (read(vars, ctx)))
  end))
  if type(t.complete) == "table" then
    for arg, fn in pairs(t.complete) do
      if type(fn) == "function" then S.set_completion(self, "ref/resource", tpl, tostring(arg), value_completer(fn)) end
    end
  end
end

-- s:prompt{name, title, description, arguments = {{name, description, required, complete}}, get}
function Server:prompt(t)
  local name, get = entry(self, t, "prompt", "name", "", "get", "(args, ctx)")
  local args, completers = {}, {}
  if type(t.arguments) == "table" then
    for i = 1, #t.arguments do
      local a = t.arguments[i]
      if type(a) ~= "table" then argerror(2, "prompt", "arguments[" .. i .. "] must be {name = ..., required = ...}") end
      local entry = { name = str(a.name) }
      for _, k in ipairs({ "title", "description" }) do
        if str(a[k]) ~= "" then entry[k] = a[k] end
      end
      if a.required then entry.required = true end
      if type(a.complete) == "function" then completers[entry.name] = a.complete end
      args[i] = entry
    end
  end
  local def = copy(t, { get = true, arguments = true })
  if #args > 0 then def.arguments = args end
  register("prompt", S.add_prompt(self, name, def, function(a, ctx)
    return prompt_result((get(a, ctx)))
  end))
  for arg, fn in pairs(completers) do S.set_completion(self, "ref/prompt", name, arg, value_completer(fn)) end
end

-- s:complete(function(ref, argument, ctx) return {values...} end) completes
-- whatever has no completer of its own.
function Server:complete(fn)
  check_server(self, "complete")
  if type(fn) ~= "function" then argerror(2, "complete", "function expected, got " .. type(fn)) end
  S.set_completion(self, "", "", "", function(ref, arg, ctx) return completion_result(fn(ref, arg, ctx)) end)
end

local function remover(kind, fname)
  return function(self, key)
    check_server(self, fname)
    if type(key) ~= "string" and type(key) ~= "number" then
      argerror(2, fname, "string expected, got " .. type(key))
    end
    return S.remove(self, kind, tostring(key))
  end
end

Server.remove_tool = remover("tools", "remove_tool")
Server.remove_resource = remover("resources", "remove_resource")
Server.remove_prompt = remover("prompts", "remove_prompt")

-- s:list_changed(kind) tells clients a list changed ("tools", "resources"
-- or "prompts") without changing it here: for lists a handler computes.
function Server:list_changed(kind)
  check_server(self, "list_changed")
  if kind ~= "tools" and kind ~= "resources" and kind ~= "prompts" then
    argerror(2, "list_changed", 'kind must be "tools", "resources" or "prompts"')
  end
  S.list_changed(self, kind)
end

-- s:resource_updated(uri) tells the clients subscribed to uri that it changed.
function Server:resource_updated(uri)
  check_server(self, "resource_updated")
  if type(uri) ~= "string" then argerror(2, "resource_updated", "string expected, got " .. type(uri)) end
  S.resource_updated(self, uri)
end

local function string_list(v, field)
  if type(v) ~= "table" then return nil, field .. " must be a list of strings" end
  local out = {}
  for i = 1, #v do
    if type(v[i]) ~= "string" or v[i] == "" then return nil, field .. " must be a list of strings" end
    out[i] = v[i]
  end
  return out
end

-- Bearer-token auth for HTTP serving:
--
--   s:auth(function(token, req) return token == env.MY_TOKEN end)
--   s:auth{ validate = function(token, req) ... end,
--     authorization_servers = { "https://auth.example.com" },
--     scopes_supported = { "notes:read" },
--     resource = "https://mcp.example.com/mcp" }   -- the public URL, behind a proxy
--
-- validate runs as a task for every HTTP request: true (or a table of
-- claims) accepts; false, nil or `nil, "reason"` refuses (401
-- invalid_token, the reason as error_description); an error answers 500.
function Server:auth(v)
  check_server(self, "auth")
  local a = {}
  if type(v) == "function" then
    a.validate = v
  elseif type(v) == "table" then
    local bad
    for k, val in pairs(v) do
      if k == "validate" then
        if type(val) ~= "function" then bad = "validate must be a function(token, req)" end
        a.validate = val
      elseif k == "authorization_servers" then
        a.servers, bad = string_list(val, k)
      elseif k == "scopes_supported" then
        a.scopes, bad = string_list(val, k)
      elseif k == "resource" then
        if type(val) ~= "string" or not val:find("://", 1, true) then
          bad = 'resource must be the endpoint\'s public URL, e.g. "https://mcp.example.com/mcp"'
        end
        a.resource = val
      else
        bad = "unknown field " .. tostring(k) .. " (s:auth takes validate, authorization_servers, scopes_supported, resource)"
      end
      if bad then argerror(2, "auth", bad) end
    end
  else
    argerror(2, "auth", "a validator function(token, req) or a table {validate = ..., authorization_servers = {...}} expected")
  end
  register("auth", S.set_auth(self, a.validate, a.servers or {}, a.scopes or {}, a.resource or ""))
end

-- ---------------------------------------------------------------------
-- The request context's asking methods: each reads as one call in both
-- eras (see luabind/mod/mcp/ctx.go).

local Ctx = S.ctx_methods

-- ask asks the client for inputs ({key=, method=, params=}, in order) and
-- returns the answers in that order; roots/list answers are the list.
local function ask(ctx, native_ask, inputs)
  local answers = native_ask(ctx, inputs)
  for i, inp in ipairs(inputs) do
    local a = answers[i]
    if inp.method == "roots/list" and type(a) == "table" and a.roots ~= nil then answers[i] = a.roots end
  end
  return answers
end

local function elicit_params(t)
  local msg = str(t.message)
  if msg == "" then return nil, "message is required (what to ask the user)" end
  local sv = t.schema
  if sv == nil then sv = t.requestedSchema end
  local s, err = schema(sv)
  if not s then return nil, "schema: " .. err end
  return { mode = "form", message = msg, requestedSchema = s }
end

local elicit_ids = 0

local function elicit_url_params(t)
  local url = str(t.url)
  if url == "" then return nil, "url is required" end
  local id = str(t.elicitationId)
  if id == "" then
    elicit_ids = elicit_ids + 1
    id = "luagent-elicitation-" .. elicit_ids
  end
  return { mode = "url", url = url, message = str(t.message), elicitationId = id }
end

-- sample_params: messages may be one string, and a message's content a
-- string; maxTokens defaults to 1024.
local function sample_params(t)
  local p = {}
  for k, v in pairs(t) do
    if k ~= "key" then p[k] = v end
  end
  local msgs = p.messages
  if type(msgs) == "string" then
    p.messages = { { role = "user", content = { type = "text", text = msgs } } }
  elseif type(msgs) == "table" then
    local list = {}
    for i, m in ipairs(msgs) do
      if type(m) == "table" then
        local c = {}
        for k, v in pairs(m) do c[k] = v end
        if type(c.content) == "string" then c.content = { type = "text", text = c.content } end
        if c.role == nil then c.role = "user" end
        m = c
      end
      list[i] = m
    end
    p.messages = list
  else
    return nil, "messages is required: a string or a list of {role=, content=}"
  end
  if p.maxTokens == nil then p.maxTokens = 1024 end
  return p
end

local function roots_params() return {} end

local kinds = {
  { field = "elicit", method = "elicitation/create", params = elicit_params },
  { field = "elicit_url", method = "elicitation/create", params = elicit_url_params },
  { field = "sample", method = "sampling/createMessage", params = sample_params },
  { field = "roots", method = "roots/list", params = roots_params },
}

for _, k in ipairs(kinds) do
  local native_ask = S.asks[k.field]
  Ctx[k.field] = function(ctx, t)
    if k.field == "roots" then
      t = t or {}
    end
    if type(t) ~= "table" then argerror(2, k.field, "table expected, got " .. type(t)) end
    local p, err = k.params(t)
    if not p then argerror(2, k.field, err) end
    return ask(ctx, native_ask, { { key = str(t.key), method = k.method, params = p } })[1]
  end
end

-- ask_spec reads one ctx:ask entry: {elicit=}, {elicit_url=}, {sample=},
-- {roots={}} or the wire form {method=, params=}.
local function ask_spec(spec)
  if str(spec.method) ~= "" then
    local p = spec.params
    if p == nil then p = {} end
    return { method = spec.method, params = p }
  end
  for _, k in ipairs(kinds) do
    local sub = rawget(spec, k.field)
    if sub ~= nil then
      if type(sub) ~= "table" then return nil, k.field .. " must be a table" end
      local p, err = k.params(sub)
      if not p then return nil, err end
      return { method = k.method, params = p }
    end
  end
  return nil, "say what to ask: elicit=, elicit_url=, sample=, roots= or method="
end

-- ctx:ask{key = spec, ...} asks for several inputs at once (one round,
-- modern) and returns the answers by key. Keys are asked in sorted order
-- (legacy asks one after another).
function Ctx.ask(ctx, t)
  if type(t) ~= "table" then argerror(2, "ask", "table expected, got " .. type(t)) end
  local keys = {}
  for k, v in pairs(t) do
    if type(k) ~= "string" or k == "" or type(v) ~= "table" then
      argerror(2, "ask", "ctx:ask takes {key = {elicit=...} | {sample=...} | {roots={}} | {method=, params=}, ...}")
    end
    keys[#keys + 1] = k
  end
  table.sort(keys)
  local inputs = {}
  for i, k in ipairs(keys) do
    local inp, err = ask_spec(t[k])
    if not inp then argerror(2, "ask", k .. ": " .. err) end
    inp.key = k
    inputs[i] = inp
  end
  local answers = ask(ctx, S.asks.ask, inputs)
  local out = {}
  for i, k in ipairs(keys) do out[k] = answers[i] end
  return out
end

return M
