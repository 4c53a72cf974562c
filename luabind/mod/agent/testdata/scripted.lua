-- scripted(turns) is a Lua model answering turns[i] on its i-th call (then
-- "done") and recording each request it got, for the agent tests.
return function(turns)
  local seen = {}
  return function(req)
    seen[#seen + 1] = req
    return turns[#seen] or { text = "done" }
  end, seen
end
