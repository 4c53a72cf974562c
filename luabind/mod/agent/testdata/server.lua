-- A Lua MCP server for the agent module's tests: a read-only echo and a
-- mutating write (it keeps what it wrote; notes reads them back).
local s = mcp.server{ name = "notes", version = "1.0.0", instructions = "Echo repeats; write stores a note." }

s:tool{ name = "echo", description = "Echo a message back", input = { message = "string" },
  annotations = { readOnlyHint = true }, handler = function(a) return "echo: " .. a.message end }

local notes = {}
s:tool{ name = "write", description = "Write a note", input = { text = "string" },
  handler = function(a) notes[#notes + 1] = a.text; return "wrote " .. a.text end }

s:tool{ name = "notes", description = "List the notes written", annotations = { readOnlyHint = true },
  handler = function() return table.concat(notes, ",") end }

-- summarize asks the client's model (MCP sampling) while it runs.
s:tool{ name = "summarize", description = "Summarize a text with the client's model", input = { text = "string" },
  annotations = { readOnlyHint = true }, handler = function(a, ctx)
    local r = ctx:sample{ messages = "summarize: " .. a.text, maxTokens = 20, systemPrompt = "one line" }
    return "model said: " .. r.content.text
  end }

return s
