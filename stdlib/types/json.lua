---@meta json
-- json: JSON text <-> Lua values (nulls, [] and {}, exact integers).

---The JSON null sentinel: `json.decode` puts it where the JSON has null
---inside an array or object (a Lua nil would end the array), and
---`json.encode` writes it as null. It compares equal only to itself.
---@class json.Null

---A value JSON can carry: tables are objects or arrays (see `json.array`).
---@alias json.Value nil|boolean|number|string|table|json.Null

---@class luagent.json
---@field null json.Null the JSON null sentinel (`t.x == json.null`)
json = {}

---Encodes `v` as JSON. An unmarked table is an array when its keys are
---exactly 1..n, an object when they are all strings, and `{}` when empty
---(`json.array` makes it `[]`); object keys are written sorted. Integers
---stay exact up to 2^53. Raises `{kind = "invalid", message = ...}` naming
---the path (`$.a[2]`) of what JSON cannot hold: holes, mixed keys, a
---function, a cycle, NaN.
---@param v any
---@param opts? {indent?: string|integer} indent: a string, or 1 to 16 spaces, pretty-prints
---@return string json
function json.encode(v, opts) end

---Decodes JSON text. null inside arrays and objects is `json.null`
---(a top-level null is nil); arrays are marked so they encode as `[]` again.
---Raises `{kind = "invalid", message = "...: expected ',' or '}' at offset 17"}`.
---@param s string
---@return any
function json.decode(s) end

---Encodes `v` indented by two spaces, keys sorted.
---@param v any
---@return string json
function json.pretty(v) end

---Marks `t` (or a new table) as a JSON array: it encodes as `[]` even when
---empty. Returns the table.
---@generic T: table
---@param t? T
---@return T
function json.array(t) end

---Marks `t` (or a new table) as a JSON object: it encodes as `{}` even when
---empty. Returns the table.
---@generic T: table
---@param t? T
---@return T
function json.object(t) end

---Reports whether `v` is a table marked as a JSON array (`json.array`, or
---an array `json.decode` made).
---@param v any
---@return boolean
function json.is_array(v) end

return json
