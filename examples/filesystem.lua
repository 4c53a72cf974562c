-- Print a file through an MCP server: the reference filesystem server's
-- read_text_file tool.
--   luagent run examples/filesystem.lua [FILE]    (default: this script)
-- The server is started with npx unless MCP_FS_SERVER names another command
-- (the tests point it at the pinned copy in scripts/peers).
local file = arg[1] or arg[0]
-- The server is allowed the file's folder; it resolves relative paths
-- against that folder, so the call names the file within it.
local dir, base = file:match("^(.*)/([^/]*)$")
dir, base = dir or ".", base or file

local command, args = "npx", { "-y", "@modelcontextprotocol/server-filesystem" }
local custom = env.get("MCP_FS_SERVER")
if custom then
  args = {}
  for word in custom:gmatch("%S+") do args[#args + 1] = word end
  command = table.remove(args, 1)
end
args[#args + 1] = dir

local fs = mcp.connect{ name = "fs", command = command, args = args }
local info = fs:info()
print(("connected to %s %s (%s era, protocol %s)"):format(info.name, info.version, info.era, info.protocol_version))

local result = fs:call("read_text_file", { path = base, head = 5 })
if result.isError then error("read_text_file failed: " .. result.content[1].text) end
print("first lines of " .. file .. ":")
print(result.content[1].text)
fs:close()
