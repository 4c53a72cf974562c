//go:build !linux

package transport

import "os/exec"

// startCmd starts c and tells the guard its group. Only Linux has a
// parent-death signal to set up.
func startCmd(c *exec.Cmd) error {
	if err := c.Start(); err != nil {
		return err
	}
	guardWatch(c.Process.Pid)
	return nil
}
