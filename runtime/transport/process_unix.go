//go:build unix

package transport

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

type signalKind int

const (
	sigTerm          signalKind = iota // polite stop
	sigKill                            // forced stop
	sigKillLeftovers                   // the leader has exited; stop what remains of its group
)

// setProcAttr puts the child in a process group of its own, so signals sent
// to the group reach what it spawned (npx -> node) and a Ctrl-C at the
// user's terminal does not hit the server behind luagent's back; where the
// system has one, the child gets a signal when luagent dies.
func setProcAttr(c *exec.Cmd) {
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setDeathSignal(c.SysProcAttr)
}

// signalGroup signals the process group led by proc. The group id is the
// leader's pid (Setpgid above, or setsid in the child, both make it so).
func signalGroup(proc *os.Process, k signalKind) {
	sig := syscall.SIGTERM
	if k != sigTerm {
		sig = syscall.SIGKILL
	}
	if err := syscall.Kill(-proc.Pid, sig); err != nil && k != sigKillLeftovers {
		// No group (it could not be created?): signal the process itself.
		proc.Signal(sig)
	}
}

// describeExit says how the process ended, for error messages and events.
func describeExit(ps *os.ProcessState) string {
	if ps == nil {
		return "ended (status unknown)"
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return fmt.Sprintf("was killed by signal %d (%v)", int(ws.Signal()), ws.Signal())
	}
	return fmt.Sprintf("exited with status %d", ps.ExitCode())
}
