-- A Lua server for the hub's tests: echo, a tool that adds a tool (tools
-- list_changed), one that changes echo's schema, a call that holds until
-- released, env reading, a resource and a prompt.
local s = mcp.server{ name = "alpha", version = "1.0.0", instructions = "Alpha echoes." }

s:tool{ name = "echo", description = "Echo a message back", input = { message = "string" },
  handler = function(a) return a.message end }

s:tool{ name = "grow", description = "Add the tool extra", handler = function()
  s:tool{ name = "extra", description = "A tool that came later", handler = function() return "extra" end }
  return "grown"
end }

s:tool{ name = "reshape", description = "Give echo a new input schema", handler = function()
  s:tool{ name = "echo", description = "Echo a message back", input = { message = "string", loud = "boolean" },
    handler = function(a) return a.message end }
  return "reshaped"
end }

local released = false
s:tool{ name = "hold", description = "Wait until release is called", handler = function(_, ctx)
  ctx:progress(0, 1, "holding")
  while not released do task.sleep(0.01) end
  released = false
  return "released"
end }
s:tool{ name = "release", handler = function() released = true; return "ok" end }

s:tool{ name = "die", description = "Exit the server process", handler = function()
  io.stderr:write("alpha: dying on purpose\n")
  io.stderr:flush()
  os.exit(3)
end }

s:tool{ name = "env", input = { name = "string" }, handler = function(a) return os.getenv(a.name) or "" end }

s:resource{ uri = "alpha://greeting", name = "greeting", mimeType = "text/plain", read = function() return "hello" end }
s:prompt{ name = "greet", arguments = { { name = "who", required = true } },
  get = function(a) return "Hello, " .. a.who .. "!" end }

return s
