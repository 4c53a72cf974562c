-- Lua string patterns over 1 MB subjects, for luagent against reference
-- Lua 5.1 (scripts/bench/BENCHMARKS.md, "Lua string patterns"). Runs under both:
--   lua5.1 scripts/bench/patterns.lua       luagent run scripts/bench/patterns.lua
-- Prints one line per case: its name and the seconds of CPU one run of it
-- takes (the best of `reps`). scripts/bench-patterns.sh interleaves the two.
local MB = 1024 * 1024
local reps = tonumber(arg and arg[1]) or 5

local words = ("lorem ipsum\tdolor  sit amet,   key=value x=1\n"):rep(MB / 48)
local tabs = ("a\tb\tc\td\t"):rep(MB / 8)
local plain = ("a"):rep(MB) .. "needle"
local padded = "   " .. ("word "):rep(MB / 5) .. "   "

local cases = {
  { "gsub a tab", function() local r, n = tabs:gsub("\t", " ") assert(n == MB / 2) end },
  { "gsub %s+", function() local r, n = words:gsub("%s+", " ") assert(n > 0) end },
  { "gsub (%w+)=(%w+)", function() local r, n = words:gsub("(%w+)=(%w+)", "%2=%1") assert(n == 2 * math.floor(MB / 48)) end },
  { "gsub function", function() local r, n = words:gsub("%a+", function(w) return nil end) assert(n > 0) end },
  { "find literal at end", function() assert(plain:find("needle", 1, true) == MB + 1) end },
  { "find pattern at end", function() assert(plain:find("ne+dle$") == MB + 1) end },
  { "match ^%s*(.-)%s*$", function() assert(#padded:match("^%s*(.-)%s*$") == #padded - 7) end },
  { "gmatch %a+", function() local n = 0 for w in words:gmatch("%a+") do n = n + 1 end assert(n > 0) end },
}

for _, c in ipairs(cases) do
  local best = math.huge
  for _ = 1, reps do
    local t0 = os.clock()
    c[2]()
    local dt = os.clock() - t0
    if dt < best then best = dt end
  end
  print(("%s\t%.6f"):format(c[1], best))
end
