//go:build !linux

package transport

import "os/exec"

// startCmd starts c. Only Linux has a parent-death signal to set up.
func startCmd(c *exec.Cmd) error { return c.Start() }
