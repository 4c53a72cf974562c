-- agent: a model with tools, over the native agent._native (runtime/agent).
--
--   local a = agent.new{ model = "mock", servers = { "echo" },
--     tools = { { name = "now", input = {}, handler = function() return os.date() end } },
--     approve = function(call) return agent.default_policy(call) end }
--   local text, transcript = a:ask("say hello")
--
-- model: "mock", "openai:gpt-4.1-mini", "anthropic:...", "ollama:...", a
-- configured name, agent.model(...), or a function(request) returning
-- {text = ...} or {tool_calls = {{name = ..., arguments = {...}}}}.
-- hub: an mcp.hub() value (default: the user's catalog, shared by every
-- agent that takes the default; false for none). servers: names of the
-- hub's servers to offer (default: all).
local native = require("agent._native")

local M = {}

-- default_policy(call) -> decision, reason: tools the server marks
-- readOnlyHint run; everything else, and a server's sampling request
-- (call.kind == "sampling"), asks a person (and is denied when nobody can
-- answer, unless yes). Matches runtime/agent.DefaultApprove.
function M.default_policy(call)
  if call.kind == "sampling" then
    return "ask", "the server asks to use the model"
  end
  if call.annotations and call.annotations.readOnlyHint == true then
    return "allow", "the tool is marked read-only"
  end
  return "ask", "the tool is not marked readOnlyHint"
end

local default_hub, default_opts
local function the_hub()
  if default_hub == nil then
    default_hub = mcp.hub(default_opts)
  end
  return default_hub
end

-- agent.default_hub() is the hub of the user's catalog that agents made
-- without hub share, made on first use: luagent chat's and the REPL's
-- /mcp show it. agent.default_hub_options(opts) sets the mcp.hub options
-- it will be made with (luagent chat passes on_elicit), if it is not made
-- yet; nothing starts until an agent or /mcp needs it.
M.default_hub = the_hub

function M.default_hub_options(opts)
  if default_hub == nil then default_opts = opts end
end

local Agent = {}
Agent.__index = Agent

local function tool_spec(t, i)
  if type(t) ~= "table" then
    error("agent.new: tools[" .. i .. "] must be a table {name=, handler=}", 3)
  end
  local spec = {}
  for k, v in pairs(t) do spec[k] = v end
  if spec.schema == nil then
    spec.schema = mcp.schema(t.input)
  end
  spec.input = nil
  return spec
end

function M.new(opts)
  if type(opts) ~= "table" then
    error("agent.new: options must be a table {model = ..., ...}", 2)
  end
  local o = {}
  for k, v in pairs(opts) do o[k] = v end
  -- o.model nil: LUAGENT_MODEL, else the catalog's "model", else mock.
  if o.hub == nil then o.hub = the_hub() end
  if o.hub == false then o.hub = nil end
  if o.tools then
    local tools = {}
    for i, t in ipairs(o.tools) do tools[i] = tool_spec(t, i) end
    o.tools = tools
  end
  local self = setmetatable({ name = o.name, description = o.description, _opts = o }, Agent)
  self._native = native.new(o)
  return self
end

-- a:with{...} is a new agent (a fresh conversation) with these options
-- changed: luagent ask applies --model, --server and --yes this way.
function Agent:with(changes)
  local o = {}
  for k, v in pairs(self._opts) do o[k] = v end
  for k, v in pairs(changes) do o[k] = v end
  if o.hub == nil then o.hub = false end
  return M.new(o)
end

-- a:ask(prompt [, opts]) -> text, transcript. opts.on_event(event) sees
-- each event (text deltas, tool_start, approval, tool_progress, tool_end,
-- end) before ask returns.
function Agent:ask(prompt, opts)
  if type(prompt) ~= "string" then
    error("a:ask: prompt must be a string", 2)
  end
  local on_event = opts and opts.on_event
  return self._native:ask(prompt, on_event)
end

-- a:stream(prompt, on_event) is a:ask(prompt, {on_event = on_event}).
function Agent:stream(prompt, on_event)
  return self._native:ask(prompt, on_event)
end

-- a:reset() forgets the conversation.
function Agent:reset()
  self._native:reset()
end

-- a:messages() is the conversation so far (transcript-shaped messages).
function Agent:messages()
  return self._native:messages()
end

function Agent:__tostring()
  return "agent " .. (self.name or "(unnamed)")
end

-- agent.model(spec | function) -> model with model:complete{system=,
-- messages = {{role = "user", content = "..."}}, tools=} -> {text=,
-- tool_calls=, stop_reason=, usage=}.
M.model = native.model

-- agent.is(v) reports whether v is an agent.
function M.is(v)
  return getmetatable(v) == Agent
end

return M
