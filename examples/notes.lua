-- A small notes server: tools to add and delete notes (deleting asks the
-- user to confirm), each note a resource, a prompt that summarises them.
--   luagent serve examples/notes.lua
local s = mcp.server{ name = "notes", version = "1.0.0",
  instructions = "Keeps short notes. Use add_note to store one; notes are resources notes://<id>.",
  -- No notes (resources) yet, but they come: declare resources from the
  -- start, so clients follow resources/list_changed.
  capabilities = { resources = true } }

local notes, next_id = {}, 1

local function publish(id)
  s:resource{ uri = "notes://" .. id, name = "note " .. id, mimeType = "text/plain",
    read = function() return notes[id] end }
end

s:tool{
  name = "add_note",
  description = "Store a note and return its id",
  input = { text = { type = "string", description = "what to remember" } },
  handler = function(args)
    local id = next_id
    next_id = next_id + 1
    notes[id] = args.text
    publish(id) -- a new resource: clients get resources/list_changed
    return { id = id, uri = "notes://" .. id }
  end,
}

s:tool{
  name = "delete_note",
  description = "Delete a note, after the user confirms",
  input = { id = "integer" },
  annotations = { destructiveHint = true },
  handler = function(args, ctx)
    local text = notes[args.id]
    if not text then return nil, "no note " .. args.id end
    local answer = ctx:elicit{
      message = ("Delete note %d (%q)?"):format(args.id, text),
      schema = { confirm = { type = "boolean", description = "yes to delete" } },
    }
    if answer.action ~= "accept" or not answer.content.confirm then
      return "kept note " .. args.id
    end
    notes[args.id] = nil
    s:remove_resource("notes://" .. args.id)
    return "deleted note " .. args.id
  end,
}

s:tool{
  name = "list_notes",
  annotations = { readOnlyHint = true },
  handler = function()
    local out = {}
    for id, text in pairs(notes) do out[#out + 1] = { id = id, text = text } end
    table.sort(out, function(a, b) return a.id < b.id end)
    return { notes = json.array(out) }
  end,
}

s:prompt{
  name = "summarise",
  description = "Ask the model to summarise the notes",
  arguments = { { name = "style", description = "e.g. bullet points" } },
  get = function(args)
    local lines = {}
    for id, text in pairs(notes) do lines[#lines + 1] = ("%d. %s"):format(id, text) end
    table.sort(lines)
    return ("Summarise these notes%s:\n%s"):format(
      args.style and (" as " .. args.style) or "", table.concat(lines, "\n"))
  end,
}

return s
