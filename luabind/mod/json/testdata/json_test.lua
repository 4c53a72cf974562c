test("round trips keep [], {}, nulls and lengths", function()
  for _, s in ipairs({ "[]", "{}", "[1,null,3]", "[1,null]", '{"a":null}', '{"a":[],"b":{}}', "null", '"x"', "1.5", "true" }) do
    expect.eq(json.encode(json.decode(s)), s, s)
  end
  expect.eq(#json.decode("[1,null,3]"), 3)
  expect.eq(#json.decode("[1,null]"), 2)
  expect.eq(json.decode('{"a":null}').a, json.null)
end)

test("empty tables are objects unless marked", function()
  expect.eq(json.encode({}), "{}")
  expect.eq(json.encode(json.array()), "[]")
  expect.eq(json.encode(json.array({})), "[]")
  expect.eq(json.encode(json.object({ 1, 2 })), '{"1":1,"2":2}')
  expect.truthy(json.is_array(json.decode("[]")))
  expect.falsy(json.is_array({}))
end)

test("integers stay exact to 2^53 and beyond is an error", function()
  expect.eq(json.encode(json.decode("9007199254740992")), "9007199254740992")
  expect.eq(json.encode(2^53), "9007199254740992")
  local err = expect.error(function() json.decode("9007199254740993") end, "beyond 2^53")
  expect.eq(err.kind, "invalid")
end)

test("NaN and infinity are errors naming the place", function()
  expect.error(function() json.encode({ a = { 0 / 0 } }) end, "cannot encode NaN at $.a[1]")
  expect.error(function() json.encode(1 / 0) end, "json.encode")
end)

test("sparse, mixed and cyclic tables are errors", function()
  expect.error(function() json.encode({ [1] = 1, [3] = 3 }) end, "sparse array")
  expect.error(function() json.encode({ 1, x = 2 }) end, "mixes array and object keys")
  local t = {}
  t.t = t
  expect.error(function() json.encode(t) end, "cycle")
  expect.error(function() json.encode({ f = print }) end, "cannot encode a function at $.f")
end)

test("pretty output is indented with sorted keys", function()
  expect.eq(json.pretty({ b = { 1, 2 }, a = {} }), '{\n  "a": {},\n  "b": [\n    1,\n    2\n  ]\n}')
  expect.eq(json.encode({ b = 1, a = 2 }, { indent = 1 }), '{\n "a": 2,\n "b": 1\n}')
end)

test("decode errors say where, with the caller's line", function()
  local err = expect.error(function() json.decode('{"a": 1,}') end, "offset")
  expect.match(tostring(err), "json_test.lua:%d+: json.decode:")
  expect.error(function() json.decode("") end, "json.decode")
  expect.error(function() json.decode("[1, 2") end, "json.decode")
  expect.error(function() json.decode('{"a" 1}') end, "json.decode")
end)

test("strings and unicode", function()
  local s = json.decode('"caf\\u00e9 \\ud83d\\ude00 \\n"')
  expect.eq(s, "café 😀 \n")
  expect.eq(json.encode("tab\there \"q\""), '"tab\\there \\"q\\""')
end)
