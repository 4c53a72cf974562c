//go:build !unix

package transport

// EnableGuard: there is no guard here (no process groups to kill).
func EnableGuard(string) {}

// RunGuardIfAsked returns at once: no guard here.
func RunGuardIfAsked() {}

func guardReady()     {}
func guardWatch(int)  {}
func guardForget(int) {}
