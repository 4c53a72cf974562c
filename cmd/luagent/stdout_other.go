//go:build !unix

package main

import "io"

// ownStdout leaves stdout as it is here: only luagent's own writes are
// kept off it (print goes to stderr).
func ownStdout(stdout, stderr io.Writer) io.Writer { return stdout }
