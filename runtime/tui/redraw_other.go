//go:build !unix

package tui

// redrawPrompt does nothing where there is no SIGWINCH to ask liner for a
// redraw (Windows): output written during a prompt stays above it as is.
func redrawPrompt() {}
