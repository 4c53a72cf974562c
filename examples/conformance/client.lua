-- The MCP conformance suite's client, as a luagent script. The judge starts
-- a mock server and runs, for each scenario,
--
--   luagent run examples/conformance/client.lua URL
--
-- with MCP_CONFORMANCE_SCENARIO naming the scenario; the script does what the
-- scenario expects of a client and exits 0 (non-zero fails the scenario).

local url = arg[1]
local scenario = env.get("MCP_CONFORMANCE_SCENARIO", "initialize")
if not url then
  io.stderr:write("usage: luagent run examples/conformance/client.lua URL  (MCP_CONFORMANCE_SCENARIO names the scenario)\n")
  os.exit(2)
end

-- An elicitation answered with the defaults the requested schema gives.
local function with_defaults(p)
  local content = {}
  for name, prop in pairs((p.requestedSchema or {}).properties or {}) do
    if prop.default ~= nil then content[name] = prop.default end
  end
  return { action = "accept", content = content }
end

-- What the judge tells a scenario (client credentials, keys), if anything.
local context = json.decode(env.get("MCP_CONFORMANCE_CONTEXT", "{}"))

-- The OAuth extension scenarios: unattended grants, no browser step.
local grants = {
  -- Client credentials with a secret (client_secret_basic).
  ["auth/client-credentials-basic"] = function()
    return { grant = "client_credentials", client_id = context.client_id, client_secret = context.client_secret }
  end,
  -- Client credentials with private_key_jwt, signed with the given key.
  ["auth/client-credentials-jwt"] = function()
    return { grant = "client_credentials", client_id = context.client_id,
      private_key_pem = context.private_key_pem, signing_algorithm = context.signing_algorithm }
  end,
  -- Enterprise-managed authorization (SEP-990): the IdP's ID token is
  -- exchanged for an ID-JAG, which the MCP authorization server takes as a
  -- jwt-bearer grant.
  ["auth/cross-app-access-complete-flow"] = function()
    return { grant = "jwt_bearer", client_id = context.client_id, client_secret = context.client_secret,
      idp = { token_endpoint = context.idp_token_endpoint, client_id = context.idp_client_id,
        id_token = context.idp_id_token } }
  end,
}
grants["auth/enterprise-managed-authorization"] = grants["auth/cross-app-access-complete-flow"]
-- Workload identity federation (SEP-1933): the platform's JWT is the grant.
grants["auth/wif-jwt-bearer"] = function()
  return { grant = "jwt_bearer", client_id = context.client_id, assertion = context.valid_jwt }
end

-- Scenarios that want DPoP-bound tokens (RFC 9449) with the browser flow.
local dpop = { ["auth/dpop"] = true, ["auth/dpop-nonce"] = true }

local function connect(extra)
  local o = { url = url, name = "conformance-server", timeout = 20, on_elicit = with_defaults }
  if grants[scenario] then
    o.oauth = grants[scenario]()
    o.oauth.store = false
  elseif scenario:match("^auth/") then
    -- The judge's authorization server approves at once: the browser step
    -- is one GET whose redirect carries the code. Nothing is stored.
    o.oauth = { store = false, client_id = context.client_id, client_secret = context.client_secret,
      client_issuer = context.issuer,
      -- The suite's stand-in for where a client publishes its metadata
      -- document (used when the server supports CIMD).
      client_id_metadata_url = "https://conformance-test.local/client-metadata.json",
      dpop = dpop[scenario] }
    o.on_auth_url = function(u) return mcp.auth_redirect(u) end
  end
  for k, v in pairs(extra or {}) do o[k] = v end
  return mcp.connect(o)
end

local scenarios = {}

function scenarios.initialize()
  local c = connect()
  print(c:info().name, #c:tools() .. " tools")
  c:close()
end

function scenarios.tools_call()
  local c = connect()
  local r = c:call("add_numbers", { a = 5, b = 3 })
  print(r.content[1].text)
  c:close()
end

scenarios["elicitation-sep1034-client-defaults"] = function()
  local c = connect()
  for _, t in ipairs(c:tools()) do
    local r = c:call(t.name, {})
    print(t.name, r.content and r.content[1] and r.content[1].text)
  end
  c:close()
end

-- Arguments for a tool from its input schema: defaults where given, else a
-- plain value of the declared type.
local samples = { string = "hello", number = 1, integer = 1, boolean = true }
local function sample_args(schema)
  local args = {}
  for name, prop in pairs((schema or {}).properties or {}) do
    if prop.default ~= nil then
      args[name] = prop.default
    elseif prop.enum then
      args[name] = prop.enum[1]
    elseif prop.type == "object" then
      args[name] = json.object()
    elseif prop.type == "array" then
      args[name] = json.array()
    else
      args[name] = samples[prop.type] or "hello"
    end
  end
  return args
end


-- Every other scenario: list the tools, then make the calls the context
-- names, or else call each tool once.
local function exercise()
  local c = connect()
  local tools = c:tools()
  if context.toolCalls then
    for _, call in ipairs(context.toolCalls) do
      local r = c:call(call.name, call.arguments)
      print(call.name, r.content and r.content[1] and r.content[1].text)
    end
  else
    for _, t in ipairs(tools) do
      local r = c:call(t.name, sample_args(t.inputSchema))
      print(t.name, r.content and r.content[1] and r.content[1].text)
    end
  end
  c:close()
end

-- The client must not fetch a network $ref in a listed schema; listing is
-- the whole exercise (the mock server has no tools/call).
scenarios["json-schema-ref-no-deref"] = function()
  local c = connect()
  c:tools()
  c:close()
end

-- Hand the rich schema back through the echo tool exactly as received.
scenarios["json-schema-2020-12-preservation"] = function()
  local c = connect()
  local schema
  for _, t in ipairs(c:tools()) do
    if t.name == "json_schema_2020_12_tool" then schema = t.inputSchema end
  end
  assert(schema, "json_schema_2020_12_tool not listed")
  c:call("json_schema_echo", { schema = schema })
  c:close()
end

-- The skills extension (SEP-2640): list the server's skills; with load,
-- load each as a model using it would and, when it loads, read its other
-- files. Nothing is read before a skill loads. A skill that fails its
-- checks is refused (written to stderr; the run still succeeds: refusing
-- it is the point) and none of its files is read.
local function skills(load)
  local c = connect()
  local list, problems = c:skills()
  for _, p in ipairs(problems) do io.stderr:write("skill left out: ", p, "\n") end
  for _, s in ipairs(list) do
    print("skill", s.name, s.description)
    if load then
      local body, files = c:load_skill(s.uri)
      if body == nil then
        io.stderr:write("skill refused: ", tostring(files), "\n")
      else
        for _, f in ipairs(files) do
          local text, err = c:read_skill_file(s.uri, f)
          io.stderr:write(text and ("read " .. f .. "\n") or ("file refused: " .. tostring(err) .. "\n"))
        end
      end
    end
  end
  c:close()
end
scenarios["sep-2640-client-no-prefetch"] = function() skills(false) end
for _, check in ipairs({ "digest", "size", "frontmatter" }) do
  scenarios["sep-2640-client-verify-" .. check] = function() skills(true) end
end

local run = scenarios[scenario] or exercise
run()
