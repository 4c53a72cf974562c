test("scalars", function()
  expect.eq(inspect(1), "1")
  expect.eq(inspect("a\nb\"c"), '"a\\nb\\"c"')
  expect.eq(inspect(nil), "nil")
  expect.eq(inspect(true), "true")
  expect.eq(inspect(json.null), "json.null")
  expect.eq(inspect(1/0), "inf")
end)

test("short tables print on one line, array part first", function()
  expect.eq(inspect({}), "{}")
  expect.eq(inspect({ 1, 2, { a = 1 } }), "{ 1, 2, { a = 1 } }")
  expect.eq(inspect({ b = 2, a = 1, 10, 20 }), "{ 10, 20, a = 1, b = 2 }")
end)

test("keys are sorted: numbers, then strings, then the rest", function()
  expect.eq(inspect({ [10] = "x", z = 1, ["not id"] = 2, [true] = 3, [1.5] = 4 }),
    '{ [1.5] = 4, [10] = "x", ["not id"] = 2, z = 1, [true] = 3 }')
  expect.eq(inspect({ ["end"] = 1 }), '{ ["end"] = 1 }')
end)

test("long tables break over lines with indentation", function()
  local t = { name = "a fairly long name", description = "a description long enough to wrap", list = { 1, 2, 3 } }
  expect.eq(inspect(t), [[
{
  description = "a description long enough to wrap",
  list = { 1, 2, 3 },
  name = "a fairly long name",
}]])
end)

test("cycles are labelled and marked", function()
  local t = { name = "root" }
  t.self = t
  expect.eq(inspect(t), '<table 1>{ name = "root", self = <table 1> }')
  local a, b = {}, {}
  a.b, b.a = b, a
  expect.match(inspect(a), "<table 1>{ b = { a = <table 1> } }", true)
end)

test("a table reached twice without a cycle prints twice, unlabelled", function()
  local shared = { 1 }
  expect.eq(inspect({ x = shared, y = shared }), "{ x = { 1 }, y = { 1 } }")
end)

test("depth limits nesting", function()
  expect.eq(inspect({ a = { b = { c = {} } } }, { depth = 2 }), "{ a = { b = {...} } }")
end)

test("functions and plain userdata get stable names", function()
  local f = function() end
  expect.eq(inspect({ f, f, print }), "{ <function 1>, <function 1>, <function 2> }")
end)

test("values with __tostring use it", function()
  local h = task.spawn(function() end)
  expect.match(inspect({ h }), "{ task %d+ %(pending%) }")
end)

test("long output is cut with a note", function()
  local big = {}
  for i = 1, 5000 do big[i] = "item number " .. i end
  local s = inspect(big, { max = 500 })
  expect.truthy(#s < 700, "cut output is short: " .. #s)
  expect.match(s, "... (output cut at 500 characters; inspect(v, {max = math.huge}) shows all)", true)
  expect.match(s, '"item number 1"', true)
  expect.truthy(#inspect(big, { max = math.huge }) > 50000)
end)

test("oneline never breaks", function()
  local t = { description = "a description long enough to wrap the line", list = { 1, 2, 3 }, more = { a = { b = 1 } } }
  expect.falsy(inspect(t, { oneline = true }):find("\n"))
end)

test("oneline never breaks, even when the output is cut", function()
  local big = {}
  for i = 1, 5000 do big[i] = { n = i, name = "item number " .. i } end
  local s = inspect(big, { oneline = true, max = 300 })
  expect.falsy(s:find("\n"), s)
  expect.truthy(#s < 400, "cut output is short: " .. #s)
  expect.match(s, "{ { n = 1, name = \"item number 1\" }, { n = 2,", true)
  expect.match(s, " ... (output cut at 300 characters", true)
end)
