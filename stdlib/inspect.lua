--- inspect: a readable, deterministic rendering of any Lua value.
---
---   inspect({1, 2, {a = 1}})          --> { 1, 2, { a = 1 } }
---   inspect(t, {depth = 2})           -- deeper tables print as {...}
---   inspect(t, {max = 200})           -- cut long output, with a note
---   inspect(t, {oneline = true})      -- never break lines (for logs)
---
--- Keys are sorted (the array part first, then numbers, strings, others), so
--- the same value always prints the same way. A table that contains itself
--- is labelled <table N> where it starts and printed as <table N> where it
--- recurs. Functions and plain userdata print as <function N>/<userdata N>.
local M = {}

local type, tostring, pairs, next, rawget = type, tostring, pairs, next, rawget
local sort, concat = table.sort, table.concat
local format, byte, gsub, rep = string.format, string.byte, string.gsub, string.rep

M.defaults = { depth = math.huge, max = 20000, width = 80, indent = "  " }

local escapes = { ['"'] = '\\"', ['\\'] = '\\\\', ['\n'] = '\\n', ['\r'] = '\\r', ['\t'] = '\\t' }

local function quote(s)
  return '"' .. gsub(s, '[%c"\\]', function(c)
    return escapes[c] or format('\\%03d', byte(c))
  end) .. '"'
end
M.quote = quote

local keywords = {}
for w in ([[and break do else elseif end false for function if in local nil not or
  repeat return then true until while goto]]):gmatch('%a+') do keywords[w] = true end

local function is_identifier(k)
  return type(k) == 'string' and k:match('^[%a_][%w_]*$') ~= nil and not keywords[k]
end

local type_order = { number = 1, string = 2, boolean = 3, table = 4, ['function'] = 5, userdata = 6, thread = 7 }

-- The array part is the run 1..n with no holes (# may count past nils in
-- gopher-lua, which pads its array part).
local function seq_len(t)
  local n = 0
  while rawget(t, n + 1) ~= nil do n = n + 1 end
  return n
end

local function key_less(a, b)
  local ta, tb = type(a), type(b)
  if ta == tb and (ta == 'number' or ta == 'string') then return a < b end
  if ta == tb then return tostring(a) < tostring(b) end
  return (type_order[ta] or 9) < (type_order[tb] or 9)
end

-- Find the tables reached as their own ancestor, so only tables that are
-- part of a cycle get a label. budget[1] counts the tables left to visit:
-- output is cut at max characters, so visiting more than max tables only
-- costs time.
local function find_cycles(v, path, cyclic, depth, limit, budget)
  if type(v) ~= 'table' or depth > limit or budget[1] <= 0 then return end
  if path[v] then cyclic[v] = true; return end
  budget[1] = budget[1] - 1
  path[v] = true
  for k, x in next, v do
    find_cycles(k, path, cyclic, depth + 1, limit, budget)
    find_cycles(x, path, cyclic, depth + 1, limit, budget)
    if budget[1] <= 0 then break end
  end
  path[v] = nil
end

local cut = {} -- raised to stop rendering once the output is over max

