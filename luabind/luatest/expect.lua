-- expect: assertions for *_test.lua files. Each failure raises an error
-- whose message says what was expected and what came instead.
local inspect = require("inspect")
local M = {}

local function show(v)
  if type(v) == "string" then return inspect.quote(v) end
  return inspect(v, { oneline = true, max = 2000 })
end

local function deep_eq(a, b, seen)
  if a == b then return true end
  if type(a) ~= "table" or type(b) ~= "table" then
    return type(a) == "number" and type(b) == "number" and a ~= a and b ~= b
  end
  seen = seen or {}
  if seen[a] == b then return true end
  seen[a] = b
  for k, v in pairs(a) do
    if not deep_eq(v, rawget(b, k), seen) then return false end
  end
  for k in pairs(b) do
    if rawget(a, k) == nil then return false end
  end
  return true
end
M.deep_eq = deep_eq

local function fail(msg, level) error(msg, (level or 1) + 2) end

function M.fail(msg) fail(msg or "failed", 0) end

function M.eq(got, want, msg)
  if not deep_eq(got, want) then
    fail((msg and (msg .. ": ") or "") .. "expected " .. show(want) .. ", got " .. show(got))
  end
  return got
end

function M.ne(got, other, msg)
  if deep_eq(got, other) then
    fail((msg and (msg .. ": ") or "") .. "expected anything but " .. show(other))
  end
  return got
end

function M.truthy(v, msg)
  if not v then fail((msg and (msg .. ": ") or "") .. "expected a true value, got " .. show(v)) end
  return v
end

function M.falsy(v, msg)
  if v then fail((msg and (msg .. ": ") or "") .. "expected false or nil, got " .. show(v)) end
  return v
end

-- match(s, needle [, plain]): s contains needle (a Lua pattern unless plain).
function M.match(s, needle, plain)
  if type(s) ~= "string" then s = tostring(s) end
  if not s:find(needle, 1, plain) then
    fail("expected " .. show(s) .. " to contain " .. show(needle))
  end
  return s
end

-- error(fn [, needle]): fn (run as a child task, so it may wait) must raise;
-- when needle is given the error's text must contain it (plainly). Returns
-- the error value.
function M.error(fn, needle)
  local ok, err = task.pcall(fn)
  if ok then fail("expected an error" .. (needle and (" containing " .. show(needle)) or "") .. ", got none") end
  if needle and not tostring(err):find(needle, 1, true) then
    fail("expected an error containing " .. show(needle) .. ", got " .. show(tostring(err)))
  end
  return err
end

return M
