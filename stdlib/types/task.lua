---@meta task
-- task: tasks are coroutines that wait (sleep, MCP calls, model turns)
-- without blocking each other. Every script, handler and callback runs in a
-- task. Waiting is not possible inside pcall, a metamethod, a for-in
-- iterator written in Lua, a sort/gsub callback or a required module's body:
-- it raises "cannot wait inside pcall; use task.pcall".

---A running or finished task. Handles of the same task compare equal.
---@class task.Handle
local Handle = {}

---Waits for the task and returns what its function returned; raises the
---task's error (the value it raised, unchanged) when it failed.
---@return any ...
function Handle:await() end

---Cancels the task (an error of kind "cancelled" with `message`, default
---"task cancelled"). A task waiting on I/O stops at once; a computing one
---at its next instruction.
---@param message? string
function Handle:cancel(message) end

---@return "pending"|"running"|"waiting"|"done"|"failed"|"cancelled"
function Handle:status() end

---Reports whether the task has finished (done, failed or cancelled).
---@return boolean
function Handle:done() end

---The task's number, unique in this Lua state.
---@return integer
function Handle:id() end

---The error value the task failed with, or nothing.
---@return any|nil
function Handle:error() end

---@class luagent.task
task = {}

---Starts `fn(...)` as a new task and returns its handle at once. The task
---is detached: it outlives the task that spawned it, and stops only when
---cancelled through its handle or when the program is interrupted. In a
---trace, what it does is a child of its spawner's span.
---@param fn fun(...: any): any
---@param ... any
---@return task.Handle
function task.spawn(fn, ...) end

---Waits `seconds` (a number >= 0; fractions allowed).
---@param seconds number
function task.sleep(seconds) end

---Lets the other tasks that are ready run, then continues.
function task.yield() end

---`task.await(h)` is `h:await()`.
---@param h task.Handle
---@return any ...
function task.await(h) end

---pcall that may wait: runs `fn(...)` as a child task (cancelled with the
---caller) and returns `true, results...` or `false, err`.
---@param fn fun(...: any): any
---@param ... any
---@return boolean ok
---@return any ...
function task.pcall(fn, ...) end

---Runs `fn(...)` as a child task with a deadline and returns its results;
---past `seconds` the child is cancelled and an error of kind "timeout" is
---raised.
---@param seconds number
---@param fn fun(...: any): any
---@param ... any
---@return any ...
function task.timeout(seconds, fn, ...) end

---Waits for every function (started as a child task) or task handle in
---`list` and returns a list of their first results, in order. The first
---failure cancels the children it started and is raised.
---@param list (fun(): any)[]|task.Handle[]
---@return any[]
function task.all(list) end

---`task.cancel(h, message)` is `h:cancel(message)`.
---@param h task.Handle
---@param message? string
function task.cancel(h, message) end

---The handle of the running task (nil outside any task).
---@return task.Handle|nil
function task.current() end

---Values passed between tasks, first in first out (task.queue).
---@class task.Queue
local Queue = {}

---Adds v (nil too) for a taker; never waits. Returns false when the
---queue holds its max already.
---@param v any
---@return boolean
function Queue:put(v) end

---Returns the first value, waiting for one to be put. A value goes to
---exactly one taker; a cancelled taker is passed over, so none is lost.
---A value that waits is taken at once, even by a cancelled task.
---@return any
function Queue:take() end

---A new queue that holds at most `max` values (default 256); `#q` is how
---many wait.
---@param max? integer
---@return task.Queue
function task.queue(max) end

return task
