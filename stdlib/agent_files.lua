-- The chunk `luagent mcp-server --agent-file FILE ...` runs (luabind/host's
-- AgentFilesScript): arg holds the agent files (Lua, or agents-exe JSON);
-- it returns one MCP server of every agent they return.
return require("agent").serve_files(arg)
