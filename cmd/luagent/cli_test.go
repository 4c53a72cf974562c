package main

import (
	"io"
	"strings"
)

// parse runs the command line as luagent would, up to the Lua host: it
// returns the options the host would get, the exit code, and whether the
// host would run (false: help, or a usage error on stderr).
func parse(argv []string, stdout, stderr io.Writer) (options, int, bool) {
	if stdout == nil {
		stdout = io.Discard
	}
	if stderr == nil {
		stderr = io.Discard
	}
	var got options
	ran := false
	old := runHost
	runHost = func(o options, _ io.Reader, _, _ io.Writer) int {
		got, ran = o, true
		return 0
	}
	defer func() { runHost = old }()
	code := run(argv, strings.NewReader(""), stdout, stderr)
	return got, code, ran
}

// parseServe is parse of `luagent serve REST...`.
func parseServe(_ options, rest []string, stdout, stderr io.Writer) (options, int, bool) {
	return parse(append([]string{"serve"}, rest...), stdout, stderr)
}
