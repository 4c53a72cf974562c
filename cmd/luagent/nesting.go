package main

import (
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/luagent/luagent/luabind/host"
)

// maxNesting is how many luagent processes may run one inside another
// (each started by the one before, as an MCP server): a client of a server
// that is itself a client of agents' servers is three or four deep; a
// script or init.lua that starts luagent servers that start themselves
// again is a fork bomb, and stops here.
const maxNesting = 6

// nestingVar counts the luagent processes above this one; each child
// process inherits the count plus one.
const nestingVar = "LUAGENT_DEPTH"

// checkNesting refuses to start beyond maxNesting and passes the count on
// to the processes this one starts.
func checkNesting(stderr io.Writer) (int, bool) {
	depth, _ := strconv.Atoi(os.Getenv(nestingVar))
	if depth >= maxNesting {
		fmt.Fprintf(stderr, "luagent: refusing to start: %d luagent processes already run one inside another (%s=%d); "+
			"a script or init.lua probably starts a luagent server that starts another (serve skips init.lua unless --init)\n",
			depth, nestingVar, depth)
		return host.ExitUsage, false
	}
	os.Setenv(nestingVar, strconv.Itoa(depth+1))
	return 0, true
}
