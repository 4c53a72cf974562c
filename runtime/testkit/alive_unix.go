//go:build unix

package testkit

import (
	"errors"
	"syscall"
)

// alive reports whether process pid exists (signal 0 probes it).
func alive(pid int) bool { return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }
