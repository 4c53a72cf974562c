// Package sched is the loop of a Lua state: Go goroutines do the I/O and
// post completions to its inbox, and script code runs as tasks —
// coroutines the loop resumes when what they wait for is ready. Code reads
// as straight-line and blocking, yet many tasks run at once.
//
// One goroutine at a time runs the state: normally the one that called
// Run. Everything else — a connection's reader, a timer, a completion —
// posts a function to the loop's inbox (Post) and goes on: it never runs
// Lua and never waits for it, so a handler that computes for seconds
// delays no ping, cancellation or reply (DESIGN.md, "I/O never waits for
// Lua"). The one exception is RunHere, for a goroutine that exists only to
// serve one request and wait for its answer (an HTTP request's): when the
// state is idle it runs that request's handler itself, sparing a hand-over
// to Run's goroutine and back.
//
// Go code on another goroutine that calls Lua and waits for the answer (an
// agent's tool handler or policy, a client callback, an authorization
// check, a chat command) uses Loop.Call, the one such bridge: it runs the
// function as a task, reads its results on the loop, and says in one way
// how the call ended (cancelled, timed out, the loop closed, a Lua error).
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
// Only the goroutine running the state may touch it or any Lua value;
// other code talks to the loop through Post.
package sched
