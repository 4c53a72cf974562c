//go:build unix

package host

import (
	"os"
	"os/signal"
	"syscall"
)

// warmSignals starts the runtime's signal thread in the background. A
// process's first signal.Notify waits for that thread (about a millisecond
// on this project's VM); Run and Serve install their SIGINT/SIGTERM
// handlers later, before any user code runs, and then need not wait.
// SIGWINCH is ignored by default, so catching it for a moment changes
// nothing.
func warmSignals() {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGWINCH)
	signal.Stop(c)
}
