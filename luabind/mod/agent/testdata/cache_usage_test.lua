-- Prompt-cache counts in the usage tables Lua sees: a model's response,
-- after_model's, and the transcript's sums.

test("a model's cache counts reach after_model and the transcript", function()
  local n = 0
  local model = function(req)
    n = n + 1
    if n == 1 then
      return { tool_calls = { { name = "noop", arguments = {} } },
        usage = { input_tokens = 2000, output_tokens = 5, cache_read_input_tokens = 0, cache_creation_input_tokens = 1900 } }
    end
    return { text = "done", usage = { input_tokens = 2100, output_tokens = 3, cache_read_input_tokens = 1900, cache_creation_input_tokens = 150 } }
  end
  local after = {}
  local a = agent.new{ model = model, yes = true,
    tools = { noop = { description = "nothing", handler = function() return "ok" end } },
    hooks = { after_model = function(resp) after[#after + 1] = resp.usage end } }
  local text, tr = a:ask("go")
  expect.eq(text, "done")
  expect.eq(after[2].cache_read_input_tokens, 1900)
  expect.eq(after[1].cache_creation_input_tokens, 1900)
  expect.eq(tr.usage.input_tokens, 4100)
  expect.eq(tr.usage.cache_read_input_tokens, 1900)
  expect.eq(tr.usage.cache_creation_input_tokens, 2050)
  expect.eq(tr.turns[2].usage.cache_read_input_tokens, 1900)
end)
