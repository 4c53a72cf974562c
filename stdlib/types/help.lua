---@meta help
-- help: the REPL's help. `help` (or `help()`) prints the overview: the
-- modules and where the docs are; `help(value)` lists what a module or an
-- object (a connection, a hub, an agent) offers.

---@class luagent.help
---@overload fun(value?: any)
---@field overview string the overview text help() prints
help = {}

return help
