-- The scheduler's Lua half (luabind/sched), compiled once per process. Its
-- nested functions are instantiated from Go with their upvalues set, as
-- the VM's CLOSURE instruction would, so no Lua code runs to make them; Go
-- checks the upvalues' order. It is not a module: nothing requires it.
--
-- The trampoline is the base function of every task coroutine. It calls
-- the job's function in a non-tail position (a wait reached by a tail call
-- from a coroutine's base frame would end the coroutine) and loops, so one
-- coroutine serves many short tasks: park hands the results to Go and
-- returns the next job.
--
-- The async wrapper wraps a waiting Go function (raw): the loop resumes the
-- task with (true, results...) or (false, err), and the error must be
-- raised in the task, which only Lua code (check) can do after a resume.
local park, unpack, raw, error
local trampoline = function()
  local fn, args, n = park()
  while true do
    if n == 0 then
      fn, args, n = park(fn())
    else
      fn, args, n = park(fn(unpack(args, 1, n)))
    end
  end
end
local check = function(ok, ...)
  if ok then return ... end
  error((...), 0)
end
local async = function(...) return check(raw(...)) end
