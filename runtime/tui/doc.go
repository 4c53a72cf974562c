// Package tui is luagent's terminal: the chat view over a runtime/chat
// session (turns shown by runtime/render, approvals, forms for the
// servers' elicitations, /meta's confirmations), the /mcp manager
// (runtime/tui/manager, on bubbletea) and the line editor with
// prompt-aware output that the REPL shares. It holds no Lua: the
// session's Lua side comes in as a chat.Lua (luabind/chatlua), and
// luabind/host runs the Lua loop meanwhile.
package tui
