-- A Lua server for the hub's cache tests: what it lists depends on
-- $VARIANT, so one catalog entry (same command, args and env names) can
-- change its tools between two starts. "a": echo and gone; "b": echo with
-- a new input schema, and no gone. Both have a resource and a prompt.
local variant = os.getenv("VARIANT") or "a"
local s = mcp.server{ name = "cached", version = variant == "a" and "1.0.0" or "2.0.0",
  instructions = "Cached echoes (" .. variant .. ")." }

if variant == "a" then
  s:tool{ name = "echo", description = "Echo a message back", input = { message = "string" },
    handler = function(a) return a.message end }
  s:tool{ name = "gone", description = "A tool the next version drops", handler = function() return "here" end }
else
  s:tool{ name = "echo", description = "Echo a message back", input = { message = "string", loud = "boolean" },
    handler = function(a) return a.message end }
end
s:tool{ name = "same", description = "A tool every version has", handler = function() return "same " .. variant end }
s:resource{ uri = "cached://note", name = "note", mimeType = "text/plain", read = function() return "note " .. variant end }
s:prompt{ name = "hello", arguments = { { name = "who", required = true } },
  get = function(a) return "Hello, " .. a.who .. "!" end }

return s
