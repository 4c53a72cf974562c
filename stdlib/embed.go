// Package stdlib holds luagent's modules written in Lua, embedded in the
// binary. require finds them before any file (luabind/vm's loader), so no
// file on a search path can stand in for one.
package stdlib

import "embed"

// FS holds every *.lua file of this folder, by file name ("inspect.lua").
//
//go:embed *.lua
var FS embed.FS
