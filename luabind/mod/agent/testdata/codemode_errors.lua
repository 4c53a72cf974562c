-- Code mode's failing snippets, with a Lua-function model: the error the
-- next request carries is cut as printed output is, and a snippet that
-- nests too deep is a limit at once. TRACE_BYTES() is the trace's size.

local scripted = require("scripted")

-- the size of everything a request carried
local function size(req)
  local n = 0
  for _, m in ipairs(req.messages) do
    for _, p in ipairs(m.parts or {}) do n = n + #(p.text or "") end
  end
  return n
end

local function tool_result(req, id)
  for _, m in ipairs(req.messages) do
    if m.role == "tool" and m.tool_call_id == id then return m.parts[1].text, m.is_error end
  end
end

test("a snippet's error of 8 MB reaches the model, later requests, the transcript and the trace cut", function()
  for _, code in ipairs{ "error(('E'):rep(8e6))", "error({ message = ('E'):rep(8e6) })", "local s = ('E'):rep(8e6) return s .. nil" } do
    local before = TRACE_BYTES()
    local model, seen = scripted{
      { tool_calls = { { id = "r1", name = "run_lua", arguments = { code = code } } } },
      { tool_calls = { { id = "r2", name = "run_lua", arguments = { code = "return 1" } } } },
      { text = "answered" },
    }
    local a = agent.new{ model = model, code_mode = { output = 4096 } }
    local text, tr = a:ask("go")
    expect.eq(text, "answered")
    local res, is_error = tool_result(seen[2], "r1")
    expect.truthy(is_error)
    if code:find("nil") then
      expect.match(res, "attempt to concatenate", true)
    else
      expect.match(res, "bytes in all, the first", true)
      expect.truthy(#res <= 4096 + 200, #res)
    end
    expect.truthy(size(seen[2]) < 10000, size(seen[2]))
    expect.truthy(size(seen[3]) < 10000, size(seen[3]))
    expect.truthy(#tr.tool_calls[1].error < 5000, #tr.tool_calls[1].error)
    expect.truthy(TRACE_BYTES() - before < 50000, TRACE_BYTES() - before)
  end
end)

test("a snippet nested deeper than Lua allows is a limit error, quickly", function()
  local deep = ("do "):rep(30000) .. ("end "):rep(30000)
  for _, code in ipairs{ deep, "return load(('do '):rep(30000) .. ('end '):rep(30000))" } do
    local model, seen = scripted{
      { tool_calls = { { id = "r1", name = "run_lua", arguments = { code = code } } } },
      { text = "answered" },
    }
    local start = NOW()
    local _, tr = agent.new{ model = model, code_mode = true }:ask("go")
    expect.truthy(NOW() - start < 3, NOW() - start)
    local res, is_error = tool_result(seen[2], "r1")
    expect.truthy(is_error)
    expect.match(res, "chunk has too many syntax levels (the limit is 200", true)
    expect.eq(tr.tool_calls[1].error_kind, "limit")
  end
end)
