//go:build !linux

package transport

// waitExited cannot wait without reaping here; the caller reaps directly.
func waitExited(int) bool { return false }
