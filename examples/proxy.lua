-- A server that offers another MCP server's tools under a prefix: the
-- upstream is a luagent client connection inside this server.
--   luagent serve examples/proxy.lua [PREFIX] -- UPSTREAM COMMAND...
-- e.g. luagent serve examples/proxy.lua fs -- npx -y @modelcontextprotocol/server-filesystem .
local prefix = arg[1] or "up"
local cmd, cmd_args = nil, {}
for i = 2, #arg do
  if arg[i] ~= "--" then
    if not cmd then cmd = arg[i] else cmd_args[#cmd_args + 1] = arg[i] end
  end
end
if not cmd then
  -- By default, proxy the echo example next to this file.
  local here = arg[0]:match("^(.*)/[^/]*$") or "."
  cmd, cmd_args = arg[-1], { "serve", here .. "/echo.lua" } -- arg[-1]: this luagent binary
end

local upstream = mcp.connect{ name = prefix, command = cmd, args = cmd_args }
local s = mcp.server{ name = "proxy-" .. prefix, version = "1.0.0",
  instructions = ("Tools of %q, prefixed %q."):format(upstream:info().name, prefix .. "_") }

local function expose(tool)
  s:tool{
    name = prefix .. "_" .. tool.name,
    title = tool.title,
    description = tool.description,
    input = tool.inputSchema,          -- a full schema: kept as the upstream wrote it
    annotations = tool.annotations,
    handler = function(args, ctx)
      -- Waiting on the upstream does not block other requests.
      return upstream:call(tool.name, args, {
        progress = function(p) if p.progress then ctx:progress(p.progress, p.total, p.message) end end,
      })
    end,
  }
end

local exposed = {}
local function sync()
  local now = {}
  for _, t in ipairs(upstream:tools()) do
    now[t.name] = true
    expose(t)
  end
  for name in pairs(exposed) do
    if not now[name] then s:remove_tool(prefix .. "_" .. name) end
  end
  exposed = now
end

sync()
upstream:on("tools_changed", sync)
return s