local function render(v, opts)
  local out, len = {}, 0
  local ids, next_id = {}, { table = 0, ['function'] = 0, userdata = 0, thread = 0 }
  local cyclic = {}
  find_cycles(v, {}, cyclic, 1, opts.depth + 1, { opts.max })
  local path = {}

  local function id_of(x)
    local id = ids[x]
    if not id then
      local t = type(x)
      next_id[t] = next_id[t] + 1
      id = next_id[t]
      ids[x] = id
    end
    return id
  end

  local function scalar(x)
    local t = type(x)
    if t == 'string' then return quote(x) end
    if t == 'number' or t == 'boolean' or t == 'nil' then return tostring(x) end
    if t == 'userdata' then
      local mt = getmetatable(x)
      if mt ~= nil then return tostring(x) end
    end
    return '<' .. t .. ' ' .. id_of(x) .. '>'
  end

  -- Returns the rendering of x as a list of lines (one line when it fits).
  local function lines_of(x, depth, col)
    if type(x) ~= 'table' then return { scalar(x) } end
    if path[x] then return { '<table ' .. id_of(x) .. '>' } end
    local label = cyclic[x] and ('<table ' .. id_of(x) .. '>') or ''
    if next(x) == nil then return { label .. '{}' } end
    if depth > opts.depth then return { label .. '{...}' } end
    path[x] = true
    local n = seq_len(x)
    local keys = {}
    for k in next, x do
      if not (type(k) == 'number' and k >= 1 and k <= n and k % 1 == 0) then keys[#keys + 1] = k end
    end
    sort(keys, key_less)
    local items, multi, width = {}, false, col + #label + 4
    local function add(prefix, value)
      local ls = lines_of(value, depth + 1, col + #opts.indent + #prefix)
      if #ls > 1 then multi = true end
      ls[1] = prefix .. ls[1]
      items[#items + 1] = ls
      width = width + #ls[1] + 2
      len = len + #ls[1]
      if len > opts.max then error(cut, 0) end
    end
    for i = 1, n do add('', rawget(x, i)) end
    for _, k in ipairs(keys) do
      local prefix = is_identifier(k) and (k .. ' = ') or ('[' .. (lines_of(k, depth + 1, col)[1]) .. '] = ')
      add(prefix, rawget(x, k))
    end
    path[x] = nil
    if not multi and (opts.oneline or width <= opts.width) then
      local parts = {}
      for i, ls in ipairs(items) do parts[i] = ls[1] end
      return { label .. '{ ' .. concat(parts, ', ') .. ' }' }
    end
    local res = { label .. '{' }
    for _, ls in ipairs(items) do
      for j, l in ipairs(ls) do
        res[#res + 1] = opts.indent .. l .. (j == #ls and ',' or '')
      end
    end
    res[#res + 1] = '}'
    return res
  end

  local ok, res = pcall(lines_of, v, 1, 0)
  if ok then return concat(res, opts.oneline and ' ' or '\n') end
  if res ~= cut then error(res, 0) end
  return nil
end

-- stream renders top-down, one item per line (or all on one line with
-- oneline), and stops once max characters are written: the cheap way to show
-- the head of a value too big to lay out.
local function stream(v, opts)
  local out, len, path = {}, 0, {}
  local function emit(s)
    out[#out + 1] = s
    len = len + #s
    if len > opts.max then error(cut, 0) end
  end
  local walk
  local function item(prefix, value, ind, depth, first)
    if opts.oneline then
      if not first then emit(', ') end
      emit(prefix)
      walk(value, '', depth)
    else
      emit(ind .. opts.indent .. prefix)
      walk(value, ind .. opts.indent, depth)
      emit(',\n')
    end
  end
  walk = function(x, ind, depth)
    if type(x) ~= 'table' then emit(type(x) == 'string' and quote(x) or tostring(x)); return end
    if path[x] then emit('<cycle>'); return end
    if next(x) == nil then emit('{}'); return end
    if depth > opts.depth then emit('{...}'); return end
    path[x] = true
    emit(opts.oneline and '{ ' or '{\n')
    local n = seq_len(x)
    for i = 1, n do item('', rawget(x, i), ind, depth + 1, i == 1) end
    local keys = {}
    for k in next, x do
      if not (type(k) == 'number' and k >= 1 and k <= n and k % 1 == 0) then keys[#keys + 1] = k end
    end
    sort(keys, key_less)
    for i, k in ipairs(keys) do
      local prefix = (is_identifier(k) and k or ('[' .. (type(k) == 'string' and quote(k) or tostring(k)) .. ']')) .. ' = '
      item(prefix, rawget(x, k), ind, depth + 1, n == 0 and i == 1)
    end
    path[x] = nil
    emit(opts.oneline and ' }' or ind .. '}')
  end
  pcall(walk, v, '', 1)
  local s = concat(out)
  return s:sub(1, opts.max)
end

--- Render v. opts: depth (nesting shown, default unlimited), max (characters
--- before the output is cut, default 20000), width (line width before a table
--- breaks over lines, default 80), indent (default two spaces), oneline.
function M.inspect(v, opts)
  local o = {}
  for k, d in pairs(M.defaults) do o[k] = d end
  if opts then for k, x in pairs(opts) do o[k] = x end end
  if o.oneline then o.width = math.huge end
  local s = render(v, o)
  if s then return s end
  s = stream(v, o)
  return s .. (o.oneline and ' ' or '\n') .. format('... (output cut at %d characters; inspect(v, {max = math.huge}) shows all)', #s)
end

return setmetatable(M, { __call = function(_, v, opts) return M.inspect(v, opts) end })
