-- The server of the pattern tests (hostile_pattern_test.go): handlers that
-- run Lua string patterns, which must obey --handler-timeout.
local s = mcp.server{ name = "patterns", version = "1.0.0" }

-- Backtracks exponentially, as in reference Lua: only a timeout stops it.
local subject, bomb = ("a"):rep(16), ("a*"):rep(16) .. "b"
local run = {
  find = function() return string.find(subject, bomb) end,
  match = function() return string.match(subject, bomb) end,
  gmatch = function() for _ in subject:gmatch(bomb) do end end,
  gsub = function() return subject:gsub(bomb, "") end,
}
s:tool{ name = "backtrack", input = { builtin = "string" },
  handler = function(args)
    run[args.builtin]()
    return "matched"
  end }

-- Linear: tabs made spaces (gopher-lua's gsub took 9 s for 150 000).
s:tool{ name = "tabs", input = { mib = "integer" },
  handler = function(args)
    local out, n = ("\t"):rep(args.mib * 1024 * 1024):gsub("\t", " ")
    return ("%d replaced, %s"):format(n, out:find("\t") and "a tab left" or "no tab left")
  end }

s:tool{ name = "echo", input = { message = "string" },
  handler = function(args) return args.message end }

return s
