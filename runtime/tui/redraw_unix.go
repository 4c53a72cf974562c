//go:build unix

package tui

import (
	"os"
	"syscall"
)

// redrawPrompt makes liner redraw its prompt and line below output that
// was written over them: liner repaints on SIGWINCH.
func redrawPrompt() { syscall.Kill(os.Getpid(), syscall.SIGWINCH) }
