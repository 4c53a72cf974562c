---@meta mcp
-- mcp: the Model Context Protocol. Clients of MCP servers (mcp.connect),
-- the catalog's live servers (mcp.hub) and the saved catalog (mcp.catalog),
-- and MCP servers written in Lua (mcp.server, served by `luagent serve
-- FILE`). Every method that talks to a peer waits, yielding the task.
-- Both protocol eras (2025-11-25 sessions and stateless 2026-07-28) are
-- spoken with the same calls.

-----------------------------------------------------------------------------
-- Protocol shapes (the specification's JSON, camelCase)
-----------------------------------------------------------------------------

---@class mcp.Annotations
---@field title? string
---@field readOnlyHint? boolean
---@field destructiveHint? boolean
---@field idempotentHint? boolean
---@field openWorldHint? boolean

---A tool as a server lists it.
---@class mcp.Tool
---@field name string
---@field title? string
---@field description? string
---@field inputSchema table a JSON Schema
---@field outputSchema? table
---@field annotations? mcp.Annotations
---@field _meta? table
---@field [string] any

---A content block of a tool result or prompt message.
---@class mcp.Content
---@field type "text"|"image"|"audio"|"resource"|"resource_link"
---@field text? string
---@field data? string base64 (image, audio)
---@field mimeType? string
---@field uri? string (resource_link)
---@field name? string (resource_link)
---@field resource? mcp.ResourceContents (resource)
---@field [string] any

---What every result may carry besides its own fields (2026-07-28).
---@class mcp.Result
---@field resultType? "complete" (modern servers)
---@field ttlMs? integer cache hint: how long the result stays fresh
---@field cacheScope? "public"|"private" cache hint
---@field _meta? table

---A CallToolResult.
---@class mcp.CallResult: mcp.Result
---@field content mcp.Content[]
---@field structuredContent? table
---@field isError? boolean
---@field [string] any

---@class mcp.Resource
---@field uri string
---@field name string
---@field title? string
---@field description? string
---@field mimeType? string
---@field [string] any

---@class mcp.ResourceTemplate
---@field uriTemplate string
---@field name string
---@field title? string
---@field description? string
---@field mimeType? string
---@field [string] any

---@class mcp.ResourceContents
---@field uri string
---@field mimeType? string
---@field text? string
---@field blob? string base64
---@field _meta? table

---A ReadResourceResult.
---@class mcp.ReadResult: mcp.Result
---@field contents mcp.ResourceContents[]

---@class mcp.PromptArgumentInfo
---@field name string
---@field title? string
---@field description? string
---@field required? boolean

---A prompt as a server lists it.
---@class mcp.Prompt
---@field name string
---@field title? string
---@field description? string
---@field arguments? mcp.PromptArgumentInfo[]
---@field [string] any

---@class mcp.PromptMessage
---@field role "user"|"assistant"
---@field content mcp.Content

---A GetPromptResult.
---@class mcp.PromptResult: mcp.Result
---@field description? string
---@field messages mcp.PromptMessage[]

---A completion/complete result's completion.
---@class mcp.Completion
---@field values string[]
---@field total? integer
---@field hasMore? boolean

---@class mcp.CompleteRef
---@field type "ref/prompt"|"ref/resource"
---@field name? string the prompt (ref/prompt)
---@field uri? string the resource template (ref/resource)

---@class mcp.Root
---@field uri string a file:// URI
---@field name? string

-----------------------------------------------------------------------------
-- Clients: mcp.connect
-----------------------------------------------------------------------------

---OAuth for a url connection (the default: authorize with OAuth when the
---server answers 401, tokens kept under ~/.luagent/credentials/mcp/). The
---camelCase spellings of these keys are accepted too.
---@class mcp.OAuthOptions
---@field client_id? string a pre-registered client
---@field client_secret? string
---@field client_issuer? string the issuer the pre-registered client belongs to
---@field client_id_metadata_url? string a Client ID Metadata Document
---@field redirect_url? string
---@field scopes? string[]|string scopes to ask for when the server names none (its challenge and resource metadata)
---@field store? boolean false keeps tokens in memory only
---@field grant? "client_credentials"|"jwt_bearer" an unattended grant (default: the browser flow)
---@field private_key_pem? string private_key_jwt client authentication
---@field signing_algorithm? string for private_key_pem (default ES256)
---@field assertion? string jwt_bearer with the workload's own JWT
---@field idp? mcp.IdentityProvider jwt_bearer through an identity provider (ID-JAG)
---@field dpop? boolean DPoP-bound tokens (RFC 9449)

---@class mcp.IdentityProvider
---@field token_endpoint string
---@field client_id string
---@field client_secret? string
---@field id_token string

---Elicitation, sampling and roots callbacks run as tasks and may wait.
---@class mcp.ConnectOptions
---@field name? string shown in logs and traces (default: the command or URL)
---@field command? string a stdio server's program (no shell); this or url
---@field args? string[]
---@field env? table<string, string> added to the inherited environment; MCP_ACCESS_TOKEN and MCP_OAUTH_TOKEN_FILE also set a url connection's token
---@field inherit_env? "minimal"|string[] which of luagent's variables the server inherits besides env: the MCP SDKs' short list (HOME, PATH, ...), or only these (default: all but luagent's own keys, such as OPENAI_API_KEY)
---@field cwd? string
---@field url? string a Streamable HTTP endpoint (an old HTTP+SSE one is found by the fallback)
---@field headers? table<string, string> sent with every HTTP request
---@field oauth? mcp.OAuthOptions|false false: never authorize
---@field on_auth_url? fun(url: string): string the browser step: return the URL the browser was sent back to (mcp.auth_redirect for servers that approve without a person)
---@field protocol? "auto"|"legacy"|"modern" auto probes server/discover (the era found is remembered)
---@field timeout? number seconds of inactivity per request (progress extends it up to 10x)
---@field startup_timeout? number seconds to start and negotiate
---@field probe_timeout? number seconds the server/discover probe waits before falling back to legacy
---@field max_message? integer largest message, in bytes
---@field log_level? string ask the server for log messages at this level and above
---@field on_elicit? fun(params: table): table answers elicitation/create: return {action = "accept"|"decline"|"cancel", content = {...}}
---@field on_sample? fun(params: table): table answers sampling/createMessage: return {role =, content =, model =, stopReason =}
---@field roots? mcp.Root[]|fun(): mcp.Root[] answers roots/list

---What the server said about itself.
---@class mcp.ConnInfo
---@field name string the server's name
---@field version string
---@field title? string
---@field era "legacy"|"modern"
---@field protocol_version string
---@field instructions? string
---@field capabilities table the server's capabilities (protocol JSON)
---@field supported_versions? string[] the versions a modern server lists

---A progress or task-status update of a call.
---@class mcp.Progress
---@field progress? number
---@field total? number
---@field message? string
---@field status? string a task's status, for task updates

---@class mcp.CallOptions
---@field timeout? number seconds of inactivity for this call
---@field task? boolean run as an MCP task, followed to completion
---@field progress? fun(p: mcp.Progress) each update, run as a task

---@alias mcp.ConnEvent "tools_changed"|"prompts_changed"|"resources_changed"|"resource_updated"|"log"

---A connection to one MCP server (mcp.connect, or hub:server(name)).
---A dead server fails its calls with its exit status and last stderr lines
---and is restarted, with backoff, on the next call.
---@class mcp.Conn
local Conn = {}

---Every tool (all pages).
---@return mcp.Tool[]
function Conn:tools() end

---Calls a tool. Arguments are checked against its input schema first. A
---tool that reports an error returns a result with isError = true; a
---failed request raises a luagent.Error. A call whose answer was lost after
---it was sent (a broken stream, the server died) is never sent again unless
---the tool is readOnlyHint or idempotentHint: it raises kind
---"unknown_outcome" (it may have run: check before retrying).
---@param name string
---@param args? table named arguments
---@param opts? mcp.CallOptions
---@return mcp.CallResult
function Conn:call(name, args, opts) end

---@return mcp.Resource[]
function Conn:resources() end

---@return mcp.ResourceTemplate[]
function Conn:templates() end

---@return mcp.Prompt[]
function Conn:prompts() end

---@param uri string
---@return mcp.ReadResult
function Conn:read(uri) end

---@param name string
---@param args? table<string, string>
---@return mcp.PromptResult
function Conn:prompt(name, args) end

---Asks the server to complete an argument.
---@param ref mcp.CompleteRef
---@param argument {name: string, value: string}
---@param context? table<string, string> the other arguments' values
---@return mcp.Completion
function Conn:complete(ref, argument, context) end

---@param uri string
function Conn:subscribe(uri) end

---@param uri string
function Conn:unsubscribe(uri) end

---Sets the server's log level (logging/setLevel).
---@param level? "debug"|"info"|"notice"|"warning"|"error"|"critical"|"alert"|"emergency"
function Conn:log_level(level) end

---Sends any request the API does not cover and returns its result.
---@param method string
---@param params? table
---@return any
function Conn:request(method, params) end

---A skill the server publishes (the skills extension), as it lists it.
---@class mcp.Skill
---@field name string the skill's name (its front matter's)
---@field uri string its SKILL.md's URI
---@field description string
---@field frontmatter table the listing's copy of SKILL.md's front matter
---@field resources {uri: string, digest: string, size: integer}[]|"dynamic" its files (SKILL.md included), or "dynamic" when the server lists none

---The server's skills (skills/list). Reads no skill file.
---@return mcp.Skill[] skills
---@return string[] problems the entries left out, and why, one line each
function Conn:skills() end

---Loads a skill: reads its SKILL.md and verifies it against the listing
---(size, sha256 digest, then the front matter field by field). Refused,
---it returns nil and the error: kind "integrity" when the content failed
---its check.
---@param name string the skill's name, or its SKILL.md's URI
---@return string? body SKILL.md after its front matter
---@return string[]|luagent.Error files_or_err its other files (relative to its folder), or why it was refused
function Conn:load_skill(name) end

---Reads a file of a loaded skill (one its listing names, verified the
---same way; any file of its folder when its resources are "dynamic").
---@param name string the skill's name, or its SKILL.md's URI
---@param path string the file's path relative to the skill's folder, or its URI
---@return string? content the text (a blob's bytes)
---@return string|luagent.Error mime_or_err its MIME type, or why it was not read
function Conn:read_skill_file(name, path) end

---@return mcp.ConnInfo
function Conn:info() end

---Runs `fn(params, conn)` as a task for each such notification. A "log"
---handler asks modern servers for every level until log_level narrows it.
---@param event mcp.ConnEvent
---@param fn fun(params: table, conn: mcp.Conn)
function Conn:on(event, fn) end

---Closes the connection (the process shuts down in the background). A
---hub's connection stays open until hub:close().
function Conn:close() end

-----------------------------------------------------------------------------
-- The catalog's live servers: mcp.hub
-----------------------------------------------------------------------------

---An entry of config.json (its camelCase names: stdlib/doc/catalog.md).
---@class mcp.ServerEntry
---@field command? string
---@field args? string[]
---@field cwd? string
---@field env? table<string, string|{param: string}|{fromEnv: string}|{value: string}>
---@field inheritEnv? "minimal"|string[] which of luagent's variables the server inherits besides env (default: all but luagent's own keys)
---@field url? string
---@field headers? table<string, string>
---@field oauth? {clientId?: string, clientSecret?: string, clientIdMetadataUrl?: string, scopes?: string[]}
---@field enabled? boolean
---@field startupTimeoutSeconds? number
---@field requestTimeoutSeconds? number
---@field protocol? "auto"|"legacy"|"modern"
---@field roots? boolean|string[] let the server list roots: true = the working folder, or these folders (relative ones the working folder's, ~ expanded); default false
---@field sampling? boolean let the server sample through an agent's model (under its policy) or on_sample
---@field logLevel? string
---@field startup? "eager"|"lazy" lazy: not started until one of its tools is called (its cached tools are offered meanwhile; with no cache yet it starts to learn them)
---@field maxConcurrentCalls? integer

---@class mcp.HubOptions
---@field path? string a catalog file (default: ~/.luagent/config.json)
---@field servers? table<string, mcp.ServerEntry> entries instead of a file
---@field params? table<string, string> values of {param = NAME} env references (the command line's --set wins)
---@field wait? boolean return after the servers settled (default: the catalog's mcpInitStrategy; scripts wait, the REPL does not)
---@field start? string[] start only these servers (default: every enabled one); the others are not spawned until hub:start names them
---@field cache? boolean offer each server's tools from the cache of its last successful start while it starts (Home/cache/servers/): wait skips those servers, a call to one of their tools waits for its server alone; "startup": "lazy" entries with a cache start at their first call (agents' and ask's hubs use it)
---@field dir? string the folder the servers whose entry has no cwd run in, and the root of those with "roots": true (default: the working folder)
---@field on_elicit? fun(params: table, server: string, tag: any): table answers every server's elicitation requests (server: the one asking; tag: the a:ask_fresh run's tag that caused it, when known)
---@field on_sample? fun(params: table, server: string, tag: any): table answers every server's sampling requests (server: the one asking; tag: as for on_elicit)

---One server's state in a hub.
---@class mcp.ServerStatus
---@field name string
---@field status "disabled"|"connecting"|"ready"|"needs_auth"|"failed"|"stopped"
---@field tools integer
---@field error? luagent.Error why it failed
---@field stderr? string[] the last lines it wrote
---@field era? "legacy"|"modern" (ready)
---@field server_name? string the name the server gives itself (ready)
---@field instructions? string (ready)

---A hub tool: the server's tool with `name` the qualified name.
---@class mcp.HubTool: mcp.Tool
---@field name string server__tool
---@field server string
---@field tool string the server's own name of the tool
---@field schema_hash string

---@class mcp.SearchOptions
---@field server? string only this server's tools
---@field limit? integer

---@class mcp.HubCallOptions: mcp.CallOptions
---@field schema_hash? string refuse the call when the tool's schema or behaviour hints (readOnlyHint, destructiveHint, ...) changed since it was listed

---A list item of hub:resources/templates/prompts, with its server.
---@class mcp.HubItem
---@field server string
---@field [string] any

---The live connections of a catalog's enabled servers: started
---progressively, one merged tool list (server__tool), ranked search,
---restarts and reauthorization.
---@class mcp.Hub
local Hub = {}

---Waits until no server is connecting; returns hub:status().
---@return mcp.ServerStatus[]
function Hub:wait() end

---@return mcp.ServerStatus[]
function Hub:status() end

---Runs `fn(state)` as a task for each change; "status" hears each
---server's status now, then every change.
---@param event "status"|"tools"
---@param fn fun(state: mcp.ServerStatus)
function Hub:on(event, fn) end

---Every ready server's tools, sorted by qualified name; partial is true
---while a server is still connecting (more tools may come).
---@return mcp.HubTool[] tools
---@return boolean partial
function Hub:tools() end

---Tools ranked for a query (BM25 over names, titles, descriptions and
---argument names; "readFile" finds read_file); an empty query lists them
---by name.
---@param query string
---@param opts? mcp.SearchOptions
---@return mcp.HubTool[] tools
---@return boolean partial
function Hub:search(query, opts) end

---Calls a tool by its qualified name.
---@param name string server__tool
---@param args? table
---@param opts? mcp.HubCallOptions
---@return mcp.CallResult
function Hub:call(name, args, opts) end

---@param server? string|{server: string} one server's (default: all)
---@return mcp.HubItem[]
function Hub:resources(server) end

---@param server? string|{server: string}
---@return mcp.HubItem[]
function Hub:templates(server) end

---@param server? string|{server: string}
---@return mcp.HubItem[]
function Hub:prompts(server) end

---@param server string
---@param uri string
---@return mcp.ReadResult
function Hub:read(server, uri) end

---@param server string
---@param name string
---@param args? table<string, string>
---@return mcp.PromptResult
function Hub:prompt(server, name, args) end

---The OAuth login in a browser for that server, then a restart.
---@param name string
function Hub:reauthorize(name) end

---The server's connection while it is ready (raises otherwise). The hub
---owns it: conn:close() leaves it open.
---@param name string
---@return mcp.Conn
function Hub:server(name) end

---Each ready server's instructions.
---@return table<string, string>
function Hub:instructions() end

---A ready server's skill, by its qualified name.
---@class mcp.HubSkill: mcp.Skill
---@field name string SERVER__NAME (what load_skill takes)
---@field server string
---@field skill string the skill's own name

---The ready servers' skills, listed when each connected (no file read).
---@return mcp.HubSkill[]
function Hub:skills() end

---conn:load_skill for a skill by its qualified name.
---@param name string SERVER__NAME
---@return string? body
---@return string[]|luagent.Error files_or_err
function Hub:load_skill(name) end

---conn:read_skill_file for a skill by its qualified name.
---@param name string SERVER__NAME
---@param path string
---@return string? content
---@return string|luagent.Error mime_or_err
function Hub:read_skill_file(name, path) end

---Starts these servers (default: every enabled one) that are not started
---yet, and waits for them as mcp.hub does.
---@param names? string[]
function Hub:start(names) end

---@param name string
function Hub:restart(name) end

---Re-reads the catalog file (or takes a new servers table) and restarts
---only what changed.
---@param servers? table<string, mcp.ServerEntry>
function Hub:reload(servers) end

---Stops every server (in the background).
function Hub:close() end

-----------------------------------------------------------------------------
-- The saved catalog: mcp.catalog
-----------------------------------------------------------------------------

---An entry as read back: env names only, never values; header values are
---masked.
---@class mcp.CatalogEntry
---@field name string
---@field enabled boolean
---@field transport "stdio"|"http"
---@field command? string
---@field args? string[]
---@field cwd? string
---@field envKeys? string[]
---@field url? string
---@field headers? table<string, string>
---@field startupTimeoutSeconds? number
---@field requestTimeoutSeconds? number
---@field protocol? string
---@field logLevel? string
---@field roots boolean|string[] true = the working folder, or the folders as written
---@field sampling boolean

---config.json, read and edited. Every edit is one locked, atomic write
---that keeps members luagent does not know.
---@class mcp.Catalog
local Catalog = {}

---@return mcp.CatalogEntry[]
function Catalog:list() end

---@param name string
---@return mcp.CatalogEntry|nil
function Catalog:get(name) end

---@param name string
---@param entry mcp.ServerEntry
---@param opts? {force?: boolean} force replaces an entry of the same name
function Catalog:add(name, entry, opts) end

---@param name string
function Catalog:remove(name) end

---@param name string
function Catalog:enable(name) end

---@param name string
function Catalog:disable(name) end

---One entry as config.json holds it, secrets shown as <hidden>.
---@param name string
---@return string|nil text
function Catalog:show(name) end

---An edit shown before it is saved: op "save" (add or replace),
---"remove", "enable" or "disable". Raises the catalog's own error (kind
---invalid) without writing.
---@param edit {op: string, name: string, entry?: mcp.ServerEntry}
---`before` and `after` are the file's text now ("" when there is none)
---and as it will be written; `relaid`: the other entries are written in
---the catalog's layout, unlike the file now.
---@return {op: string, name: string, path: string, changed: boolean, new_file: boolean, relaid: boolean, before: string, after: string, entry?: string, plan: userdata} preview
function Catalog:preview(edit) end

---Writes exactly what preview showed, or nothing (and raises) when the
---file changed since.
---@param preview table cat:preview's result
function Catalog:apply(preview) end

-----------------------------------------------------------------------------
-- Servers: mcp.server
-----------------------------------------------------------------------------

---An input (or output) schema: a full JSON Schema (a table with type,
---properties, $schema, $ref, ... at the top, kept exactly as written), or
---the shorthand: each key a property, its value a type name ("string",
---"number", "integer", "boolean", "object", "array", "null"), "T?" for
---optional, "T[]" for a list of T, or the property's own schema table
---(optional when it has a default or optional = true).
---@alias mcp.Schema table<string, string|table>

---@class mcp.ServerOptions
---@field name string
---@field version? string (default "0.1.0")
---@field title? string
---@field instructions? string
---@field capabilities? {tools?: boolean, resources?: boolean, prompts?: boolean, completions?: boolean} declare a kind the server has none of yet but adds at run time

---What a tool handler may return: a string (one text block), a number or
---boolean (as text), a table (structuredContent, and its JSON as text), a
---list of content blocks, a full result ({content = ..., isError = ...}),
---nil (no content), or `nil, message` (an isError result). An error()
---also becomes an isError result.
---@alias mcp.ToolReturn string|number|boolean|table|mcp.Content[]|mcp.CallResult|nil

---@class mcp.ToolDef
---@field name string
---@field title? string
---@field description? string
---@field input? mcp.Schema arguments, validated before the handler runs (default: no arguments)
---@field output? mcp.Schema structuredContent is checked against it
---@field annotations? mcp.Annotations
---@field _meta? table
---@field task? "optional"|"required" the call may run as a task (both eras) when the client can follow one; "required": only as a task (-32021 modern, -32601 legacy otherwise)
---@field manual_task? boolean the handler starts the task itself (ctx:start_task()), after asking for input as an ordinary call
---@field handler fun(args: table, ctx: mcp.Context): mcp.ToolReturn, string?

---A skill the server publishes (the skills extension): SKILL.md is body
---(front matter made from name and description unless the body has its
---own), the file at file, or dir's SKILL.md with the folder's other files.
---@class mcp.SkillDef
---@field name? string required with a body without front matter; else checked against SKILL.md's
---@field description? string
---@field body? string SKILL.md's text
---@field file? string a SKILL.md to read
---@field dir? string a skill's folder
---@field files? table<string, string> more files, by path in the skill's folder

---What a resource's read may return: a string (text), {text =},
---{blob = base64}, {bytes = raw}, or a list of those (each may name its
---uri, mimeType and _meta); nil is "not found".
---@alias mcp.ReadReturn string|{text?: string, blob?: string, bytes?: string, uri?: string, mimeType?: string, _meta?: table}|table[]|nil

---@class mcp.ResourceDef
---@field uri string
---@field name? string (default: the uri)
---@field title? string
---@field description? string
---@field mimeType? string
---@field read fun(ctx: mcp.Context): mcp.ReadReturn

---A completer: the values for what the user typed so far.
---@alias mcp.Completer fun(value: string, argument: {name: string, value: string, context: table<string, string>}, ctx: mcp.Context): string[]|mcp.Completion

---@class mcp.TemplateDef
---@field uriTemplate string `{var}` matches one path segment ("notes://{id}")
---@field name? string (default: the template)
---@field title? string
---@field description? string
---@field mimeType? string
---@field read fun(vars: table<string, string>, ctx: mcp.Context): mcp.ReadReturn
---@field complete? table<string, mcp.Completer> per variable

---@class mcp.PromptArgument
---@field name string
---@field title? string
---@field description? string
---@field required? boolean
---@field complete? mcp.Completer

---What a prompt's get may return: a string (one user message), a list of
---messages ({role =, content =}, content a string or a block; role
---defaults to "user"), or {description =, messages =}.
---@alias mcp.PromptReturn string|{role?: string, content: string|mcp.Content}[]|{description?: string, messages: table[]}

---@class mcp.PromptDef
---@field name string
---@field title? string
---@field description? string
---@field arguments? mcp.PromptArgument[]
---@field get fun(args: table<string, string>, ctx: mcp.Context): mcp.PromptReturn

---What an HTTP bearer-token validator sees (the Authorization header
---left out; header names in lower case).
---@class mcp.HTTPRequest
---@field method string
---@field path string
---@field remote string
---@field headers table<string, string>

---Returns true (or a table of claims) to accept; false, nil or
---`nil, "reason"` to refuse (401); error{kind = "auth"} refuses too.
---@alias mcp.Validator fun(token: string, req: mcp.HTTPRequest): boolean|table|nil, string?

---@class mcp.AuthOptions
---@field validate? mcp.Validator
---@field authorization_servers? string[] advertised in the RFC 9728 metadata
---@field scopes_supported? string[]
---@field resource? string the endpoint's public URL (behind a proxy)

---An MCP server written in Lua; `return s` from the file `luagent serve`
---runs. Registering or removing at run time notifies clients. Each
---request runs as its own task.
---@class mcp.Server
local Server = {}

---Registers (or replaces) a tool.
---@param def mcp.ToolDef
function Server:tool(def) end

---Registers (or replaces) a resource.
---@param def mcp.ResourceDef
function Server:resource(def) end

---Registers a resource template.
---@param def mcp.TemplateDef
function Server:template(def) end

---Registers (or replaces) a prompt.
---@param def mcp.PromptDef
function Server:prompt(def) end

---The completer for every argument without one of its own.
---@param fn fun(ref: mcp.CompleteRef, argument: {name: string, value: string, context: table<string, string>}, ctx: mcp.Context): string[]|mcp.Completion
function Server:complete(fn) end

---Requires a bearer token on every HTTP request (`serve --http`; stdio
---is not checked).
---@param validator mcp.Validator|mcp.AuthOptions
function Server:auth(validator) end

---@param name string
---@return boolean removed
function Server:remove_tool(name) end

---@param uri string
---@return boolean removed
function Server:remove_resource(uri) end

---@param uriTemplate string
---@return boolean removed
function Server:remove_template(uriTemplate) end

---@param name string
---@return boolean removed
function Server:remove_prompt(name) end

---Publishes (or replaces) a skill: skills/list, skills/get and its files
---as skill://NAME/PATH resources.
---@param def mcp.SkillDef
function Server:skill(def) end

---Publishes every folder of path that holds a SKILL.md.
---@param path string
---@return integer count
function Server:skills_dir(path) end

---@param name string
---@return boolean removed
function Server:remove_skill(name) end

---Tells subscribed clients the resource changed.
---@param uri string
function Server:resource_updated(uri) end

---Tells clients a list changed without changing it here (for lists a
---handler computes).
---@param kind "tools"|"resources"|"prompts"
function Server:list_changed(kind) end

---The client a request came from.
---@class mcp.ClientInfo
---@field name string
---@field version string
---@field era "legacy"|"modern"
---@field protocol_version string
---@field capabilities table the client's capabilities (protocol JSON)

---@class mcp.ElicitRequest
---@field message string what to ask the user
---@field schema? mcp.Schema the form (shorthand or a JSON Schema); requestedSchema is accepted too
---@field requestedSchema? table
---@field key? string the input's key (modern inputRequests)

---@class mcp.ElicitURLRequest
---@field url string
---@field message? string
---@field elicitationId? string
---@field key? string

---The client's answer to an elicitation.
---@class mcp.ElicitResult
---@field action "accept"|"decline"|"cancel"
---@field content? table the form's values (accept)

---sampling/createMessage's params; messages may be one string and a
---message's content a string; maxTokens defaults to 1024.
---@class mcp.SampleRequest
---@field messages string|{role?: string, content: string|mcp.Content}[]
---@field maxTokens? integer
---@field systemPrompt? string
---@field temperature? number
---@field stopSequences? string[]
---@field modelPreferences? table
---@field includeContext? string
---@field key? string
---@field [string] any

---@class mcp.SampleResult
---@field role string
---@field content mcp.Content
---@field model string
---@field stopReason? string

---One input of ctx:ask.
---@class mcp.AskSpec
---@field elicit? mcp.ElicitRequest
---@field elicit_url? mcp.ElicitURLRequest
---@field sample? mcp.SampleRequest
---@field roots? table
---@field method? string the wire form: any request method
---@field params? table

---What a handler gets as ctx. elicit, elicit_url, sample, roots and ask
---read as one call in both eras: a request to the client on a 2025-11-25
---session, an input_required round on 2026-07-28 (the handler then runs
---again on the retry, and the same call returns the answer).
---@class mcp.Context
---@field cancelled boolean the request was cancelled or timed out
---@field client mcp.ClientInfo
---@field era "legacy"|"modern"
---@field park_ttl number seconds a park waits for the client (ctx:park)
local Context = {}

---Sends a progress notification (when the client asked for progress).
---@param done number
---@param total? number
---@param message? string
function Context:progress(done, total, message) end

---Sends a log message (notifications/message).
---@param level "debug"|"info"|"notice"|"warning"|"error"|"critical"|"alert"|"emergency"
---@param data any
---@param logger? string
function Context:log(level, data, logger) end

---The request's _meta.
---@return table
function Context:meta() end

---Stops the handler unless the client declared every named capability
---("sampling", "elicitation", "roots", ...): a modern request is answered
---with the error -32021, a legacy handler gets an error.
---@param ... string
function Context:require_capability(...) end

---Makes a manual_task tool's call a task now, when the client can follow
---one: the call is answered with the task and the handler goes on under
---it. Returns whether the call is a task.
---@return boolean
function Context:start_task() end

---Answers with a JSON-RPC error instead of a result (a task: failed).
---@param code integer
---@param message string
---@param data? any
function Context:fail(code, message, data) end

---Keeps `v` across a 2026-07-28 input round instead of running the handler
---again: answers the call with input_required for `inputs` and returns
---how many seconds `v` is kept (ctx.park_ttl); the client's next round
---gets `v` back from ctx:parked(). Nil and why when it cannot park (a
---legacy call or a task: ask directly; a client without the capability;
---the server's bound of 64). The round is answered: the handler stops at
---its next instruction, so do what must follow before parking.
---@param v any
---@param inputs {key?: string, method: string, params: table}[]
---@return number|nil seconds
---@return string? why
function Context:park(v, inputs) end

---What an earlier round of this call parked, and this round's answers by
---key; nothing for a call that continues nothing.
---@return any v
---@return table<string, table> answers
function Context:parked() end

---Runs `fn(message)` as a task when the request ends unanswered (the
---client cancelled, it timed out, the connection went); the handler is
---stopped by then, so work it started elsewhere stops here.
---@param fn fun(message: string)
function Context:on_cancel(fn) end

---Asks the user for a form's values.
---@param req mcp.ElicitRequest
---@return mcp.ElicitResult
function Context:elicit(req) end

---Sends the user to a URL (URL-mode elicitation).
---@param req mcp.ElicitURLRequest
---@return mcp.ElicitResult
function Context:elicit_url(req) end

---Asks the client's model for a completion.
---@param req mcp.SampleRequest
---@return mcp.SampleResult
function Context:sample(req) end

---The client's roots.
---@param opts? {key?: string}
---@return mcp.Root[]
function Context:roots(opts) end

---Asks for several inputs at once (one round on a modern request) and
---returns the answers by key.
---@param inputs table<string, mcp.AskSpec>
---@return table<string, any>
function Context:ask(inputs) end

-----------------------------------------------------------------------------
-- The module
-----------------------------------------------------------------------------

---@class luagent.mcp
mcp = {}

---Connects to an MCP server and negotiates the era; waits until ready.
---@param opts mcp.ConnectOptions
---@return mcp.Conn
function mcp.connect(opts) end

---The live servers of a catalog (default: ~/.luagent/config.json).
---@param opts? mcp.HubOptions
---@return mcp.Hub
function mcp.hub(opts) end

---The saved catalog (default: ~/.luagent/config.json).
---@param path? string
---@return mcp.Catalog
function mcp.catalog(path) end

---A new MCP server; register tools, resources and prompts on it and
---return it from the file `luagent serve` runs.
---@param opts mcp.ServerOptions
---@return mcp.Server
function mcp.server(opts) end

---The JSON Schema an input shorthand (or nil, or a full schema) stands
---for, as a table: for tools defined outside mcp.server.
---@param input? mcp.Schema
---@return table
function mcp.schema(input) end

---Authorizes with the MCP server at `url` now (OAuth; the browser step
---unless a grant needs none) and stores the credential. Never returns a
---token.
---@param url string
---@param opts? mcp.OAuthOptions|{on_auth_url?: fun(url: string): string}
---@return {issuer: string, scope: string, expires_at?: number}
function mcp.login(url, opts) end

---GETs `url` without following redirects and returns where it redirects:
---the browser step for authorization servers that approve without a
---person (on_auth_url = mcp.auth_redirect).
---@param url string
---@return string
function mcp.auth_redirect(url) end

return mcp
