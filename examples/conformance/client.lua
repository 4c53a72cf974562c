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

local function connect(extra)
  local o = { url = url, name = "conformance-server", timeout = 20, on_elicit = with_defaults }
  for k, v in pairs(extra or {}) do o[k] = v end
  return mcp.connect(o)
end

local scenarios = {}

function scenarios.initialize()
  local c = connect()
  c:tools()
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

local run = scenarios[scenario]
if not run then
  io.stderr:write("conformance client: unknown scenario " .. scenario .. "\n")
  os.exit(1)
end
run()
