// Package sched is the loop of a Lua state: Go goroutines do the I/O and
// post completions to its inbox, and script code runs as tasks —
// coroutines the loop resumes when what they wait for is ready. Code reads
// as straight-line and blocking, yet many tasks run at once.
//
// Exactly one goroutine at a time runs the state: it holds the loop's
// baton. Run's goroutine takes it when there is work and nobody holds it;
// a goroutine that posts while Run is waiting takes it itself and runs the
// loop on the spot (so the reader of a connection resumes the task its
// reply was for without waking another goroutine).
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
// Only the baton holder may touch the state or any Lua value; other code
// talks to the loop through Post.
package sched
