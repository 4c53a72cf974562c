-- A server guarded by a Lua token validator, for server_auth_test.go.
-- Tokens: "lua-claims" and "lua-true" are accepted (the first after a
-- wait), "lua-refused" is refused with a reason, "lua-error" raises,
-- "lua-string" returns a wrong type; anything else is refused.
local s = mcp.server{ name = "auth-lua", version = "1.0.0" }

local checked = 0
s:auth{
  authorization_servers = { "https://auth.example.com" },
  scopes_supported = { "mcp:tools" },
  validate = function(token, req)
    checked = checked + 1
    if req.headers.authorization then error("the Authorization header reached the validator") end
    if req.path ~= "/mcp" or req.method == "" or not req.remote:find("127.0.0.1", 1, true) then
      error("unexpected request " .. req.method .. " " .. req.path .. " from " .. req.remote)
    end
    if token == "lua-claims" then
      task.sleep(0.01) -- a validator may wait (introspection, a database)
      return { sub = "alice", scope = "mcp:tools" }
    elseif token == "lua-true" then
      return true
    elseif token == "lua-refused" then
      return nil, "expired \"yesterday\""
    elseif token == "lua-error" then
      error("validator broke on " .. token)
    elseif token == "lua-string" then
      return "yes"
    end
    return false
  end,
}

s:tool{ name = "echo", input = { message = "string" }, handler = function(a) return a.message end }
s:tool{ name = "checked", handler = function() return tostring(checked) end }

return s
