---@meta env
-- env: reads the process environment (it never changes it: give a server
-- process its variables through mcp.connect's env option).

---@class luagent.env
env = {}

---The variable's value; `default` (or nil) when it is unset or empty.
---@param name string
---@param default? string
---@return string|nil
function env.get(name, default) end

---Reports whether the variable is set (even to "").
---@param name string
---@return boolean
function env.has(name) end

---The variable's value; raises an error of kind "not_found" ("environment
---variable NAME is not set; export it and run again") when unset or empty.
---@param name string
---@return string
function env.require(name) end

---The names of the variables set, sorted (names only: values may be
---secrets).
---@return string[]
function env.names() end

return env
