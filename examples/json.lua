-- JSON: nulls, empty arrays and objects, and big integers survive the trip.
--   luagent run examples/json.lua
local doc = json.decode([[
{"name": "notes", "tags": [], "meta": {}, "ids": [1, null, 3], "size": 9007199254740992}
]])
print(inspect(doc))
assert(doc.ids[2] == json.null and #doc.ids == 3)
assert(doc.size == 2^53)

doc.tags[#doc.tags + 1] = "lua"
doc.created = os.date("!%Y-%m-%d", 0)
print(json.encode(doc))
print(json.pretty({ list = json.array(), empty = {}, nested = { a = { b = { c = true } } } }))

-- Errors are values with a kind, and say where and what.
local ok, err = pcall(json.decode, '{"a": 1,}')
print(ok, err.kind, tostring(err))
ok, err = pcall(json.encode, { 0 / 0 })
print(ok, err.kind, tostring(err))
