---@meta log
-- log: leveled messages on stderr ("02:13:15 INFO connected to fs"). The
-- level is info unless LUAGENT_LOG (debug, info, warn, error) or log.level
-- says otherwise. Arguments are joined by spaces; tables print through
-- inspect on one line.

---@alias log.Level "debug"|"info"|"warn"|"error"

---@class luagent.log
log = {}

---@param ... any
function log.debug(...) end

---@param ... any
function log.info(...) end

---@param ... any
function log.warn(...) end

---@param ... any
function log.error(...) end

---Sets the level (when given; "warning" is accepted for "warn") and
---returns the level in force.
---@param level? log.Level|"warning"
---@return log.Level
function log.level(level) end

return log
