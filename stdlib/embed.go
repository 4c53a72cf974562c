// Package stdlib holds luagent's modules written in Lua, embedded in the
// binary. require finds them after the user's own paths, so a user module of
// the same name takes precedence.
package stdlib

import "embed"

// FS holds every *.lua file of this folder, by file name ("inspect.lua").
//
//go:embed *.lua
var FS embed.FS
