//go:build unix && !linux

package transport

import "syscall"

// setDeathSignal: no parent-death signal here; the guard (guard_unix.go)
// ends what luagent leaves behind.
func setDeathSignal(*syscall.SysProcAttr) {}
