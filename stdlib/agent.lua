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

-- default_policy(call) -> decision, reason: the one default policy, the
-- one every agent made without approve follows (runtime/approval.Default):
-- tools the server marks readOnlyHint run; everything else, and a
-- server's sampling request (call.kind == "sampling"), asks a person (and
-- is denied when nobody can answer, unless yes).
M.default_policy = native.default_approve

local default_hub, default_opts

-- within(names, only) is names (nil: every server) limited to only (nil:
-- no limit).
local function within(names, only)
  if only == nil then return names end
  if names == nil then return only end
  local allowed, out = {}, {}
  for _, n in ipairs(only) do allowed[n] = true end
  for _, n in ipairs(names) do
    if allowed[n] then out[#out + 1] = n end
  end
  return out
end

-- the_hub(names) is the default hub with the servers names (nil: every
-- enabled one) started: an agent starts only the servers it offers.
local function the_hub(names)
  names = within(names, default_opts and default_opts.start)
  if default_hub == nil then
    local o = {}
    for k, v in pairs(default_opts or {}) do o[k] = v end
    o.start = names
    -- Servers with a cached tool list are not waited for: the first model
    -- request goes at once, and a call waits for its own server.
    if o.cache == nil then o.cache = true end
    default_hub = mcp.hub(o)
  else
    default_hub:start(names)
  end
  return default_hub
end

-- agent.default_hub() is the hub of the user's catalog that agents made
-- without hub share, made on first use with every server started: luagent
-- chat's and the REPL's /mcp show it. agent.default_hub_options(opts) sets
-- the mcp.hub options it will be made with (luagent chat passes
-- on_elicit), if it is not made yet; opts.start, if given, is then the
-- only servers it ever starts (luagent ask --server). Nothing starts until
-- an agent or /mcp needs it, and an agent made with servers = {...}
-- starts only those.
function M.default_hub()
  return the_hub(nil)
end

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

local function invalid(msg)
  error({ kind = "invalid", message = msg }, 0)
end

local passthrough, caller, ask_client, start_run

-- slug(name) is a name as a tool may have it (^[A-Za-z0-9_-]{1,64}$):
-- every run of other characters becomes one _.
local function slug(name)
  local s = tostring(name):gsub("[^%w_-]+", "_"):gsub("^_+", ""):gsub("_+$", "")
  s = s:sub(1, 64)
  if s == "" then s = "agent" end
  return s
end
M.slug = slug

-- servers: names of the hub's servers, and (as name = {config.json
-- fields}) servers of the agent's own, started in a hub of its own whose
-- {param = NAME} env references take the agent's params.
local function split_servers(servers)
  if type(servers) ~= "table" then return servers, nil end
  local names, inline = {}, nil
  for k, v in pairs(servers) do
    if type(k) == "string" then
      inline = inline or {}
      inline[k] = v
    end
  end
  for _, v in ipairs(servers) do names[#names + 1] = v end
  return names, inline
end

-- binding_json(b, values, isjson) is a binding's value as JSON text:
-- {param = NAME} takes the parameter's value (as JSON when it is JSON).
local function binding_json(b, i, values, isjson)
  if type(b) ~= "table" or type(b.tool) ~= "string" or type(b.arg) ~= "string" then
    invalid("agent.new: bindings[" .. i .. "] must be {tool = PATTERN, arg = NAME, value = ...}")
  end
  local v = b.value
  if type(v) == "table" and type(v.param) == "string" then
    local p = v.param
    if values[p] == nil then
      invalid("agent.new: bindings[" .. i .. "] (" .. b.arg .. " of " .. b.tool .. ") needs the parameter " .. p .. ": pass --set " .. p .. "=VALUE or declare it in params")
    end
    if isjson[p] then return values[p] end
    return json.encode(values[p])
  end
  return json.encode(v)
end

-- A served call's run (agent.server): the agent's answer to one
-- tools/call, on a task of its own so that it outlives one 2026-07-28
-- input round. run.ctx is the call's current request context (a modern
-- call's is new each round); run.busy counts its tool calls in flight by
-- server, which says which run a server's question belongs to; asks
-- carries its questions for the client to the call's handler (follow).

-- caller is the run of the served calls (calls) that a request of
-- server's (an elicitation, a sample) belongs to — the run tagged on the
-- request (its tool call's input round, a 2026-07-28 server), else the
-- one with a tool call in flight on that server, else the only run —
-- whose client has the capability; else nil: with two runs at one
-- legacy server, which asked is unknown.
function caller(calls, capability, server, tag)
  local only, busy, n = nil, nil, 0
  if tag ~= nil and calls[tag] then
    local caps = tag.ctx.client.capabilities
    return type(caps) == "table" and caps[capability] ~= nil and tag or nil
  end
  for run in pairs(calls) do
    n = n + 1
    only = run
    if server and (run.busy[server] or 0) > 0 then
      if busy then return nil end
      busy = run
    end
  end
  local run = busy or (n == 1 and only) or nil
  local caps = run and run.ctx.client.capabilities or {}
  if not run or type(caps) ~= "table" or caps[capability] == nil then return nil end
  return run
end

-- ask_client asks the client of run's call for one input and returns
-- the answer, or nil when nobody can answer. Legacy: a request to the
-- client. Modern: the call's handler parks the run and answers the round
-- with input_required; the client's next round brings the answer.
function ask_client(run, method, params)
  if run.ctx.era == "legacy" then
    return run.ctx:ask{ a = { method = method, params = params } }.a
  end
  run.n_asks = run.n_asks + 1
  local ask = { key = "input-" .. run.n_asks, method = method, params = params, reply = task.queue(1) }
  if not run.events:put({ ask = ask }) then return nil end
  return ask.reply:take() or nil
end

-- passthrough answers an elicitation a server of the agent's own asks
-- for: the caller's client asks its user; without one nobody can answer,
-- and it is declined (the non-interactive rule).
function passthrough(calls, params, server, tag)
  local run = caller(calls, "elicitation", server, tag)
  return run and ask_client(run, "elicitation/create", params) or { action = "decline" }
end

local MAX_DEPTH = 8

-- agent_tools are an agent's agents = {...} as tools of its own: each
-- asks the other agent in a fresh conversation, in this process (no MCP
-- hop). A tool's name must not be taken, and a chain of agents calling
-- agents is at most MAX_DEPTH deep (agents exist before those that
-- hold them, so there are no cycles).
local function agent_tools(list, tools)
  local depth = 0
  local names = {}
  for _, t in ipairs(tools) do names[t.name] = true end
  for i, sub in ipairs(list) do
    if not M.is(sub) then invalid("agent.new: agents[" .. i .. "] must be an agent (agent.new{...})") end
    local name = slug(sub.name or ("agent_" .. i))
    if names[name] then
      invalid("agent.new: agents[" .. i .. "] is named " .. name .. ", as another of the agent's tools: give it another name")
    end
    names[name] = true
    depth = math.max(depth, sub._depth)
    tools[#tools + 1] = { name = name, description = sub.description or ("Ask the agent " .. name),
      schema = { type = "object", properties = { prompt = { type = "string", description = "what to ask the agent" } }, required = { "prompt" } },
      -- Allowed as read-only: the other agent's own policy judges each
      -- of its calls.
      annotations = { readOnlyHint = true },
      handler = function(args) return (sub._native:ask_fresh(args.prompt)) end }
  end
  if depth + 1 > MAX_DEPTH then
    invalid("agent.new: agents call agents " .. (depth + 1) .. " deep; at most " .. MAX_DEPTH)
  end
  return depth + 1
end

function M.new(opts)
  if type(opts) ~= "table" then
    error("agent.new: options must be a table {model = ..., ...}", 2)
  end
  local o = {}
  for k, v in pairs(opts) do o[k] = v end
  -- params: resolved before anything starts; a missing required one is
  -- an error naming it.
  local values, isjson, secrets = native.params(o.params, o.name)
  -- memory: the project memory luagent ask and chat loaded (AGENTS.md:
  -- text) goes after the agent's own system prompt; false keeps it out.
  if o.memory ~= nil and o.memory ~= false and type(o.memory) ~= "string" then
    invalid("agent.new: memory must be false (leave the project memory out) or text, not " .. type(o.memory))
  end
  if type(o.memory) == "string" and o.memory ~= "" then
    o.system = (type(o.system) == "string" and o.system ~= "") and (o.system .. "\n\n" .. o.memory) or o.memory
  end
  o.memory = nil
  local calls = {} -- served calls running now (agent.server), for passthrough
  local self -- the agent, for the hub's on_sample
  o._secrets = secrets
  local names, inline = split_servers(o.servers)
  if inline then
    if #names > 0 then
      invalid("agent.new: servers has names of the catalog's servers and servers of the agent's own; give one kind")
    end
    if o.hub ~= nil then invalid("agent.new: give hub or servers of the agent's own, not both") end
    o.hub = mcp.hub{ servers = inline, params = values, cache = true,
      on_elicit = function(params, server, tag) return passthrough(calls, params, server, tag) end,
      -- A sampling request goes to the caller's client, else to this
      -- agent's model through its policy (what the hub does by itself).
      on_sample = function(params, server, tag)
        local run = caller(calls, "sampling", server, tag)
        return run and ask_client(run, "sampling/createMessage", params) or self._native:sample(params, server)
      end }
    o.servers = nil
  end
  -- o.model nil: LUAGENT_MODEL, else the catalog's "model", else mock.
  if o.hub == nil or (o.hub == default_hub and default_hub ~= nil) then o.hub = the_hub(names) end
  if o.hub == false then o.hub = nil end
  local tools = {}
  for i, t in ipairs(o.tools or {}) do tools[i] = tool_spec(t, i) end
  local depth = 1
  if o.agents then depth = agent_tools(o.agents, tools) end
  o.tools = #tools > 0 and tools or nil
  if o.bindings then
    local bs = {}
    for i, b in ipairs(o.bindings) do
      bs[i] = { tool = b.tool, arg = b.arg, json = binding_json(b, i, values, isjson) }
    end
    o.bindings = bs
  end
  self = setmetatable({ name = o.name, description = o.description, _opts = opts, _depth = depth, _calls = calls,
    _hub = o.hub or false, _inline = inline ~= nil }, Agent)
  local session = o.session
  o.session = nil
  self._native = native.new(o)
  if session then self._native:record() end
  return self
end

-- agent.resume(id [, opts]) -> agent: agent.new(opts) going on with the
-- saved session id ("latest": the current folder's latest), its asks
-- saved there (opts.fork: in a new session with its history); the
-- session's model unless opts.model.
function M.resume(id, opts)
  if type(id) ~= "string" then
    error("agent.resume: id must be a session id (luagent sessions list shows them) or \"latest\"", 2)
  end
  if opts ~= nil and type(opts) ~= "table" then
    error("agent.resume: options must be a table (agent.new's, and fork)", 2)
  end
  local info = native.session_info(id)
  local o = {}
  for k, v in pairs(opts or {}) do o[k] = v end
  local fork = o.fork and true or false
  o.fork, o.session = nil, nil
  if o.model == nil and info.model ~= "" then o.model = info.model end
  local a = M.new(o)
  a._native:record(info.id, fork)
  return a
end

-- a:with{...} is a new agent (a fresh conversation) with these options
-- changed: luagent ask applies --model, --server and --yes this way.
function Agent:with(changes)
  local o = {}
  for k, v in pairs(self._opts) do o[k] = v end
  for k, v in pairs(changes) do o[k] = v end
  if changes.hub == nil then
    -- The same hub: a hub of the agent's own keeps its servers started.
    o.hub = self._hub
    if self._inline and changes.servers == nil then o.servers = nil end
  end
  local a = M.new(o)
  for _, h in ipairs(rawget(self, "_on") or {}) do a:on(h[1], h[2]) end
  return a
end

-- a:on(event, fn) adds a handler of a lifecycle event (PreToolUse,
-- PostToolUse, Stop, ...: stdlib/doc/hooks.md) after the agent's others;
-- fn(event) returns nil to go on, false[, reason] to veto, or a table
-- shaped as a hook command's JSON output. a:with keeps them.
function Agent:on(event, fn)
  self._native:on(event, fn)
  local on = rawget(self, "_on") or {}
  on[#on + 1] = { event, fn }
  rawset(self, "_on", on)
  return self
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

-- a:ask_fresh(prompt [, opts]) -> text, transcript: an ask in a
-- conversation of its own (a:ask's continues a:ask's), so several run at
-- once, up to the agent's max_concurrent (default 4; more wait). Served
-- agents and agents = {...} run their calls this way.
function Agent:ask_fresh(prompt, opts)
  if type(prompt) ~= "string" then
    error("a:ask_fresh: prompt must be a string", 2)
  end
  return self._native:ask_fresh(prompt, opts and opts.on_event, opts and opts.tag)
end

-- a:stream(prompt, on_event) is a:ask(prompt, {on_event = on_event}).
function Agent:stream(prompt, on_event)
  return self._native:ask(prompt, on_event)
end

-- a:reset() forgets the conversation.
function Agent:reset()
  self._native:reset()
end

-- a:compact([focus]) -> {summarized =, kept =, before =, after =, summary =}:
-- the older turns replaced by a summary now (PreCompact hooks first,
-- trigger "manual"); focus says what the summary is to keep
-- (stdlib/doc/context.md).
function Agent:compact(focus)
  return self._native:compact(focus)
end

-- a:pin(text): text is kept verbatim through every compaction.
function Agent:pin(text)
  self._native:pin(text)
end

-- a:context([memory]) -> {window =, last_input =, parts = {{name =, tokens =}}, text =}:
-- where the next request's tokens go (estimates: bytes/4).
function Agent:context(memory)
  return self._native:context(memory)
end

-- a:session() -> {id =, path =} | nil: the session the asks are saved in.
function Agent:session()
  return self._native:session()
end

-- a:costs() -> {total_cost_usd =, unpriced =, models = {[name] = {...}}}:
-- what the agent's model requests cost so far, over its asks.
function Agent:costs()
  return self._native:costs()
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

-- agents_of(v) is the agents v is (an agent, or a list of agents, or of
-- lists), or nil when v is anything else.
local function agents_of(v, out)
  out = out or {}
  if M.is(v) then
    out[#out + 1] = v
    return out
  end
  if type(v) ~= "table" or getmetatable(v) ~= nil or #v == 0 then return nil end
  for _, x in ipairs(v) do
    if not agents_of(x, out) then return nil end
  end
  return out
end
M.agents_of = agents_of

-- label(call) is how a progress message names a call: "server › tool".
local function label(call)
  if call.server then return call.server .. " › " .. call.tool end
  return call.name
end

local Run = {}
Run.__index = Run

-- start_run starts agent a on prompt for the served call ctx. What the
-- run has to say reaches the call's handler on run.events: {ask = ...}
-- for a question to the client, then {ended = true, ...} once.
function start_run(a, prompt, ctx)
  local run = setmetatable({ ctx = ctx, busy = {}, n_asks = 0, n_progress = 0,
    events = task.queue(16) }, Run)
  local function progress(msg)
    run.n_progress = run.n_progress + 1
    run.ctx:progress(run.n_progress, nil, msg)
  end
  a._calls[run] = true
  run.h = task.spawn(function()
    local ok, text, tr = task.pcall(a._native.ask_fresh, a._native, prompt, function(e)
      local server = e.call and e.call.server
      if e.type == "tool_start" then
        if server then run.busy[server] = (run.busy[server] or 0) + 1 end
        progress(label(e.call) .. " …")
      elseif e.type == "tool_progress" then
        progress(label(e.call) .. ": " .. (e.message or (e.total and (e.progress .. "/" .. e.total)) or tostring(e.progress)))
      elseif e.type == "tool_end" then
        if server then run.busy[server] = (run.busy[server] or 1) - 1 end
        progress(label(e.call) .. (e.error and (" failed: " .. e.error.message) or " done"))
      end
    end, run)
    a._calls[run] = nil
    run.events:put({ ended = true, ok = ok, text = text, tr = tr })
  end)
  return run
end

-- run:follow(ctx, transcript) is the handler of one round of the served
-- call: it returns the call's result once the run ends. A question for
-- the client parks the run (2026-07-28): this round is answered with
-- input_required and the handler ends; the client's next round resumes
-- the run with the answers. A question that cannot be parked (the
-- server's bound) gets no answer: the asker answers for the client. A
-- round that ends otherwise (cancelled, timed out) stops the run.
function Run:follow(ctx, transcript)
  self.ctx = ctx
  ctx:on_cancel(function(why) self:stop(why) end)
  while true do
    local ev = self.events:take()
    if ev.ended then
      if not ev.ok then error(ev.text, 0) end
      if transcript then
        return { content = { { type = "text", text = ev.text } }, structuredContent = { text = ev.text, transcript = ev.tr } }
      end
      return ev.text
    end
    -- Questions asked meanwhile (tool calls in parallel) go in one round.
    local asks, inputs = { ev.ask }, {}
    while #self.events > 0 do
      local more = self.events:take()
      if not more.ask then self.events:put(more); break end
      asks[#asks + 1] = more.ask
    end
    for i, q in ipairs(asks) do inputs[i] = { key = q.key, method = q.method, params = q.params } end
    -- Parking answers the round, and a handler whose round is answered
    -- stops at its next instruction: what follows a park comes first.
    -- Nobody coming back within the park's time stops the run.
    local ttl, back = ctx.park_ttl, task.queue(1)
    self.pending, self.back = asks, back
    task.spawn(function()
      if not task.pcall(task.timeout, ttl, back.take, back) then
        self:stop("the client did not answer within " .. ttl .. " s")
      end
    end)
    if ctx:park(self, inputs) then return nil end
    back:put(true)
    self.pending, self.back = nil, nil
    for _, q in ipairs(asks) do q.reply:put(false) end
  end
end

-- run:resume(ctx, answers) hands a new round's answers to the questions
-- the run waits on.
function Run:resume(ctx, answers)
  self.ctx = ctx
  if self.back then self.back:put(true) end
  for _, q in ipairs(self.pending or {}) do q.reply:put(answers[q.key] or false) end
  self.pending, self.back = nil, nil
end

-- run:stop(why) cancels the run and releases whoever waits for an answer.
function Run:stop(why)
  self.h:cancel(why)
  for _, q in ipairs(self.pending or {}) do q.reply:put(false) end
  self.pending = nil
  while #self.events > 0 do
    local ev = self.events:take()
    if ev.ask then ev.ask.reply:put(false) end
  end
end

-- agent.server(agents [, {name=, version=}]) is an MCP server with one
-- tool per agent: named after the agent (slugged), described by its
-- description, input {prompt = string, transcript = boolean?}. A call
-- asks the agent in a fresh conversation and returns its answer (and,
-- with transcript = true, {text=, transcript=} as structuredContent);
-- the agent's tool calls are sent as progress with messages; a cancelled
-- call cancels the agent and its running tool call. Served agents have
-- nobody to ask: the policy's "ask" is a denial; an elicitation their own
-- servers ask for goes to the calling client (see passthrough).
-- luagent serve AGENT_FILE and luagent mcp-server --agent-file FILE.
function M.server(v, o)
  o = o or {}
  local list = agents_of(v)
  if not list then invalid("agent.server: an agent or a list of agents expected") end
  local s = mcp.server{ name = o.name or "luagent-agents", version = o.version or (native.version ~= "" and native.version or "0.1.0") }
  local seen = {}
  for i, a in ipairs(list) do
    local name = slug(a.name or ("agent_" .. i))
    if seen[name] then
      invalid("agent.server: two agents are named " .. name .. " as tools; give them different names")
    end
    seen[name] = true
    -- The agent's call parameters (input = {...}, mcp.schema's shorthand)
    -- join prompt and transcript; a call's values follow its prompt.
    local input = { type = "object", required = { "prompt" }, properties = {
      prompt = { type = "string", description = "what to ask the agent" },
      transcript = { type = "boolean", description = "also return the run's transcript (structuredContent.transcript)" },
    } }
    local extra = a._opts.input and mcp.schema(a._opts.input)
    for k, v in pairs(extra and extra.properties or {}) do
      if input.properties[k] then invalid("agent.server: " .. name .. "'s input names " .. k .. ", which the tool has already") end
      input.properties[k] = v
    end
    for _, r in ipairs(extra and extra.required or {}) do input.required[#input.required + 1] = r end
    s:tool{
      name = name,
      description = a.description or ("The agent " .. name .. ": ask it in plain words."),
      input = input,
      handler = function(args, ctx)
        local run, answers = ctx:parked()
        if run then
          run:resume(ctx, answers)
        else
          local prompt, values = args.prompt, {}
          for k in pairs(extra and extra.properties or {}) do
            if args[k] ~= nil then values[k] = args[k] end
          end
          if next(values) then prompt = prompt .. "\n\nArguments: " .. json.encode(values) end
          run = start_run(a, prompt, ctx)
        end
        return run:follow(ctx, args.transcript)
      end,
    }
  end
  return s
end

-- agent.from_agents_exe(description, path) is the agent an agents-exe
-- agent file describes ({"tag": "OpenAIAgentDescription", "contents":
-- {slug, announce, systemPrompt, mcpServers, ...}}): slug is its name,
-- announce its description, systemPrompt its system prompt; each
-- McpSimpleBinary server {name, executable, args, env} is a server of its
-- own, env {"tag": "Literal", "contents": V} a literal and {"tag":
-- "Param", "contents": NAME} a required secret parameter. modelUrl and
-- modelName are an OpenAI-compatible model (whatever the flavor), its key
-- apiKeyId's entry of the agents-exe keys file (--api-keys FILE, else
-- ~/.config/agents-exe/secret-keys; none sent when it has no such entry);
-- without modelName the model is luagent's (LUAGENT_MODEL, config.json's,
-- else mock). Its tool directory, toolboxes, extra agents and skills are
-- not read.
function M.from_agents_exe(d, path)
  path = path or "the agent file"
  if type(d) ~= "table" or d.tag ~= "OpenAIAgentDescription" or type(d.contents) ~= "table" then
    invalid(path .. ': not an agents-exe agent file ({"tag": "OpenAIAgentDescription", "contents": {...}})')
  end
  local c = d.contents
  local servers, params, seen = {}, {}, {}
  for i, srv in ipairs(c.mcpServers or {}) do
    local sc = type(srv) == "table" and srv.contents
    if srv.tag ~= "McpSimpleBinary" or type(sc) ~= "table" or type(sc.name) ~= "string" or type(sc.executable) ~= "string" then
      invalid(path .. ": mcpServers[" .. i .. "] must be {\"tag\": \"McpSimpleBinary\", \"contents\": {\"name\", \"executable\", \"args\", \"env\"}}")
    end
    local env
    for k, v in pairs(type(sc.env) == "table" and sc.env or {}) do
      env = env or {}
      if type(v) == "table" and v.tag == "Literal" then
        env[k] = tostring(v.contents)
      elseif type(v) == "table" and v.tag == "Param" and type(v.contents) == "string" then
        env[k] = { param = v.contents }
        if not seen[v.contents] then
          seen[v.contents] = true
          params[#params + 1] = { name = v.contents, secret = true, required = true }
        end
      else
        invalid(path .. ": mcpServers[" .. i .. "].env." .. k .. ' must be {"tag": "Literal" or "Param", "contents": ...}')
      end
    end
    servers[sc.name] = { command = sc.executable, args = sc.args or json.array({}), env = env }
  end
  local system = c.systemPrompt
  if type(system) == "table" then system = table.concat(system, "\n") end
  local o = { name = c.slug, description = c.announce, system = system, params = params }
  for _, f in ipairs({ "modelName", "modelUrl", "apiKeyId" }) do
    if c[f] ~= nil and type(c[f]) ~= "string" then invalid(path .. ": " .. f .. " must be a string") end
  end
  if c.modelName and c.modelName ~= "" then
    o.model = { provider = "openai", model = c.modelName, base_url = c.modelUrl, api_key_id = c.apiKeyId or "" }
  end
  if next(servers) then o.servers = servers else o.hub = false end
  return M.new(o)
end

-- agent.agents_exe_file(text, name) -> agent: the agent an agents-exe
-- JSON agent file describes, from the file's text (name says which file in
-- errors); text that is not JSON is an invalid error naming the file.
-- agent.agents_exe_loader(text, name) is a function that returns it: what
-- luagent's one loader of agent files (ask --agent, chat --agent, serve,
-- mcp-server --agent-file) gives for such a file, the text a value and
-- never Lua source.
function M.agents_exe_file(text, name)
  local ok, d = pcall(json.decode, text)
  if not ok then
    invalid(name .. ": not JSON (an agents-exe agent file is): " .. tostring(d):gsub("^[^\n]-:%d+: ", "") .. "; fix the file")
  end
  return M.from_agents_exe(d, name)
end

function M.agents_exe_loader(text, name)
  return function() return M.agents_exe_file(text, name) end
end

-- agent.server_of(v, version) -> server | false: what luagent serve makes
-- of a script's return value that is not an MCP server: agent.server of an
-- agent or a list of agents (version: the server's, "" for the default);
-- false for anything else.
function M.server_of(v, version)
  if not agents_of(v) then return false end
  return M.server(v, { version = version ~= "" and version or nil })
end

-- agent.serve_files(paths) runs each agent file (each returns an agent or
-- a list of agents; an agents-exe JSON file is the agent it describes:
-- the loader ask --agent and serve use too) and returns agent.server of
-- them all (luagent mcp-server --agent-file FILE ...).
function M.serve_files(paths, o)
  local all = {}
  for _, p in ipairs(paths) do
    local got = agents_of(native.load_file(p)())
    if not got then invalid(p .. " must return an agent or a list of agents (return agent.new{...})") end
    for _, a in ipairs(got) do all[#all + 1] = a end
  end
  return M.server(all, o)
end

-- glob_match(glob, s): * is any run of characters, the rest itself.
local function glob_match(glob, s)
  local pat = "^" .. glob:gsub("[%^%$%(%)%%%.%[%]%+%-%?]", "%%%0"):gsub("%*", ".*") .. "$"
  return s:match(pat) ~= nil
end

-- agent.file_agents(list, model) -> agents: the agents of agent files
-- (runtime/cmdfile: .luagent/agents/NAME.md, $LUAGENT_HOME/agents/), for
-- agents = {...}. Each d is {name, description, system, model, servers,
-- tools, path, lua}: a .md file is an agent.new with the body as its
-- system prompt, the file's model or else model (the main agent's), and
-- when tools is given only those tools (server__tool, server__*; none:
-- no hub) run, on those servers; a .lua file (d.lua) returns agent.new{...}.
-- Every one is a subagent: its answers fire SubagentStop. A file whose
-- agent cannot be made, or whose name another has, is passed to warn (a
-- line naming it) and left out; without warn, its error is raised.
function M.file_agents(list, model, warn, dir)
  local out, taken = {}, {}
  for _, d in ipairs(list or {}) do
    local ok, a = task.pcall(M.file_agent, d, model, dir)
    if not ok then
      local msg = type(a) == "table" and (a.message or tostring(a)) or tostring(a)
      msg = msg:find(d.path, 1, true) and msg or (d.path .. ": " .. msg)
      -- On the main agent's model, a missing key is the main agent's too:
      -- the run says so once, and the file is left out without a line.
      local mains = not d.lua and d.model == nil and type(a) == "table" and a.kind == "auth"
      if warn and not mains then warn(msg .. " (the other agent files still load)") elseif not warn then error(a, 0) end
    elseif taken[slug(a.name or d.name)] then
      if warn then warn(d.path .. ": another agent file is named " .. slug(a.name or d.name) .. "; rename one") end
    else
      taken[slug(a.name or d.name)] = true
      out[#out + 1] = a
    end
  end
  return out
end

-- agent.file_agent(d, model, dir) is one agent file's agent
-- (agent.file_agents); dir, when given, is its project folder.
function M.file_agent(d, model, dir)
  local a
  if d.lua then
    local got = native.load_file(d.path)()
    if type(got) == "table" and not M.is(got) and M.is(got[1]) then got = got[1] end
    if not M.is(got) then invalid(d.path .. " must return an agent (return agent.new{...})") end
    local changes = { subagent = true, dir = dir }
    if got.name == nil then changes.name = d.name end
    a = got:with(changes)
  else
    local o = { name = d.name, description = d.description, system = d.system ~= "" and d.system or nil,
      model = d.model or model, servers = d.servers, subagent = true, dir = dir }
    if d.tools then
      local only = d.tools
      if #only == 0 then
        o.hub = false
      else
        if o.servers == nil then -- the servers its tools name
          local seen, servers = {}, {}
          for _, t in ipairs(only) do
            local srv = t:match("^(.-)__")
            if srv and not srv:find("[%*%?]") and not seen[srv] then
              seen[srv] = true
              servers[#servers + 1] = srv
            end
          end
          if #servers > 0 then o.servers = servers end
        end
        o.hooks = { before_tool = function(call)
          for _, g in ipairs(only) do
            if glob_match(g, call.name) then return nil end
          end
          return false, call.name .. " is not among the tools of " .. d.path
        end }
      end
    end
    a = M.new(o)
  end
  return a
end

return M
