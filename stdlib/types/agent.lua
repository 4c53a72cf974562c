---@meta agent
-- agent: a model with MCP tools, an approval policy and hooks. The loop
-- offers the model the hub's tools (server__tool), the hub's resources as
-- meta-tools (mcp_list_resources, mcp_read_resource; mcp_search_tools
-- instead of the tools when there are more than 40), the skills as
-- load_skill and read_skill_file, and the agent's own tools; it runs the calls the model asks for and feeds the results back
-- until the model answers or a limit ends the ask. Policies, hooks, tools
-- and Lua models run as tasks and may wait.

---@alias agent.Decision "allow"|"deny"|"ask"

---A permission rule that matched a call (stdlib/doc/approval.md "Permission rules").
---@class agent.Rule
---@field verdict agent.Decision the rule's list: allow, ask or deny
---@field pattern string the rule as written, e.g. "fs__write_file(path:/tmp/*)"
---@field source string where it was written: a config.json's path, "--allow", "--deny" or "agent.new"

---Permission rules: patterns over qualified tool names (server__tool, server__*, *, mcp__server__tool), with an optional argument matcher (fs__write_file(path:/tmp/*)); deny wins over allow, allow over ask.
---@class agent.Permissions
---@field allow? string[] run without asking (the policy may still refuse)
---@field ask? string[] ask a person even when the policy would allow
---@field deny? string[] refuse, before the policy

---A tool call as the policy and the hooks see it.
---@class agent.Call
---@field id string the model's id of the call
---@field name string what the model called (server__tool for a hub tool)
---@field tool string the server's own tool name (the name for local and meta tools)
---@field kind "mcp"|"local"|"meta"|"code"|"sampling" where it runs; "code" is run_lua (code mode), "sampling" a server asking for the agent's model
---@field parent? string the id of the run_lua call whose snippet made this call
---@field server? string the hub server (mcp, sampling)
---@field qualified? string the hub's qualified name
---@field arguments table the tool's arguments (sampling: the request); before_tool may change them
---@field annotations mcp.Annotations always a table; readOnlyHint is true for every call counted read-only (the meta-tools too)
---@field rule? agent.Rule the permission rule that matched the call (none: no rule did); the policy may still refuse

---Decides a call: "allow", "deny" or "ask" (true/false for allow/deny),
---and a reason. "ask" goes to the agent's ask function; without one it is
---denied unless yes is set. A policy that fails denies, saying why.
---@alias agent.Policy fun(call: agent.Call): (agent.Decision|boolean), string?

---A tool the agent runs itself.
---@class agent.ToolDef
---@field name string ^[a-zA-Z0-9_-]{1,64}$
---@field description? string
---@field input? mcp.Schema the arguments as mcp.server's shorthand (or a JSON Schema)
---@field schema? table a JSON Schema, used as written (instead of input)
---@field annotations? mcp.Annotations readOnlyHint = true lets the default policy run it
---@field handler fun(args: table): any a string (one text block), a table with content (an MCP result as it is), or any value (its JSON as text; a table also as structuredContent); an error is an error result

---@class agent.Hooks
---@field before_tool? fun(call: agent.Call): table|false|nil, string? change call.arguments in place or return new arguments; return false[, reason] (or raise) to deny
---@field after_tool? fun(call: agent.Call, result: agent.Result): agent.Result|nil change the result the model sees in place, or return a new one
---@field before_model? fun(request: agent.Request): table|nil change request.system in place, or return a table with system
---@field after_model? fun(response: agent.Response) sees each response
---@field SessionStart? agent.HookHandler|agent.HookHandler[] before the first ask (event.source "startup", "resume", "clear")
---@field UserPromptSubmit? agent.HookHandler|agent.HookHandler[] before a prompt runs (event.prompt); a veto blocks it
---@field PreToolUse? agent.HookHandler|agent.HookHandler[] before a call (event.tool_name, tool_input, tool_use_id); a veto denies it, the reason to the model
---@field PermissionRequest? agent.HookHandler|agent.HookHandler[] where a person would be asked; {hookSpecificOutput = {decision = {behavior = "allow"|"deny"}}}
---@field PostToolUse? agent.HookHandler|agent.HookHandler[] after a call ran (event.tool_response); a veto's reason and additionalContext join the result
---@field Notification? agent.HookHandler|agent.HookHandler[] when the host notifies the person (event.message, notification_type)
---@field PreCompact? agent.HookHandler|agent.HookHandler[] before the conversation is compacted (event.trigger); a veto keeps it whole
---@field Stop? agent.HookHandler|agent.HookHandler[] when the model answers; a veto makes it go on, the reason its next prompt (event.stop_hook_active)
---@field SubagentStop? agent.HookHandler|agent.HookHandler[] as Stop, for an agent made with subagent = true
---@field SessionEnd? agent.HookHandler|agent.HookHandler[] when the host ends the session (event.reason)

---A lifecycle hook handler (stdlib/doc/hooks.md): gets the event as a hook command's stdin has it; returns nil to go on, false[, reason] to veto, or a table shaped as a hook command's JSON output (decision, reason, continue, stopReason, systemMessage, hookSpecificOutput = {permissionDecision, permissionDecisionReason, updatedInput, additionalContext}; hookSpecificOutput's fields also at the top level). An error it raises is shown to the user and does not veto.
---@alias agent.HookHandler fun(event: table): table|false|nil, string?

---@class agent.Options
---@field name? string
---@field description? string
---@field model? string|agent.Model|agent.ModelConfig|(fun(request: agent.Request): agent.Response|string) "mock", "openai:MODEL", "anthropic:MODEL", "ollama:MODEL", a name from config.json's models, agent.model(...), a {provider =, model =, ...} table, or a Lua function (default: LUAGENT_MODEL, else config.json's model, else mock)
---@field system? string the system prompt; each ready server's instructions are appended
---@field hub? mcp.Hub|false the MCP tools (default: mcp.hub() of the user's catalog, shared by the agents that take the default; false: none)
---@field servers? string[]|table<string, table> only these hub servers' tools (default: all), and on the default hub only these are started; name = {config.json fields} entries are servers of the agent's own, in a hub of its own whose {param = NAME} env entries take the agent's params
---@field tools? agent.ToolDef[] the agent's own tools (a name also used by a hub tool shadows it)
---@field skills? boolean|string[] skills offered by name and description, loaded when the model asks (load_skill, read_skill_file): true (default) the local ones (LUAGENT_HOME/skills, then ./.luagent/skills, which wins a shared name) and the hub's servers' (SERVER__NAME); false none; a list of names only those
---@field approve? agent.Policy decides each call (default: agent.default_policy)
---@field ask? agent.Policy asks a person when the policy says "ask"
---@field yes? boolean allow every "ask" without asking
---@field permissions? agent.Permissions the agent's own permission rules, decided before approve (with luagent ask's and chat's: config.json, .luagent/config.json, --allow, --deny)
---@field hooks? agent.Hooks before_tool, after_tool, before_model, after_model, and the lifecycle events' handlers (PreToolUse = fn or {fn, ...}); config.json's command hooks run before them
---@field subagent? boolean the agent is a subagent: its answers fire SubagentStop instead of Stop
---@field max_turns? integer model calls per ask (default 20)
---@field token_budget? integer input + output tokens per ask (default: no bound)
---@field price? {input?: number, output?: number, cached_input?: number, cache_write?: number} the model's price in USD per million tokens (over config.json's and the built-in list prices), for costs and max_cost
---@field max_cost? number USD the agent's model requests may cost, summed over its asks (default: no bound); reaching it ends the ask with a "limit" error after the response that reached it; needs a known price (config.json's models.NAME.price, or a model luagent knows)
---@field context_window? integer the model's context window in tokens (default: --context-window, else config.json's models.NAME.contextWindow, else a known model's; unknown: no automatic compaction)
---@field compact_at? number the share of the window a request's input tokens reach for the next to compact first (default 0.8)
---@field keep_turns? integer the last user turns a compaction keeps whole (default 2)
---@field summarize? fun(messages: table[], focus: string): string writes the summary of the older turns (default: the model, asked to summarise)
---@field compact? boolean false: never compact (not at the threshold, not after a context_length error)
---@field tool_result_limit? integer bytes of a tool result the model gets at once; the rest it pages with read_tool_result (default 40960)
---@field timeout? number seconds per ask (default: none)
---@field fallback_models? string[]|false models (what model takes) that answer, in order, a request the model could not: its retries spent on 429/5xx/overloaded, its endpoint down, or the conversation too long for it (default: config.json's fallbackModels when model is a name or left out; false: none)
---@field params? agent.Param[] parameters: --set NAME=VALUE, --set-json NAME=JSON, --params-file FILE (flags win), then the default; a missing required one is an error naming it
---@field bindings? agent.Binding[] pinned tool arguments: left out of the schema the model sees; the bound value wins
---@field agents? agent.Agent[] other agents offered as tools (name slugged, input {prompt}), asked in a fresh conversation in this process
---@field input? table call parameters of the served tool (mcp.schema's shorthand), their values appended to the prompt as "Arguments: {...}"
---@field max_concurrent? integer a:ask_fresh calls (served calls) running at once (default 4; more wait)
---@field tool_search? "auto"|"always"|"never" whether mcp_search_tools stands for the hub's tools: "auto" past tool_search_threshold tools, "always" however few, "never" not at all (default: config.json's toolSearch, else "auto")
---@field tool_search_threshold? integer in "auto" mode, more tools than this are found through mcp_search_tools (default: config.json's toolSearchThreshold, else 40)
---@field memory? false|string false: luagent ask and chat leave the project memory (AGENTS.md) out of this agent's system prompt; text: appended to the system prompt (what ask and chat set)
---@field dir? string the agent's project folder: the command hooks and permission rules of the project it is in apply (default: the working folder; an ACP session's cwd)
---@field session? boolean save the agent's asks in a new session under $LUAGENT_HOME/sessions/ (a:session() says which; stdlib/doc/sessions.md)
---@field code_mode? boolean|"only"|"beside"|agent.CodeMode the model gets run_lua, a Lua snippet calling the tools as tools.SERVER.TOOL{...} in a sandbox: true or "only" instead of the tools, "beside" with them

---Code mode's option table: the mode and each run's limits.
---@class agent.CodeMode
---@field mode? "only"|"beside" (default "only")
---@field time? number seconds of wall time per run, tool calls included (default 30)
---@field instructions? integer Lua VM instructions per run (default 50000000)
---@field memory? integer bytes of the sandbox's memory meter (default 64 MiB)
---@field tool_calls? integer tool calls per run (default 100)
---@field output? integer bytes of the result the model gets; longer is cut with a note (default 16384)

---@class agent.Param
---@field name string
---@field description? string
---@field secret? boolean the value shows as <secret> in results, transcripts, traces and events
---@field required? boolean
---@field default? {env?: string, file?: string, value?: any}

---@class agent.Binding
---@field tool string a pattern (path.Match: "gh__*") on the name the model sees or the server's own tool name
---@field arg string
---@field value any|{param: string} the value, or a parameter's

---@class agent.Part
---@field type "text"|"image"|string
---@field text? string
---@field mime? string
---@field data? string base64

---@class agent.ToolCall
---@field id string
---@field name string
---@field arguments table

---A conversation message (the transcript's shape).
---@class agent.Message
---@field role "system"|"user"|"assistant"|"tool"
---@field parts? agent.Part[]
---@field tool_calls? agent.ToolCall[]
---@field tool_call_id? string (role tool)
---@field is_error? boolean (role tool)

---A tool's result as MCP has it.
---@class agent.Result
---@field content mcp.Content[]
---@field structuredContent? table
---@field isError? boolean

---Tokens: input_tokens counts the whole prompt; the cache fields (absent
---when 0) are the parts of it read from and written to the provider's
---prompt cache.
---@class agent.Usage
---@field input_tokens integer
---@field output_tokens integer
---@field cache_read_input_tokens? integer
---@field cache_creation_input_tokens? integer

---A model request: a Lua model's argument, before_model's.
---@class agent.Request
---@field system? string
---@field messages agent.Message[]
---@field tools {name: string, description?: string, schema?: table}[]
---@field max_tokens? integer
---@field temperature? number
---@field stop? string[]

---A model's answer: what a Lua model returns (a string is {text = it})
---and model:complete gives.
---@class agent.Response
---@field text? string
---@field tool_calls? {id?: string, name: string, arguments: table|string}[]
---@field stop_reason? string
---@field usage? agent.Usage

---model:complete's request: messages in the transcript's shape or
---{role =, content = "text"} (role defaults to "user").
---@class agent.CompleteRequest
---@field system? string
---@field messages (agent.Message|{role?: string, content: string})[]
---@field tools? {name: string, description?: string, schema?: table}[]
---@field max_tokens? integer
---@field temperature? number
---@field stop? string[]

---One model call of an ask.
---@class agent.Turn
---@field turn integer
---@field start string RFC 3339
---@field duration_ns integer
---@field stop_reason? string
---@field usage agent.Usage
---@field tool_calls integer

---One tool call of an ask: what was asked, decided and answered.
---@class agent.ToolCallRecord
---@field turn integer
---@field id string
---@field name string
---@field server? string
---@field tool? string
---@field kind "mcp"|"local"|"meta"|"code"|"sampling"
---@field arguments table
---@field decision agent.Decision
---@field reason? string
---@field result? agent.Result
---@field error? string
---@field error_kind? luagent.ErrorKind
---@field start string RFC 3339
---@field duration_ns integer
---@field parent? string the run_lua call that made this one
---@field calls? agent.ToolCallRecord[] a run_lua call's own calls, in the order they ended

---What one ask did (the JSON `luagent ask --json` prints).
---@class agent.Transcript
---@field model string
---@field start string RFC 3339
---@field duration_ns integer
---@field ["end"] "answer"|"max_turns"|"budget"|"max_cost"|"timeout"|"cancelled"|"error"|"hook"
---@field error? string why it ended, when not with an answer
---@field error_kind? luagent.ErrorKind
---@field messages agent.Message[] the messages this ask added
---@field turns agent.Turn[]
---@field tool_calls agent.ToolCallRecord[]
---@field usage agent.Usage
---@field cost_usd number what this ask's requests cost, by the models' prices (stdlib/doc/cli.md "Costs and limits")
---@field cost_unknown? boolean a model had no known price: cost_usd counts only the priced requests
---@field model_usage? table<string, {input_tokens: integer, output_tokens: integer, cache_read_input_tokens?: integer, cache_creation_input_tokens?: integer, requests: integer, cost_usd: number, unpriced?: boolean}> each model's tokens and cost

---One thing the loop did, as on_event sees it.
---@class agent.Event
---@field type "text"|"tool_start"|"approval"|"tool_progress"|"tool_end"|"hook"|"retry"|"compact"|"end"
---@field turn integer the 1-based model turn
---@field text? string a delta of the model's text (text)
---@field call? agent.Call (tool_start, approval, tool_progress, tool_end)
---@field decision? agent.Decision (approval)
---@field reason? string (approval)
---@field progress? number (tool_progress)
---@field total? number (tool_progress)
---@field message? string (tool_progress; hook: a hook's error, systemMessage or stopReason for the user; compact: what it did; retry: the status line, "↻ provider overloaded (529), retry 2/4 in 3.2s")
---@field retry? {type: "retry"|"fallback", model: string, kind: luagent.ErrorKind, error: string, status?: integer, attempt?: integer, max_retries?: integer, wait?: number, to?: string} (retry) the model provider failed: a retry after wait seconds, or a fallback to the model to
---@field trigger? "auto"|"manual" (compact)
---@field pre_tokens? integer the last request's input tokens before (compact)
---@field post_tokens? integer the estimated tokens after (compact)
---@field result? agent.Result (tool_end)
---@field duration? number seconds (tool_end)
---@field error? {kind: luagent.ErrorKind, message: string} why the call failed, or the ask ended
---@field ["end"]? "answer"|"max_turns"|"budget"|"max_cost"|"timeout"|"cancelled"|"error"|"hook" (end)

---A model spelled out, as config.json's "models" entries are.
---@class agent.ModelConfig
---@field provider "openai"|"ollama"|"anthropic"|"mock"
---@field model string the provider's model name
---@field base_url? string an OpenAI-compatible (or Anthropic) endpoint; default the provider's
---@field api_key_env? string the variable holding the key (default OPENAI_API_KEY, ANTHROPIC_API_KEY)
---@field api_key_id? string the key's id in the agents-exe keys file (--api-keys FILE, else ~/.config/agents-exe/secret-keys); no key is sent when it is not there

---A model on its own (agent.model).
---@class agent.Model
local Model = {}

---One model call, streamed to completion.
---@param request agent.CompleteRequest
---@return agent.Response
function Model:complete(request) end

---@return string
function Model:name() end

---An agent: a model, tools and a conversation that persists across asks
---until reset. Asks on one agent run one at a time.
---@class agent.Agent
---@field name? string
---@field description? string
local Agent = {}

---Asks and returns the answer and what the ask did. A failed ask raises a
---luagent.Error with the transcript so far.
---@param prompt string
---@param opts? {on_event?: fun(event: agent.Event)} on_event sees each event, in order, before ask returns
---@return string text
---@return agent.Transcript transcript
function Agent:ask(prompt, opts) end

---`a:stream(prompt, on_event)` is `a:ask(prompt, {on_event = on_event})`.
---@param prompt string
---@param on_event fun(event: agent.Event)
---@return string text
---@return agent.Transcript transcript
function Agent:stream(prompt, on_event) end

---Asks in a conversation of its own (a:ask continues a:ask's): several
---run at once, up to max_concurrent. Served agents' calls run this way.
---`tag` (any value) is handed to the hub's on_elicit and on_sample as
---their third argument for the requests this run's tool calls cause (of
---a 2026-07-28 server, which asks within the call), so that with several
---runs the question reaches the right one.
---@param prompt string
---@param opts? {on_event?: fun(event: agent.Event), tag?: any}
---@return string text
---@return agent.Transcript transcript
function Agent:ask_fresh(prompt, opts) end

---Forgets the conversation.
function Agent:reset() end

---Compact the conversation now: the older turns replaced by a summary (PreCompact hooks first, trigger "manual").
---@param focus? string what the summary is to keep
---@return {summarized: integer, kept: integer, before: integer, after: integer, summary: string}
function Agent:compact(focus) end

---Keep text verbatim through every compaction.
---@param text string
function Agent:pin(text) end

---Where the next request's tokens go (estimates: bytes/4).
---@param memory? string the project memory text, shown on its own
---@return {window: integer, last_input: integer, compactions: integer, pinned: integer, parts: {name: string, tokens: integer}[], text: string}
function Agent:context(memory) end

---Adds a handler of a lifecycle event after the agent's others (a:with keeps it).
---@param event "SessionStart"|"UserPromptSubmit"|"PreToolUse"|"PermissionRequest"|"PostToolUse"|"Notification"|"PreCompact"|"Stop"|"SubagentStop"|"SessionEnd"
---@param fn agent.HookHandler
---@return agent.Agent self
function Agent:on(event, fn) end

---The conversation so far.
---@return agent.Message[]
function Agent:messages() end

---What the agent's model requests cost so far, summed over its asks:
---total_cost_usd, unpriced (a model had no known price), and models by
---name ({input_tokens, output_tokens, cache_read_input_tokens,
---cache_creation_input_tokens, requests, cost_usd, unpriced}).
---@return {total_cost_usd: number, unpriced?: boolean, models: table<string, table>}
function Agent:costs() end

---The session the agent's asks are saved in: {id, path} (the id as
---luagent sessions list shows it, the path of its file), or nil when
---they are not saved. luagent ask and chat give the agent they build
---their run's session; agent.new{session = true} and agent.resume make one.
---@return {id: string, path: string}?
function Agent:session() end

---A new agent (a fresh conversation) with these options changed.
---@param changes agent.Options
---@return agent.Agent
function Agent:with(changes) end

---@class luagent.agent
agent = {}

---@param opts agent.Options
---@return agent.Agent
function agent.new(opts) end

---An agent that goes on with the saved session id ("latest": the latest
---one of the current folder): it gets the conversation of the session's
---complete turns, and its asks are saved in that session (opts.fork: in
---a new one holding its history). opts are agent.new's; the model is the
---session's unless opts.model says otherwise. An unknown id raises an
---error of kind not_found.
---@param id string
---@param opts? agent.Options|{fork?: boolean}
---@return agent.Agent
function agent.resume(id, opts) end

---A model by spec, name, {provider =, model =, ...} table or Lua function
---(as agent.new's model).
---@param spec string|agent.ModelConfig|(fun(request: agent.Request): agent.Response|string)
---@return agent.Model
function agent.model(spec) end

---The default policy, the one every agent made without approve follows
---(luagent ask, luagent chat and agent.new alike): tools the server marks
---readOnlyHint run ("allow"); everything else, and a server's sampling
---request, is "ask".
---@param call agent.Call
---@return agent.Decision decision
---@return string reason
function agent.default_policy(call) end

---The hub of the user's catalog that agents made without hub share (made on
---first use, progressive in an interactive session), with every server
---started: what /mcp shows. An agent made with servers = {...} starts only
---those in it.
---@return mcp.Hub
function agent.default_hub() end

---Sets the options agent.default_hub() will be made with, if it is not made
---yet (luagent chat passes on_elicit); opts.start is then the only servers
---it ever starts (luagent ask --server).
---@param opts mcp.HubOptions
function agent.default_hub_options(opts) end

---Reports whether v is an agent.
---@param v any
---@return boolean
function agent.is(v) end


---An MCP server with one tool per agent (luagent serve AGENT_FILE, luagent
---mcp-server): named agent.slug(name), input {prompt: string, transcript?:
---boolean}; a call asks in a fresh conversation, its tool calls sent as
---progress; cancelling it stops the agent.
---@param agents agent.Agent|agent.Agent[]
---@param opts? {name?: string, version?: string} default luagent-agents and the binary's version
---@return mcp.Server
function agent.server(agents, opts) end

---The agent an agents-exe agent file describes (its JSON decoded): slug,
---announce and systemPrompt are its name, description and system prompt;
---McpSimpleBinary servers are servers of its own, env "Param" entries
---required secret parameters; modelName at modelUrl is its model
---(OpenAI-compatible), apiKeyId's key of the agents-exe keys file its key.
---Tool directories, toolboxes, extra agents and skills are not read.
---@param description table
---@param path? string for errors
---@return agent.Agent
function agent.from_agents_exe(description, path) end

---The agent an agents-exe JSON agent file describes, from the file's text
---(agent.from_agents_exe of it decoded); text that is not JSON is an invalid
---error naming the file.
---@param text string the file's text
---@param name string the file's name, for errors
---@return agent.Agent
function agent.agents_exe_file(text, name) end

---A function returning agent.agents_exe_file(text, name): what luagent's
---loader of agent files gives for an agents-exe file (for ask, chat,
---serve and mcp-server alike).
---@param text string
---@param name string
---@return fun(): agent.Agent
function agent.agents_exe_loader(text, name) end

---What luagent serve makes of a script's return value that is not an MCP
---server: agent.server of an agent or a list of agents; false for
---anything else.
---@param v any
---@param version string the server's version ("" for the default)
---@return mcp.Server|false
function agent.server_of(v, version) end

---Runs each agent file (an agents-exe one — .json, or text starting with
---"{" — is the agent it describes) and serves all their agents
---(agent.server).
---@param paths string[]
---@param opts? {name?: string, version?: string}
---@return mcp.Server
function agent.serve_files(paths, opts) end

---The agents of agent files (.luagent/agents/NAME.md, ~/.luagent/agents/;
---what luagent ask and chat load), for agent.new's agents: each spec's
---system (the file's body) is the system prompt, its model or else model
---(the main agent's) answers, tools = {...} (server__tool, server__*)
---limits its calls and servers to those, {} gives it no hub; lua = true
---runs path, which returns agent.new{...}. Each is a subagent (SubagentStop).
---@param list {name: string, description?: string, system?: string, model?: any, servers?: string[], tools?: string[], path: string, lua?: boolean}[]
---A file whose agent cannot be made, or whose name another has, is passed
---to warn and left out (without warn its error is raised).
---@param model? any the main agent's model
---@param warn? fun(msg: string)
---@return agent.Agent[]
function agent.file_agents(list, model, warn) end

---One agent file's agent (agent.file_agents).
---@param d table
---@param model? any
---@return agent.Agent
function agent.file_agent(d, model) end

---A name as a tool may have it: each run of characters other than letters,
---digits, _ and - becomes _ (at most 64; "agent" when nothing is left).
---@param name string
---@return string
function agent.slug(name) end

---The agents v is (an agent, a list of agents or of lists), or nil.
---@param v any
---@return agent.Agent[]|nil
function agent.agents_of(v) end

return agent
