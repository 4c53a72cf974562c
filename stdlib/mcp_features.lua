-- The rest of mcp's server surface (see mcp.lua): the checks' messages,
-- mcp.schema, result shaping past a tool's string, resources, templates,
-- prompts, completion, auth, removal and change notices, and the request
-- context's asking methods. mcp.lua loads it on first use and calls each
-- function here from one of its own (a stub, or the method that found a
-- problem), so the script's frame is two above them.
local json = require("json")

return function(S, schema, copy)
local F, Server, Ctx = {}, {}, {}

-- argerror raises a Go binding's argument error at the script's line;
-- depth counts the frames from argerror's caller up to it (2 in a
-- function mcp.lua calls).
local function argerror(n, fname, msg, depth)
  error("bad argument #" .. n .. " to " .. fname .. " (" .. msg .. ")", 2 + (depth or 2))
end

local function str(v)
  return type(v) == "string" and v or ""
end

local function check_server(s, fname, depth)
  if not S.is_server(s) then argerror(1, fname, "mcp server expected (call it as s:" .. fname .. "{...})", depth + 1) end
end

-- entry checks s:fname(t): t a table with field key set and field fn a
-- function (of signature); it returns both.
local function entry(s, t, fname, key, hint, fn, signature, depth)
  check_server(s, fname, depth + 1)
  if type(t) ~= "table" then argerror(2, fname, "table expected, got " .. type(t), depth + 1) end
  if t[key] ~= nil and type(t[key]) ~= "string" then
    argerror(2, fname, key .. " must be a string, not a " .. type(t[key]), depth + 1)
  end
  if str(t[key]) == "" then argerror(2, fname, key .. " is required" .. hint, depth + 1) end
  if type(t[fn]) ~= "function" then argerror(2, fname, fn .. " must be a function" .. signature, depth + 1) end
  return t[key], t[fn]
end

-- register raises the native side's refusal (a schema that does not
-- compile, say) at the script's line.
local function register(fname, ok, err, depth)
  if not ok then error("bad argument #2 to " .. fname .. " (" .. err .. ")", 2 + (depth or 2)) end
end

-- worded is schema(v) with what is wrong said.
local function worded(v)
  local s, what, name, p = schema(v)
  if s then return s end
  if what == "input" then
    return nil, "input must be a table (a shorthand or a JSON Schema), not a " .. type(name)
  elseif what == "key" then
    return nil, "input shorthand keys must be property names, not " .. type(name)
  elseif what == "type" then
    return nil, "input." .. name .. ': unknown type "' .. p ..
      '" (string, number, integer, boolean, object, array or null; add ? for optional, [] for a list)'
  end
  return nil, "input." .. name .. ' must be a type name ("string", "number?") or a schema table, not a ' .. type(p)
end

