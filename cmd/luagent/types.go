package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/luagent/luagent/luabind/host"
	"github.com/luagent/luagent/stdlib/types"
)

// writeTypes is `luagent --types DIR`: the embedded type stubs written to
// DIR for lua-language-server, and how to point it at them.
func writeTypes(dir string, stdout, stderr io.Writer) int {
	if _, err := types.Write(dir); err != nil {
		fmt.Fprintf(stderr, "luagent: --types: cannot write the stubs: %v (give a folder you can create and write: luagent --types .luagent/types)\n", err)
		return host.ExitError
	}
	var mods []string
	for _, n := range types.Names() {
		mods = append(mods, strings.TrimSuffix(n, ".lua"))
	}
	fmt.Fprintf(stdout, "luagent: wrote the type stubs of %s to %s\n", strings.Join(mods, ", "), dir)
	fmt.Fprintf(stdout, "point lua-language-server at them: \"workspace\": {\"library\": [%q]} in your project's .luarc.json (%s is one)\n",
		filepath.ToSlash(dir), filepath.Join(dir, types.LuarcExample))
	return host.ExitOK
}
