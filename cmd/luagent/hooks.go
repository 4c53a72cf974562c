package main

import (
	"context"
	"fmt"
	"io"

	ragent "github.com/luagent/luagent/runtime/agent"
	"github.com/luagent/luagent/runtime/render"
)

// endSession fires SessionEnd when ask ends (reason "other", as Claude
// Code's print mode; each hook bounded by its timeout) and shows what its
// hooks said on stderr.
func endSession(a *ragent.Agent, stderr io.Writer, shown func(string) string) {
	for _, n := range a.EndSession(context.Background(), "other").Notes {
		fmt.Fprintln(stderr, "luagent: "+shown(render.OneLine(n, 300)))
	}
}
