---@meta inspect
-- inspect: a readable, deterministic rendering of any Lua value (the REPL
-- prints tables through it). `inspect(v, opts)` is `inspect.inspect(v, opts)`.

---@class inspect.Options
---@field depth? number nesting shown; deeper tables print as {...} (default unlimited)
---@field max? number characters before the output is cut, with a note (default 20000)
---@field width? number line width before a table breaks over lines (default 80)
---@field indent? string one level of indentation (default two spaces)
---@field oneline? boolean never break lines (for logs)

---@class luagent.inspect
---@overload fun(v: any, opts?: inspect.Options): string
---@field defaults inspect.Options the defaults every call starts from (changing them changes later calls)
inspect = {}

---Renders `v`: keys sorted (the array part first), a table that contains
---itself labelled `<table N>`, functions and userdata as `<function N>`.
---@param v any
---@param opts? inspect.Options
---@return string
function inspect.inspect(v, opts) end

---`s` as a double-quoted Lua string literal.
---@param s string
---@return string
function inspect.quote(s) end

return inspect
