#!/usr/bin/env -S luagent run
-- The smallest script: arguments, globals every script has, and printing.
--   luagent run examples/hello.lua world
local who = arg[1] or "world"
print("hello, " .. who)
print(inspect({ greeting = "hello", to = who, args = { ... } }))
