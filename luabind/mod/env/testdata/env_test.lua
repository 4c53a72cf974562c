test("get, defaults, has", function()
  expect.eq(env.get("LUAGENT_TEST_SET"), "value")
  expect.eq(env.get("LUAGENT_TEST_UNSET"), nil)
  expect.eq(env.get("LUAGENT_TEST_UNSET", "fallback"), "fallback")
  expect.eq(env.get("LUAGENT_TEST_EMPTY", "fallback"), "fallback")
  expect.truthy(env.has("LUAGENT_TEST_EMPTY"))
  expect.falsy(env.has("LUAGENT_TEST_UNSET"))
end)

test("require names the variable and says what to do", function()
  expect.eq(env.require("LUAGENT_TEST_SET"), "value")
  local err = expect.error(function() env.require("LUAGENT_TEST_UNSET") end,
    "environment variable LUAGENT_TEST_UNSET is not set; export it and run again")
  expect.eq(err.kind, "not_found")
end)

test("names lists names, never values", function()
  local names = env.names()
  local found = false
  for _, n in ipairs(names) do
    if n == "LUAGENT_TEST_SET" then found = true end
    expect.falsy(n:find("="), "a name holds a value: " .. n)
  end
  expect.truthy(found)
end)
