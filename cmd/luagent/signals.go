package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/luagent/luagent/luabind/host"
)

// endOnSignal makes SIGINT and SIGTERM end luagent as exit does (its
// servers first: one still starting at once, the others with their grace),
// with 130 or 143, until stop is called: for the commands that run no Lua
// host and so have no signal handling of their own (luagent mcp ...).
func endOnSignal(stderr io.Writer) (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			code, name := host.ExitInterrupted, "SIGINT"
			if sig == syscall.SIGTERM {
				code, name = host.ExitTerminated, "SIGTERM"
			}
			fmt.Fprintf(stderr, "luagent: interrupted by %s\n", name)
			exit(code)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}
