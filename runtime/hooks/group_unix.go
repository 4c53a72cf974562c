//go:build unix

package hooks

import (
	"os/exec"
	"syscall"
)

// inGroup puts the hook's shell in a process group of its own, so a
// timeout kills what it spawned too.
func inGroup(c *exec.Cmd) {
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error {
		if err := syscall.Kill(-c.Process.Pid, syscall.SIGKILL); err != nil {
			return c.Process.Kill()
		}
		return nil
	}
}