-- server(o): mcp.server with checks, and capabilities read. Kinds a server
-- adds at run time are declared from the start: modern clients listen
-- only for changes of what discover listed.
function F.server(o)
  if type(o) ~= "table" then argerror(1, "server", "table expected, got " .. type(o)) end
  if str(o.name) == "" then argerror(1, "server", 'name is required (the server\'s name, e.g. name = "notes")') end
  local declared, bad = {}, {}
  for k, v in pairs(type(o.capabilities) == "table" and o.capabilities or {}) do
    if k == "tools" or k == "resources" or k == "prompts" or k == "completions" then
      declared[k] = v and true or false
    else
      bad[#bad + 1] = tostring(k)
    end
  end
  if #bad > 0 then
    argerror(1, "server", "capabilities: unknown " .. table.concat(bad, ", ") .. " (tools, resources, prompts or completions = true)")
  end
  return S.new(o.name, str(o.version) ~= "" and o.version or "0.1.0", str(o.title), str(o.instructions),
    declared.tools, declared.resources, declared.prompts, declared.completions)
end

-- refuse_tool raises what is wrong with s:tool(t).
function F.refuse_tool(s, t)
  entry(s, t, "tool", "name", "", "handler", "(args, ctx)", 2)
  local _, err = worded(t.input)
  if err then argerror(2, "tool", err) end
  _, err = worded(t.output)
  if err then argerror(2, "tool", "output: " .. err) end
end

-- refuse raises the native side's refusal of s:fname.
function F.refuse(fname, err)
  register(fname, false, err, 2)
end

-- mcp.schema(input) is the JSON Schema a tool's input shorthand (or nil,
-- or a full schema) stands for: for tools defined outside mcp.server (an
-- agent's own tools).
local function module_schema(input)
  local s, err = worded(input)
  if not s then argerror(1, "schema", err) end
  return s
end

-- ---------------------------------------------------------------------
-- Result shaping: what a handler returns, as the result runtime/mcp sends.
-- The native side takes a string (a tool's text), a table (the whole
-- result; a tool's structured content when true follows it), nil
-- (nothing: an empty result, or not found), or nil and a message (an
-- error).

local content_types = { text = true, image = true, audio = true, resource = true, resource_link = true }

local function is_content_list(t)
  for i = 1, #t do
    local b = t[i]
    if type(b) ~= "table" or not content_types[rawget(b, "type")] then return false end
  end
  return true
end

-- tool_result: a number or boolean (as text), a full result {content =
-- ..., structuredContent = ..., isError = ...}, a list of content blocks,
-- or any other table (structured content, also as JSON text); nil,
-- "message" is a tool error. (mcp.lua passes strings through itself.)
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
  return r, true -- structured content, also as its text
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

-- reader_def is a resource's or template's definition (named after key
-- when it has no name) and its mimeType.
local function reader_def(t, key, skip)
  local def = copy(t, skip)
  if def.name == nil then def.name = key end
  local mime = type(t.mimeType) == "string" and t.mimeType ~= "" and t.mimeType or nil
  return def, mime
end

-- s:resource{uri, name, title, description, mimeType, read}
function Server:resource(t)
  local uri, read = entry(self, t, "resource", "uri", "", "read", "(ctx)", 2)
  local def, mime = reader_def(t, uri, { read = true })
  register("resource", S.add_resource(self, uri, def, function(ctx)
    return read_result(uri, mime, (read(ctx)))
  end))
end

-- completer adapts fn(ref, argument, ctx) to how the native side calls a
-- completion: with the ref's and argument's fields.
local function completer(fn)
  return function(typ, name, uri, arg, value, context, ctx)
    local ref = { type = typ }
    if typ == "ref/resource" then ref.uri = uri else ref.name = name end
    return completion_result(fn(ref, { name = arg, value = value, context = context }, ctx))
  end
end

-- A value completer is function(value, argument, ctx).
local function value_completer(fn)
  return completer(function(_, arg, ctx) return fn(arg.value, arg, ctx) end)
end

-- s:template{uriTemplate, name, title, description, mimeType, read, complete}
function Server:template(t)
  local tpl, read = entry(self, t, "template", "uriTemplate", ' (e.g. "notes://{id}")', "read", "(vars, ctx)", 2)
  local def, mime = reader_def(t, tpl, { read = true, complete = true })
  register("template", S.add_template(self, tpl, def, function(vars, ctx, uri)
    return read_result(uri, mime, (read(vars, ctx)))
  end))
  if type(t.complete) == "table" then
    for arg, fn in pairs(t.complete) do
      if type(fn) == "function" then S.set_completion(self, "ref/resource", "", tpl, tostring(arg), value_completer(fn)) end
    end
  end
end

-- s:prompt{name, title, description, arguments = {{name, description, required, complete}}, get}
function Server:prompt(t)
  local name, get = entry(self, t, "prompt", "name", "", "get", "(args, ctx)", 2)
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
  for arg, fn in pairs(completers) do S.set_completion(self, "ref/prompt", name, "", arg, value_completer(fn)) end
end

-- s:complete(function(ref, argument, ctx) return {values...} end) completes
-- whatever has no completer of its own.
function Server:complete(fn)
  check_server(self, "complete", 2)
  if type(fn) ~= "function" then argerror(2, "complete", "function expected, got " .. type(fn)) end
  S.set_completion(self, "", "", "", "", completer(fn))
end

local function remover(kind, fname)
  return function(self, key)
    check_server(self, fname, 2)
    if type(key) ~= "string" and type(key) ~= "number" then
      argerror(2, fname, "string expected, got " .. type(key))
    end
    return S.remove(self, kind, tostring(key))
  end
end

-- s:skill{name=, description=, body= | file= | dir=, files=} publishes a
-- skill (the skills extension): body is SKILL.md's text (front matter made
-- from name and description unless it begins with its own), file a
-- SKILL.md to read, dir a skill's folder (SKILL.md and its other files);
-- files adds more, by path in the skill's folder ({["references/A.md"] =
-- text}). s:skills_dir(path) publishes every folder of path that holds a
-- SKILL.md.
-- files reads skill folders and files: mcp._native._files, which a
-- sandboxed state lacks.
local function files_native(fname)
  local f = require("mcp._native")._files
  if not f then argerror(2, fname, "reading files is not available in this sandbox: publish the skill's text (body =, files =)", 3) end
  return f
end

