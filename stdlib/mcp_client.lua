-- The client half of mcp (see mcp.lua): mcp.connect, mcp.login, mcp.hub
-- and the methods of connections and hubs, over the private natives of
-- mcp._client_native (luabind/mod/mcpclient). This file reads the option
-- tables, checks arguments and shapes what comes back; the natives talk to
-- runtime/mcp and runtime/hub. (mcp.catalog is mcp_catalog.lua's.) Option
-- tables go to the natives under the Go names of the runtime's fields
-- (converted by gopher-luar), durations in nanoseconds.
--
-- Argument errors are raised at the script's line: a function here that
-- calls a native which may raise one calls it last (a tail call), so the
-- script's frame is the native's caller.
local C = require("mcp._client_native")
local json = require("json")

local M = {}
local Conn, Hub = C.conn_methods, C.hub_methods

local function argerror(n, fname, msg, level)
  error("bad argument #" .. n .. " to " .. fname .. " (" .. msg .. ")", level + 1)
end

-- opt is t[k] when it is a string, else "" (numbers and the rest are not
-- options' strings).
local function opt(t, k)
  local v = rawget(t, k)
  return type(v) == "string" and v or ""
end

local function first(t, a, b)
  local v = opt(t, a)
  if v == "" and b then v = opt(t, b) end
  return v ~= "" and v or nil
end

-- list copies a Go slice (gopher-luar; nil when the slice is) into a table.
-- (gopher-lua has no # for userdata: the slice's iterator it is.)
local function list(ud)
  local out = {}
  if ud then
    for i, v in ud() do out[i] = v end
  end
  return out
end

local function string_map(t)
  if type(t) ~= "table" then return nil end
  local out = {}
  for k, v in pairs(t) do out[tostring(k)] = tostring(v) end
  return out
end

-- seconds reads t[k] as nanoseconds, or nil and what is wrong.
local function seconds(t, k)
  local v = rawget(t, k)
  if v == nil then return 0 end
  if type(v) ~= "number" then return nil, k .. " must be a number of seconds, not a " .. type(v) end
  if v <= 0 then return nil, k .. " must be a number of seconds > 0" end
  return v * 1e9
end

-- strings_of is t's values as strings, or nil when a key is not a string.
local function strings_of(t)
  local out = {}
  for k, v in pairs(t) do
    if type(k) ~= "string" then return nil end
    out[k] = tostring(v)
  end
  return out
end

-- name_list reads a list of server names, or nil and what is wrong.
local function name_list(v, what)
  local bad = what .. ' must be a list of server names ({"fs", "github"})'
  if type(v) ~= "table" then return nil, bad end
  local out = {}
  for i = 1, #v do
    if type(v[i]) ~= "string" then return nil, bad end
    out[i] = v[i]
  end
  return out
end

local function is_http(url)
  local scheme = url:match("^(%a[%w+.-]*):")
  scheme = scheme and scheme:lower()
  return scheme == "http" or scheme == "https"
end

-- oauth_config reads an oauth table (or mcp.login's options) as
-- oauth.Config's fields; store is whether credentials may be kept.
local function oauth_config(v)
  local cfg = {
    ClientID = first(v, "client_id", "clientId"),
    ClientSecret = first(v, "client_secret", "clientSecret"),
    ClientIssuer = first(v, "client_issuer", "clientIssuer"),
    ClientIDMetadataURL = first(v, "client_id_metadata_url", "clientIdMetadataUrl"),
    RedirectURL = first(v, "redirect_url", "redirectUrl"),
    -- The unattended grants: client_credentials (with private_key_pem for
    -- private_key_jwt), jwt_bearer (idp = {...} or assertion = jwt), and
    -- DPoP-bound tokens for any grant; oauth.Config.Validate checks them
    -- together.
    Grant = first(v, "grant"),
    PrivateKeyPEM = first(v, "private_key_pem", "privateKeyPem"),
    SigningAlgorithm = first(v, "signing_algorithm", "signingAlgorithm"),
    Assertion = first(v, "assertion"),
  }
  local dpop = rawget(v, "dpop")
  if dpop ~= nil and type(dpop) ~= "boolean" then return nil, "oauth.dpop must be a boolean" end
  cfg.DPoP = dpop
  local idp = rawget(v, "idp")
  if type(idp) == "table" then
    cfg.IdP = {
      TokenEndpoint = first(idp, "token_endpoint", "tokenEndpoint"),
      ClientID = first(idp, "client_id", "clientId"),
      ClientSecret = first(idp, "client_secret", "clientSecret"),
      IDToken = first(idp, "id_token", "idToken"),
    }
  elseif idp ~= nil then
    return nil, "oauth.idp must be a table ({token_endpoint = …, client_id = …, id_token = …})"
  end
  local sc = rawget(v, "scopes")
  if type(sc) == "table" then
    cfg.Scopes = {}
    for i = 1, #sc do
      local s = sc[i]
      cfg.Scopes[i] = (type(s) == "string" or type(s) == "number") and tostring(s) or ""
    end
  elseif type(sc) == "string" then
    cfg.Scopes = {}
    for w in sc:gmatch("%S+") do cfg.Scopes[#cfg.Scopes + 1] = w end
  elseif sc ~= nil then
    return nil, "oauth.scopes must be a list of scope names"
  end
  return cfg, rawget(v, "store") ~= false
end
M._oauth_config = oauth_config

-- auth reads how a url connection authorizes into o:
--
--   env = { MCP_ACCESS_TOKEN = "…" }        a static bearer token (no OAuth)
--   env = { MCP_OAUTH_TOKEN_FILE = path }   a JSON token record, refreshed in place
--   oauth = false                           no authorization at all
--   oauth = { client_id, client_secret, client_issuer, client_id_metadata_url,
--             scopes, redirect_url, store = false, grant, private_key_pem,
--             signing_algorithm, idp = {...}, assertion, dpop }
--   on_auth_url = function(url) return callback_url end   the browser step
--
-- By default a server that answers 401 is authorized with OAuth, tokens
-- kept under ~/.luagent/credentials/mcp/.
local function auth(t, o, env)
  if o.URL == "" or not is_http(o.URL) then return end -- connect refuses it with its own message
  if env and (env.MCP_ACCESS_TOKEN or "") ~= "" then
    o.AccessToken = env.MCP_ACCESS_TOKEN
    return
  end
  local v, err = rawget(t, "oauth"), nil
  if v == false then return end
  if v == nil or v == true then
    o.OAuthConfig, o.Store = {}, true
  elseif type(v) == "table" then
    o.OAuthConfig, err = oauth_config(v)
    if not o.OAuthConfig then return err end
    o.Store = err
  else
    return "oauth must be a table ({client_id = …, scopes = {…}}) or false"
  end
  if type(rawget(t, "on_auth_url")) == "function" then o.OnAuthURL = t.on_auth_url end
  if env and (env.MCP_OAUTH_TOKEN_FILE or "") ~= "" then o.TokenFile = env.MCP_OAUTH_TOKEN_FILE end
end

-- split puts rmcp.Options' fields of o under Options, as the native takes them.
local go_fields = { Name = true, URL = true, Command = true, Protocol = true, Header = true, Timeout = true,
  StartupTimeout = true, ProbeTimeout = true, MaxMessage = true }

local function split(o)
  local out = { Options = {} }
  for k, v in pairs(o) do
    if go_fields[k] then out.Options[k] = v else out[k] = v end
  end
  return out
end

-- connect_options reads mcp.connect's table, or says what is wrong.
local function connect_options(t)
  local o = { Name = opt(t, "name"), URL = opt(t, "url"), Command = { Path = opt(t, "command"), Dir = opt(t, "cwd") },
    Protocol = opt(t, "protocol"), LogLevel = opt(t, "log_level") }
  if o.Command.Path == "" and o.URL == "" then
    return nil, 'command or url is required (the server program, e.g. command = "npx", or its HTTP endpoint, url = "http://127.0.0.1:8080/mcp")'
  elseif o.Command.Path ~= "" and o.URL ~= "" then
    return nil, "give command or url, not both"
  end
  -- A server named by its URL gets the URL without its secrets (Go's default).
  if o.Name == "" and o.URL == "" then o.Name = o.Command.Path end
  local hs, err = rawget(t, "headers"), nil
  if type(hs) == "table" then
    local h = strings_of(hs)
    if not h then return nil, "headers keys must be header names" end
    o.Header = {}
    for k, v in pairs(h) do o.Header[k] = { v } end
  elseif hs ~= nil then
    return nil, "headers must be a table of name = value"
  end
  local args = rawget(t, "args")
  if type(args) == "table" then
    o.Command.Args = {}
    for i = 1, #args do o.Command.Args[i] = tostring(args[i]) end
  elseif args ~= nil then
    return nil, "args must be a list of strings"
  end
  local env = rawget(t, "env")
  if type(env) == "table" then
    o.Command.Env = strings_of(env)
    if not o.Command.Env then return nil, "env keys must be variable names" end
  end
  local inherit = rawget(t, "inherit_env")
  if inherit ~= nil then
    local bad = 'inherit_env must be "minimal" or a list of variable names like {"PATH", "HOME"}'
    if o.Command.Path == "" then return nil, "inherit_env is for a command's server, not a url" end
    if inherit == "minimal" then
      o.Command.Inherit = { Minimal = true }
    elseif type(inherit) == "table" then
      local names = {}
      for i = 1, #inherit do
        -- Go checks the names, by the catalog's rule (transport.InheritableName).
        if type(inherit[i]) ~= "string" then return nil, bad end
        names[i] = inherit[i]
      end
      o.Command.Inherit = { Names = names }
    else
      return nil, bad
    end
  end
  err = auth(t, o, o.Command.Env)
  if err then return nil, err end
  for k, key in pairs({ Timeout = "timeout", StartupTimeout = "startup_timeout", ProbeTimeout = "probe_timeout" }) do
    o[k], err = seconds(t, key)
    if not o[k] then return nil, err end
  end
  if type(rawget(t, "max_message")) == "number" then o.MaxMessage = t.max_message end
  for _, k in ipairs({ "on_elicit", "on_sample" }) do
    if type(rawget(t, k)) == "function" then o[k == "on_elicit" and "OnElicit" or "OnSample"] = t[k] end
  end
  local roots = rawget(t, "roots")
  if type(roots) == "function" or type(roots) == "table" then o.Roots = roots end
  return split(o)
end

-- mcp.connect{name, command, args, env, inherit_env, cwd | url, headers, oauth, on_auth_url;
-- protocol, timeout, startup_timeout, probe_timeout, max_message,
-- log_level, on_elicit, on_sample, roots}
function M.connect(t)
  if type(t) ~= "table" then argerror(1, "'mcp.connect'", "table expected, got " .. type(t), 2) end
  local o, err = connect_options(t)
  if not o then argerror(1, "'mcp.connect'", err, 2) end
  return C.connect(o)
end

-- mcp.login(url [, {scopes=, client_id=, …, on_auth_url=}]): authorize with
-- the server now and store the credential. It returns {issuer=, scope=,
-- expires_at=} (never a token).
function M.login(url, t)
  if type(url) ~= "string" and type(url) ~= "number" then
    argerror(1, "'mcp.login'", "string expected, got " .. type(url), 2)
  end
  if t ~= nil and type(t) ~= "table" then
    argerror(2, "'mcp.login'", "options must be a table ({scopes = {...}, client_id = ...})", 2)
  end
  local o = { URL = tostring(url) }
  local err = auth({ oauth = t, on_auth_url = t and rawget(t, "on_auth_url") }, o)
  if err then argerror(2, "'mcp.login'", err, 2) end
  local cred = C.login(url, split(o))
  return { issuer = cred.Issuer, scope = cred.Scope, expires_at = cred.ExpiresAt > 0 and cred.ExpiresAt or nil }
end

M.auth_redirect = C.auth_redirect

-- ---------------------------------------------------------------------
-- Connections.

Conn.close = C.close

local function check_conn(c, fname, level)
  if getmetatable(c) ~= "mcp.connection" then
    argerror(1, fname, "mcp connection expected, got " .. type(c), level + 1)
  end
end

-- str checks argument n of fname is a string (or a number) and returns it.
local function str(v, n, fname, level)
  if type(v) ~= "string" and type(v) ~= "number" then
    argerror(n, fname, "string expected, got " .. type(v), level + 1)
  end
  return tostring(v)
end

-- encoded is table t as JSON (the natives take JSON as a string), nil for
-- nil.
local function encoded(t, n, fname)
  if t == nil then return nil end
  local ok, out = pcall(json.encode, t)
  if not ok then argerror(n, fname, type(out) == "table" and tostring(out.message) or tostring(out), 3) end
  return out
end

-- W are the waits of connection methods: W.read(view, "ReadResource", uri)
-- calls the runtime client's ReadResource (see waiter in wait.go).
local W = {}
for _, name in ipairs({ "tools", "resources", "templates", "prompts", "read", "prompt", "complete", "subscribe",
  "unsubscribe", "log_level", "request", "skills" }) do
  W[name] = C.waiter("conn:" .. name)
end
W.load_skill, W.read_skill_file = C.waiter("conn:load_skill", true), C.waiter("conn:read_skill_file", true)

function Conn:tools()
  check_conn(self, "'conn:tools'", 2)
  return W.tools(C.conn_go(self), "Tools")
end

for name, method in pairs({ resources = "Resources", templates = "Templates", prompts = "Prompts" }) do
  Conn[name] = function(self)
    check_conn(self, "'conn:" .. name .. "'", 2)
    return W[name](C.conn_go(self), method)
  end
end

function Conn:read(uri)
  check_conn(self, "'conn:read'", 2)
  return W.read(C.conn_go(self), "ReadResource", str(uri, 2, "'conn:read'", 2))
end

for name, method in pairs({ subscribe = "Subscribe", unsubscribe = "Unsubscribe" }) do
  Conn[name] = function(self, uri)
    check_conn(self, "'conn:" .. name .. "'", 2)
    W[name](C.conn_go(self), method, str(uri, 2, "'conn:" .. name .. "'", 2))
  end
end

function Conn:log_level(level)
  check_conn(self, "'conn:log_level'", 2)
  W.log_level(C.conn_go(self), "SetLogLevel", level == nil and "" or str(level, 2, "'conn:log_level'", 2))
end

-- conn:request(method, params): any method, for what the API does not cover.
function Conn:request(method, params)
  check_conn(self, "'conn:request'", 2)
  method = str(method, 2, "'conn:request'", 2)
  return W.request(C.conn_go(self), "Request", method, type(params) == "table" and encoded(params, 3, "'conn:request'") or nil)
end

-- eras[n] is the name of rmcp.Era n.
local eras = C.eras

-- conn:info() -> {name, version, title, era, protocol_version,
-- instructions, capabilities, supported_versions}
function Conn:info()
  check_conn(self, "info", 2)
  local i = C.conn_go(self):Info()
  local s, caps = i.ServerInfo, i.Capabilities.Raw and C.decode(i.Capabilities.Raw)
  local t = { name = s.Name, version = s.Version, title = s.Title ~= "" and s.Title or nil, era = eras[i.Era],
    protocol_version = i.ProtocolVersion, instructions = i.Instructions ~= "" and i.Instructions or nil,
    capabilities = caps }
  local sv = list(i.SupportedVersions)
  if #sv > 0 then t.supported_versions = sv end
  return t
end

local events = { tools_changed = true, prompts_changed = true, resources_changed = true, resource_updated = true, log = true }

-- conn:on(event, fn): tools_changed, prompts_changed, resources_changed,
-- resource_updated, log. fn(params, conn) runs as a task per event.
function Conn:on(ev, fn)
  check_conn(self, "on", 2)
  if type(ev) ~= "string" and type(ev) ~= "number" then argerror(2, "on", "string expected, got " .. type(ev), 2) end
  if type(fn) ~= "function" then argerror(3, "on", "function expected, got " .. type(fn), 2) end
  if not events[tostring(ev)] then
    argerror(2, "on", "unknown event " .. ev .. " (tools_changed, prompts_changed, resources_changed, resource_updated, log)", 2)
  end
  C.on(self, tostring(ev), fn)
end

-- progress adapts a progress option: the native calls it with (progress,
-- total, message, status); fn gets {progress=, total=, message=} or
-- {status=, message=} (task updates).
local function progress(fn)
  return function(p, total, message, status)
    local t
    if status == "" then t = { progress = p, total = total } else t = { status = status } end
    if message ~= "" then t.message = message end
    return fn(t)
  end
end

-- call_options reads a call's options table at n: timeout (seconds),
-- task = true, progress = function(p) ... end; the native's arguments.
local function call_options(o, n, fname)
  if type(o) ~= "table" then return 0, false, nil end
  local timeout, err = seconds(o, "timeout")
  if not timeout then argerror(n, fname, err, 3) end
  local fn = rawget(o, "progress")
  return timeout, rawget(o, "task") and true or false, type(fn) == "function" and progress(fn) or nil
end

-- conn:call(name, args, opts)
function Conn:call(name, args, o)
  if o == nil then return C.call(self, name, args) end
  local timeout, task, fn = call_options(o, 4, "'conn:call'")
  return C.call(self, name, args, timeout, task, fn)
end


-- conn:prompt(name [, args]): args' values as strings.
function Conn:prompt(name, args)
  check_conn(self, "'conn:prompt'", 2)
  return W.prompt(C.conn_go(self), "GetPrompt", str(name, 2, "'conn:prompt'", 2), string_map(args))
end

-- conn:complete(ref, argument [, context]): ref = {type="ref/prompt",
-- name=} or {type="ref/resource", uri=}; argument = {name=, value=};
-- context = the other arguments' values. Returns {values=, total=, hasMore=}.
function Conn:complete(ref, arg, context)
  check_conn(self, "'conn:complete'", 2)
  if type(ref) ~= "table" then argerror(2, "'conn:complete'", "table expected, got " .. type(ref), 2) end
  if type(arg) ~= "table" then argerror(3, "'conn:complete'", "table expected, got " .. type(arg), 2) end
  if opt(arg, "name") == "" then argerror(3, "'conn:complete'", "argument must be {name = ..., value = ...}", 2) end
  local r = W.complete(C.conn_go(self), "Complete", encoded(ref, 2, "'conn:complete'"), arg.name, opt(arg, "value"),
    string_map(context))
  if type(r) == "table" and rawget(r, "completion") ~= nil then return r.completion end
  return r
end

-- skill_table is a listed skill: {name, uri, description, frontmatter,
-- resources = {{uri, digest, size}, ...} | "dynamic"}.
local function skill_table(e)
  local raw = C.decode(e.Raw) or {}
  return { name = e.Name, uri = e.URI, description = e.Description, frontmatter = raw.frontmatter, resources = raw.resources }
end

-- conn:skills() -> skills, problems (the entries left out, one line each)
--
-- Listing reads no skill file; load_skill reads SKILL.md and verifies it
-- against the listing (size, digest, front matter); read_skill_file reads
-- a loaded skill's file, verified too. A failure of either returns nil
-- and the error (kind integrity for content that failed its check).
function Conn:skills()
  check_conn(self, "'conn:skills'", 2)
  local entries, problems = W.skills(C.conn_skills(self), "List")
  local out, lines = {}, {}
  for i, e in ipairs(list(entries)) do out[i] = skill_table(e) end
  for i, p in ipairs(list(problems)) do lines[i] = p:String() end
  return json.array(out), json.array(lines)
end

local function loaded(l, err)
  if err then return nil, err end
  return l.Body, json.array(list(l.Files))
end

-- file is a skills.File's content (text, or the bytes of a blob) and MIME type.
local function file(f, err)
  if err then return nil, err end
  return f.Blob and C.bytes(f.Blob) or f.Text, f.MIMEType
end

-- conn:load_skill(name_or_uri) -> body, files | nil, err
function Conn:load_skill(name)
  check_conn(self, "'conn:load_skill'", 2)
  local r = C.conn_skills(self)
  local e, err = W.load_skill(r, "Resolve", str(name, 2, "'conn:load_skill'", 2))
  if err then return nil, err end
  return loaded(W.load_skill(r, "Load", e))
end

-- conn:read_skill_file(name_or_uri, path_or_uri) -> content, mime_type | nil, err
function Conn:read_skill_file(name, path)
  check_conn(self, "'conn:read_skill_file'", 2)
  name, path = str(name, 2, "'conn:read_skill_file'", 2), str(path, 3, "'conn:read_skill_file'", 2)
  local r = C.conn_skills(self)
  local e, err = W.read_skill_file(r, "Resolve", name)
  if err then return nil, err end
  return file(W.read_skill_file(r, "ReadFile", e, path))
end

-- ---------------------------------------------------------------------
-- The hub: the live connections of a catalog (runtime/hub).
--
--   local hub = mcp.hub()                       -- the user's catalog (Home/config.json)
--   local hub = mcp.hub{ path = "servers.json" } -- another catalog file
--   local hub = mcp.hub{ servers = { fs = { command = "npx", args = { ... } } } }
--
-- servers entries take config.json's fields. params = {...} resolves
-- {param = NAME} env references. The hub starts at once (progressively);
-- hub:wait() waits for it. start = {NAME, ...} starts only those servers
-- (the others are not spawned until hub:start names them). cache = true
-- offers each server's tools from the cache of its last successful start
-- (Home/cache/servers/) while it starts: the hub's own wait skips those
-- servers, a call to one of their tools waits for its server alone, and
-- "startup": "lazy" entries with a cache start at their first call.
-- dir = FOLDER runs the servers whose entry has no cwd there, and is the
-- root of those with "roots": true (default: the working folder).
function M.hub(t)
  if t ~= nil and type(t) ~= "table" then
    argerror(1, "'mcp.hub'", "options must be a table ({path = ...} or {servers = {...}})", 2)
  end
  t = t or {}
  local o = { Path = opt(t, "path"), Servers = rawget(t, "servers"), Params = string_map(rawget(t, "params")) }
  if o.Servers ~= nil and o.Path ~= "" then argerror(1, "'mcp.hub'", "give path or servers, not both", 2) end
  if rawget(t, "start") ~= nil then
    local err
    o.Start, err = name_list(t.start, "start")
    if not o.Start then argerror(1, "'mcp.hub'", err, 2) end
  end
  if type(rawget(t, "wait")) == "boolean" then o.Wait = t.wait end
  if rawget(t, "cache") == true then o.Cache = true end
  if rawget(t, "dir") ~= nil then
    if type(t.dir) ~= "string" or t.dir == "" then argerror(1, "'mcp.hub'", "dir must be a folder's path (a string)", 2) end
    o.Dir = t.dir
  end
  if type(rawget(t, "on_elicit")) == "function" then o.OnElicit = t.on_elicit end
  if type(rawget(t, "on_sample")) == "function" then o.OnSample = t.on_sample end
  return C.hub(o)
end

for _, name in ipairs({ "server", "reload", "close" }) do
  Hub[name] = C["hub_" .. name]
end

-- WH are the waits of hub methods, over the runtime hub (C.hub_go).
local WH = {}
for _, name in ipairs({ "wait", "read", "prompt", "reauthorize" }) do WH[name] = C.waiter("hub:" .. name) end
for _, name in ipairs({ "resources", "templates", "prompts", "load_skill", "read_skill_file" }) do
  WH[name] = C.waiter("hub:" .. name, true)
end

local function check_hub(h, fname, level)
  if getmetatable(h) ~= "mcp.hub" then argerror(1, fname, "mcp hub expected (call it as hub:method(...))", level + 1) end
end

-- state_table is one server's status (a hub.State) as Lua sees it.
local function state_table(s)
  local t = { name = s.Name, status = s.Status, tools = s.Tools }
  if s.Err ~= nil then t.error = C.error_value(s.Err) end
  local stderr = list(s.Stderr)
  if #stderr > 0 then t.stderr = stderr end
  if s.Status == "ready" then
    t.era, t.server_name = eras[s.Info.Era], s.Info.ServerInfo.Name
    if s.Info.Instructions ~= "" then t.instructions = s.Info.Instructions end
  end
  return t
end

local function status_list(states)
  local out = {}
  for i, s in ipairs(list(states)) do out[i] = state_table(s) end
  return json.array(out)
end

-- hub:status() -> { {name=, status=, error=, stderr=, tools=, era=, instructions=}, ... }
function Hub:status()
  check_hub(self, "status", 2)
  return status_list(C.hub_go(self):Status())
end

-- hub:wait() waits until no server is connecting and returns hub:status().
function Hub:wait()
  check_hub(self, "'hub:wait'", 2)
  local h = C.hub_go(self)
  WH.wait(h, "Wait")
  return status_list(h:Status())
end

-- hub:on("status" | "tools", fn): fn(state) runs as a task per event;
-- "status" starts with each server's status now.
function Hub:on(ev, fn)
  check_hub(self, "on", 2)
  if type(ev) ~= "string" and type(ev) ~= "number" then argerror(2, "on", "string expected, got " .. type(ev), 2) end
  if type(fn) ~= "function" then argerror(3, "on", "function expected, got " .. type(fn), 2) end
  if ev ~= "status" and ev ~= "tools" then argerror(2, "on", "unknown event " .. ev .. " (status, tools)", 2) end
  C.hub_on(self, ev, function(s) return fn(state_table(s)) end)
end

-- hub:tools() -> tools, partial
function Hub:tools()
  check_hub(self, "tools", 2)
  return C.hub_tools(self)
end

-- hub:search(query [, {server=, limit=}]) -> tools, partial
function Hub:search(q, o)
  check_hub(self, "search", 2)
  if type(q) ~= "string" and type(q) ~= "number" then argerror(2, "search", "string expected, got " .. type(q), 2) end
  local server, limit = "", 0
  if type(o) == "table" then
    server = opt(o, "server")
    if type(rawget(o, "limit")) == "number" then limit = o.limit end
  end
  return C.hub_tools(self, tostring(q), server, limit)
end

-- hub:call(qualified, args [, {timeout=, schema_hash=, progress=, task=}])
function Hub:call(name, args, o)
  if type(o) ~= "table" then return C.hub_call(self, name, args) end
  local timeout, task, fn = call_options(o, 4, "'hub:call'")
  return C.hub_call(self, name, args, timeout, task, fn, opt(o, "schema_hash"))
end

-- hub:resources{server=} (also templates, prompts): objects with server set.
for _, which in ipairs({ "resources", "templates", "prompts" }) do
  Hub[which] = function(self, server)
    if type(server) == "table" then
      server = opt(server, "server")
    elseif type(server) ~= "string" then
      server = ""
    end
    check_hub(self, "'hub:" .. which .. "'", 2)
    local items, err = WH[which](C.hub_go(self), which:sub(1, 1):upper() .. which:sub(2), server)
    items = list(items)
    if err and (server ~= "" or #items == 0) then error(err) end
    local out = {}
    for i, it in ipairs(items) do
      local v, err = C.decode(it.Raw)
      if err then error(err) end
      if type(v) == "table" then v.server = it.Server end
      out[i] = v
    end
    return json.array(out)
  end
end

-- hub:read(server, uri)
function Hub:read(server, uri)
  check_hub(self, "'hub:read'", 2)
  return WH.read(C.hub_go(self), "Read", str(server, 2, "'hub:read'", 2), str(uri, 3, "'hub:read'", 2))
end

-- hub:prompt(server, name [, args])
function Hub:prompt(server, name, args)
  check_hub(self, "'hub:prompt'", 2)
  return WH.prompt(C.hub_go(self), "Prompt", str(server, 2, "'hub:prompt'", 2), str(name, 3, "'hub:prompt'", 2),
    string_map(args))
end

-- hub:reauthorize(name): the OAuth login in a browser, then a restart.
function Hub:reauthorize(name)
  check_hub(self, "'hub:reauthorize'", 2)
  WH.reauthorize(C.hub_go(self), "Reauthorize", str(name, 2, "'hub:reauthorize'", 2))
end

-- hub:read_skill_file(name, path) -> content, mime_type | nil, err
function Hub:read_skill_file(name, path)
  check_hub(self, "'hub:read_skill_file'", 2)
  return file(WH.read_skill_file(C.hub_go(self), "ReadSkillFile", str(name, 2, "'hub:read_skill_file'", 2),
    str(path, 3, "'hub:read_skill_file'", 2)))
end

-- hub:start([names]): starts these servers (default: every enabled one)
-- that are not started yet, and waits for them as mcp.hub does.
function Hub:start(names)
  check_hub(self, "'hub:start'", 2)
  if names ~= nil then
    local err
    names, err = name_list(names, "names")
    if not names then argerror(2, "'hub:start'", err, 2) end
  end
  return C.hub_start(self, names)
end

-- hub:restart(name)
function Hub:restart(name)
  check_hub(self, "restart", 2)
  if type(name) ~= "string" and type(name) ~= "number" then argerror(2, "restart", "string expected, got " .. type(name), 2) end
  local err = C.hub_go(self):Restart(tostring(name))
  if err then error(C.error_value(err)) end
end

-- hub:instructions() -> { server = text, ... }
function Hub:instructions()
  check_hub(self, "instructions", 2)
  local out = {}
  local m = C.hub_go(self):Instructions()
  if m then
    for k, v in m() do out[k] = v end
  end
  return out
end

-- hub:skills() -> {{name (SERVER__NAME), server, skill, description, uri, ...}, ...}
function Hub:skills()
  check_hub(self, "skills", 2)
  local out = {}
  for i, sk in ipairs(list(C.hub_go(self):Skills())) do
    local t = skill_table(sk.Entry)
    t.name, t.server, t.skill = sk.Name, sk.Server, sk.Skill
    out[i] = t
  end
  return json.array(out)
end

-- hub:load_skill(name) -> body, files | nil, err
function Hub:load_skill(name)
  check_hub(self, "'hub:load_skill'", 2)
  return loaded(WH.load_skill(C.hub_go(self), "LoadSkill", str(name, 2, "'hub:load_skill'", 2)))
end

return M
