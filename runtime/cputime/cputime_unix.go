//go:build unix

// Package cputime reads the CPU time this process has used, for the
// benchmarks' per-call CPU figures.
package cputime

import (
	"syscall"
	"time"
)

// Self is this process's user and system CPU time so far.
func Self() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
