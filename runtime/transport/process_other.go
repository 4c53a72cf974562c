//go:build !unix

package transport

import (
	"fmt"
	"os"
	"os/exec"
)

type signalKind int

const (
	sigTerm signalKind = iota
	sigKill
	sigKillLeftovers
)

func setProcAttr(*exec.Cmd) {}

// signalGroup has no gentle form here: without POSIX signals, both steps
// terminate the process (no group: its children are not reached).
func signalGroup(proc *os.Process, k signalKind) {
	if k != sigKillLeftovers {
		proc.Kill()
	}
}

func describeExit(ps *os.ProcessState) string {
	if ps == nil {
		return "ended (status unknown)"
	}
	return fmt.Sprintf("exited with status %d", ps.ExitCode())
}
