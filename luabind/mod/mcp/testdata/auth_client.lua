-- luagent's own HTTP client against servers that need a bearer token (see
-- server_auth_test.go): URL wants TOKEN (--auth-token-env); LUA_URL checks
-- tokens with a Lua validator (servers/auth.lua).

local function connect(url, era, token)
  local o = { url = url, protocol = era, timeout = 10, startup_timeout = 10 }
  if token then o.headers = { Authorization = "Bearer " .. token } end
  return mcp.connect(o)
end

-- refused: the connection failed on a 401.
local function refused(url, era, token)
  local err = expect.error(function() connect(url, era, token) end)
  if err.kind ~= "auth" and not tostring(err):find("401", 1, true) then
    expect.fail("expected a 401 refusal, got " .. tostring(err))
  end
  expect.falsy(token and tostring(err):find(token, 1, true), "the error repeats the token")
end

for _, era in ipairs({ "modern", "legacy" }) do
  test(era .. ": --auth-token-env accepts the token", function()
    local c = connect(URL, era, TOKEN)
    expect.eq(c:info().era, era)
    expect.eq(c:call("echo", { message = "in" }).content[1].text, "in")
    expect.eq(#c:tools() > 0, true)
    c:close()
  end)

  test(era .. ": --auth-token-env refuses no token and other tokens", function()
    refused(URL, era, nil)
    refused(URL, era, "wrong")
    refused(URL, era, TOKEN .. "x")
    refused(URL, era, TOKEN:sub(1, -2))
  end)

  test(era .. ": a Lua validator decides", function()
    for _, tok in ipairs({ "lua-claims", "lua-true" }) do
      local c = connect(LUA_URL, era, tok)
      expect.eq(c:info().era, era)
      expect.eq(c:call("echo", { message = tok }).content[1].text, tok)
      c:close()
    end
    refused(LUA_URL, era, nil)
    refused(LUA_URL, era, "lua-refused")
    refused(LUA_URL, era, "someone-else")
    -- A validator that raises is the server's failure (500), not a crash.
    expect.error(function() connect(LUA_URL, era, "lua-error") end, "the token check failed")
    local c = connect(LUA_URL, era, "lua-true")
    expect.eq(c:call("echo", { message = "still serving" }).content[1].text, "still serving")
    c:close()
  end)
end
