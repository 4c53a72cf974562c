//go:build unix

package mcp_test

import (
	"errors"
	"syscall"
)

// processExists probes pid with signal 0 (a zombie still exists).
func processExists(pid int) bool { return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }
