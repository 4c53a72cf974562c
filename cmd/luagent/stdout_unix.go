//go:build unix

package main

import (
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// ownStdout is for a mode whose output owns stdout (ask's JSON): when
// stdout is fd 1, it returns a file of its own on what fd 1 was, and
// points fd 1 at stderr. Whatever else writes to fd 1 (Lua's io.write, a
// process os.execute starts) then reaches stderr, and only the writes
// through the file returned reach stdout.
func ownStdout(stdout, stderr io.Writer) io.Writer {
	out, ok := stdout.(*os.File)
	errf, ok2 := stderr.(*os.File)
	if !ok || !ok2 || out.Fd() != 1 {
		return stdout
	}
	fd, err := unix.Dup(1)
	if err != nil {
		return stdout
	}
	syscall.CloseOnExec(fd)
	if err := unix.Dup2(int(errf.Fd()), 1); err != nil {
		unix.Close(fd)
		return stdout
	}
	return os.NewFile(uintptr(fd), "/dev/stdout")
}
