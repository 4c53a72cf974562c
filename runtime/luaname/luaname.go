// Package luaname knows which words Lua reserves: code mode names tools
// with identifiers, and the REPL completes keywords. gopher-lua's
// dialect is Lua 5.1 plus goto.
package luaname

import "slices"

// Keywords are the reserved words, sorted.
var Keywords = []string{"and", "break", "do", "else", "elseif", "end", "false", "for",
	"function", "goto", "if", "in", "local", "nil", "not", "or", "repeat", "return", "then",
	"true", "until", "while"}

// IsKeyword reports whether s is a reserved word (and so no identifier).
func IsKeyword(s string) bool {
	_, ok := slices.BinarySearch(Keywords, s)
	return ok
}
