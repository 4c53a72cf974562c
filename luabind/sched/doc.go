// Package sched is the owner loop of a Lua state: one goroutine owns the
// state, Go goroutines do the I/O and post completions to its inbox, and
// script code runs as tasks — coroutines the loop resumes when what they
// wait for is ready. Code reads as straight-line and blocking, yet many
// tasks run at once.
//
// A binding that waits is built with Loop.Async: it starts Go work, yields
// the task, and the loop resumes the task with the result (or raises the
// error in it). gopher-lua cannot yield across pcall, metamethods, Lua
// iterators of for-in, sort/gsub callbacks or a require'd module body
// (LUA.md §1.10; some of these panic the Go process), so before yielding
// the binding checks its Go call stack and otherwise raises
// "cannot wait inside pcall; use task.pcall". Every task starts through a
// trampoline (so a tail-called wait cannot end the coroutine early) and
// every Resume runs under recover.
//
// Each task carries a context: cancelling it (task.cancel, a timeout,
// Ctrl-C) wakes a waiting task with a cancellation error, and stops a
// running one at its next VM instruction.
//
// Only the loop goroutine may touch the state or any Lua value. Other
// goroutines talk to the loop through Post.
package sched
