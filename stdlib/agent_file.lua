-- The chunk `luagent serve FILE.json` runs for an agents-exe JSON agent
-- file (luabind/host's AgentFileScript): arg[1] and arg[2] are the file's
-- text and name, values handed to Lua and never spliced into its source.
-- It returns the agent the file describes, which serve serves.
local text, name = arg[1], arg[2]
return require("agent").agents_exe_file(text, name)