local function yaml_string(v)
  return '"' .. v:gsub('[\\"]', "\\%0"):gsub("\n", "\\n") .. '"'
end

function Server:skill(t)
  check_server(self, "skill", 2)
  if type(t) ~= "table" then argerror(2, "skill", "table expected, got " .. type(t)) end
  local files, err = {}, nil
  if t.dir ~= nil then
    if type(t.dir) ~= "string" then argerror(2, "skill", "dir must be a path") end
    files, err = files_native("skill").read_skill_dir(t.dir)
    if not files then argerror(2, "skill", err) end
  else
    local doc = t.body
    if t.file ~= nil then
      if type(t.file) ~= "string" then argerror(2, "skill", "file must be a path") end
      doc, err = files_native("skill").read_file(t.file)
      if not doc then argerror(2, "skill", err) end
    end
    if type(doc) ~= "string" then argerror(2, "skill", "body = TEXT, file = PATH or dir = PATH is required") end
    if doc:sub(1, 3) ~= "---" then
      if str(t.name) == "" or str(t.description) == "" then
        argerror(2, "skill", "name and description are required when the body has no front matter")
      end
      doc = "---\nname: " .. t.name .. "\ndescription: " .. yaml_string(t.description) .. "\n---\n" .. doc
    end
    files["SKILL.md"] = doc
  end
  if t.files ~= nil then
    if type(t.files) ~= "table" then argerror(2, "skill", "files must be a table of path = text") end
    for p, v in pairs(t.files) do
      if type(p) ~= "string" or type(v) ~= "string" then argerror(2, "skill", "files must be a table of path = text") end
      files[p] = v
    end
  end
  register("skill", S.add_skill(self, files, str(t.name)))
end

function Server:skills_dir(path)
  check_server(self, "skills_dir", 2)
  if type(path) ~= "string" then argerror(2, "skills_dir", "path expected, got " .. type(path)) end
  local fs = files_native("skills_dir")
  local names, err = fs.skill_dirs(path)
  if not names then argerror(2, "skills_dir", err) end
  for _, dir in ipairs(names) do
    local files, ferr = fs.read_skill_dir(dir)
    if not files then argerror(2, "skills_dir", ferr) end
    register("skills_dir", S.add_skill(self, files, ""))
  end
  return #names
end

Server.remove_tool = remover("tools", "remove_tool")
Server.remove_skill = remover("skills", "remove_skill")
Server.remove_resource = remover("resources", "remove_resource")
Server.remove_template = remover("templates", "remove_template")
Server.remove_prompt = remover("prompts", "remove_prompt")

-- s:list_changed(kind) tells clients a list changed ("tools", "resources"
-- or "prompts") without changing it here: for lists a handler computes.
function Server:list_changed(kind)
  check_server(self, "list_changed", 2)
  if kind ~= "tools" and kind ~= "resources" and kind ~= "prompts" then
    argerror(2, "list_changed", 'kind must be "tools", "resources" or "prompts"')
  end
  S.list_changed(self, kind)
end

-- s:resource_updated(uri) tells the clients subscribed to uri that it changed.
function Server:resource_updated(uri)
  check_server(self, "resource_updated", 2)
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
-- The native side calls it with the request's fields and takes its
-- verdict as nothing (accepted) or a kind ("auth": refused) and a message.
local function verdict(validate)
  return function(token, method, path, remote, headers)
    local ok, reason = validate(token, { method = method, path = path, remote = remote, headers = headers })
    if ok == true or type(ok) == "table" then return end
    if ok ~= nil and ok ~= false then
      return "runtime", "the validator returned a " .. type(ok) .. '; return true (or a table of claims) to accept, or nil, "reason" to refuse'
    end
    return "auth", reason ~= nil and tostring(reason) or "the token was refused"
  end
end

function Server:auth(v)
  check_server(self, "auth", 2)
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
  register("auth", S.set_auth(self, { Validate = a.validate and verdict(a.validate), AuthorizationServers = a.servers,
    Scopes = a.scopes, Resource = a.resource }))
end

-- ---------------------------------------------------------------------
-- The request context's asking methods: each reads as one call in both
-- eras (see luabind/mod/mcp/ctx.go).

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
  local s, err = worded(sv)
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
  local native_ask = S.asker(k.field)
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

local ask_all = S.asker("ask")

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
  local answers = ask(ctx, ask_all, inputs)
  local out = {}
  for i, k in ipairs(keys) do out[k] = answers[i] end
  return out
end

F.methods, F.ctx, F.module, F.tool_result = Server, Ctx, { schema = module_schema }, tool_result
return F
end
