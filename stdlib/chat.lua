-- luagent.chat: the Lua side of luagent ask and luagent chat. The Go
-- session (runtime/chat) calls these through luabind/chatlua, each as a
-- task on the host's loop.
--
--   build(o)                 the agent of ask or chat
--   with_model(a, model)     a again on another model (/model, --resume)
--   eval(code)               one /lua line, rendered as the REPL shows it
--   meta(main, path, confirm, saved)   /meta's catalog agent
--   default_hub()            the hub agents share (/mcp in the REPL)
local agent = require("agent")

local M = {}

-- build makes the agent: --agent's (o.agent_fn, compiled from
-- o.agent_file) with --model, --fallback-model, --server, --yes, --code-mode
-- and --context-window (o.context_window) applied, or
-- a default one named o.name. o.memory is the project memory's prompt
-- section (nil: none), given to the agent unless the file's agent was made
-- with memory = false (o.memory_skipped() then says so). o.elicit
-- answers the servers' elicitation requests (chat). With o.own_hub
-- (ask), the default agent gets a hub of its own that starts only
-- o.servers and waits for them, each failure passed to o.warn; otherwise
-- it shares the default hub, started in the background. o.subagents are
-- the agent files' (agent.file_agents), offered as tools.
-- warn_failures passes each server's failed start to warn, once: those
-- failed already and those that fail later (a server offered from its
-- cached tools is still starting when the run begins).
local function warn_failures(h, warn)
  local warned = {}
  h:on("status", function(s)
    if s.status == "failed" and not warned[s.name] then
      warned[s.name] = true
      warn(s.name .. " failed to start: " .. tostring(s.error))
    end
  end)
end

function M.build(o)
  -- --server: the agents on the catalog's hub (the file's, or chat's
  -- default one) start only those servers.
  local hub_opts = { on_elicit = o.elicit }
  if o.servers and (o.agent_fn or not o.own_hub) then hub_opts.start = o.servers end
  if next(hub_opts) then agent.default_hub_options(hub_opts) end
  if o.agent_fn then
    local a = o.agent_fn()
    if type(a) == "table" and not agent.is(a) and agent.is(a[1]) then a = a[1] end
    if not agent.is(a) then
      error({ kind = "invalid", message = o.agent_file .. " must return an agent (return agent.new{...})" }, 0)
    end
    local changes = {}
    if o.model then changes.model = o.model end
    if o.fallback_models then changes.fallback_models = o.fallback_models end
    if o.servers then changes.servers = o.servers end
    if o.yes then changes.yes = true end
    if o.code_mode then changes.code_mode = true end
    if o.subagents then
      -- The agent files' agents join the file's agent's own.
      local subs, names = {}, {}
      for _, x in ipairs(a._opts.agents or {}) do
        subs[#subs + 1] = x
        names[agent.slug(x.name or "")] = true
      end
      for _, x in ipairs(agent.file_agents(o.subagents, o.model or a._opts.model, o.warn, o.dir)) do
        if names[agent.slug(x.name)] then
          if o.warn then o.warn(o.agent_file .. " has an agent named " .. agent.slug(x.name) .. "; the agent file of that name is left out") end
        else
          subs[#subs + 1] = x
        end
      end
      changes.agents = subs
    end
    if o.context_window then changes.context_window = o.context_window end
    if o.dir then changes.dir = o.dir end -- an ACP session's folder: its hooks
    if o.memory then
      -- The project memory, unless the file's agent opts out.
      if a._opts.memory == false then
        if o.memory_skipped then o.memory_skipped() end
      else
        changes.memory = o.memory
      end
    end
    if next(changes) then a = a:with(changes) end
    -- ask: say which of the agent's servers did not start, as for the
    -- default agent (a tool it would have had is otherwise missing in
    -- silence).
    local h = rawget(a, "_hub")
    if o.own_hub and o.warn and h then warn_failures(h, o.warn) end
    return a
  end
  local h
  if o.own_hub then
    -- --server: only those are spawned. cache: a server with a cached
    -- tool list is not waited for (the first model request goes at once).
    -- dir: an ACP session's folder, for the servers without a cwd.
    h = mcp.hub{ start = o.servers, cache = true, on_elicit = o.elicit, dir = o.dir }
    if o.warn then warn_failures(h, o.warn) end
  end
  local subs = o.subagents and agent.file_agents(o.subagents, o.model, o.warn, o.dir) or nil
  return agent.new{ name = o.name, model = o.model, fallback_models = o.fallback_models, hub = h, servers = o.servers,
    yes = o.yes or nil, code_mode = o.code_mode or nil, memory = o.memory, agents = subs,
    context_window = o.context_window, dir = o.dir }
end

function M.with_model(a, model)
  return a:with{ model = model }
end

-- eval runs one line, as an expression when it is one (so "1+1" shows 2),
-- and renders what it returns: tables through inspect.
function M.eval(code)
  local f, err = loadstring("return " .. code, "lua")
  if not f then f, err = loadstring(code, "lua") end
  if not f then error({ kind = "syntax", message = err }, 0) end
  local function render(...)
    local out = {}
    for i = 1, select("#", ...) do
      local v = select(i, ...)
      local mt = getmetatable(v)
      if type(v) == "table" and not (type(mt) == "table" and mt.__tostring) then
        out[i] = inspect(v)
      else
        out[i] = tostring(v)
      end
    end
    return table.concat(out, "\t")
  end
  return render(f())
end

-- meta builds the catalog agent with the main agent's model (nil: the
-- default one, as for the main agent). Not require("meta"): a user's
-- meta.lua must not stand in for it.
function M.meta(main, path, confirm, saved)
  local meta = require("luagent.meta")
  local model = main and main._opts and main._opts.model
  return meta.new{ model = model, catalog = mcp.catalog(path), confirm = confirm, on_saved = saved }
end

function M.default_hub()
  return agent.default_hub()
end

return M
