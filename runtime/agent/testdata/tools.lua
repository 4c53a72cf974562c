-- A Lua server for the agent's tests: a read-only echo, a mutating
-- write, meet (two calls that finish only when both are running at once),
-- media (every kind of content block) and a resource.
local s = mcp.server{ name = "tools", version = "1.0.0", instructions = "Use echo to repeat things." }

s:tool{ name = "echo", description = "Echo a message back", input = { message = "string" },
  annotations = { readOnlyHint = true }, handler = function(a) return a.message end }

local notes = {}
s:tool{ name = "write", description = "Write a note", input = { text = "string" },
  handler = function(a) notes[#notes + 1] = a.text; return "wrote " .. a.text end }

local here = {}
s:tool{ name = "meet", description = "Return once the other party (a or b) is in its own call too",
  input = { who = "string" }, annotations = { readOnlyHint = true },
  handler = function(a, ctx)
    here[a.who] = true
    ctx:progress(0, 1, a.who .. " is waiting")
    local other = a.who == "a" and "b" or "a"
    for _ = 1, 1000 do -- 10 s at most
      if here[other] then return a.who .. " met " .. other end
      task.sleep(0.01)
    end
    return nil, a.who .. " waited alone"
  end }

s:tool{ name = "media", description = "Content of every kind", annotations = { readOnlyHint = true },
  handler = function()
    return { content = {
      { type = "text", text = "a picture:" },
      { type = "image", data = "iVBORw0KGgo=", mimeType = "image/png" },
      { type = "audio", data = "AAAAAA==", mimeType = "audio/wav" },
      { type = "resource_link", uri = "file:///tmp/notes.txt", name = "notes.txt", mimeType = "text/plain" },
    } }
  end }

s:resource{ uri = "tools://readme", name = "readme", mimeType = "text/plain", read = function() return "the readme text" end }

return s
