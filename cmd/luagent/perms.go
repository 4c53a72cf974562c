package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/pflag"

	"github.com/luagent/luagent/luabind/host"
	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/project"
	"github.com/luagent/luagent/runtime/visible"
)

// permFlags are --allow and --deny, ask's and chat's.
func permFlags(fs *pflag.FlagSet, verb string, allow, deny *[]string) {
	d := flagDecl{fs: fs}
	d.list(allow, "allow", "PATTERN", `allow the tools PATTERN matches without asking (repeatable): server__tool, server__*, fs__write_file(path:/tmp/*) (stdlib/doc/approval.md "Permission rules")`,
		"--allow needs a pattern: luagent "+verb+" --allow 'fs__read_*'")
	d.list(deny, "deny", "PATTERN", "refuse the tools PATTERN matches, whatever else allows them (repeatable)",
		"--deny needs a pattern: luagent "+verb+" --deny 'fs__write_*'")
}

// permissionSetup reads what the rules of an ask or a chat are made of:
// the user's config.json (cfg), the project file, --allow and --deny. A
// bad pattern on the command line is a usage error; a bad project file an
// error. Without a question to ask (ask, a piped chat), a project file
// whose allow rules or hooks are ignored says so in one line.
func permissionSetup(cfg *catalog.Config, allow, deny []string, stderr io.Writer, canAsk bool) (*project.Setup, int, bool) {
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "luagent: cannot tell the working folder: %v\n", err)
		return nil, host.ExitError, false
	}
	s, err := project.NewSetup(host.Home(), cwd, cfg, allow, deny)
	if err != nil {
		fmt.Fprintf(stderr, "luagent: %s\n", visible.Text(err.Error()))
		if e, ok := err.(*errs.Error); ok && e.Op == "permissions" && (len(allow) > 0 || len(deny) > 0) {
			return nil, host.ExitUsage, false
		}
		return nil, host.ExitError, false
	}
	if !canAsk || s.Declined() {
		if line := s.Ignored(); line != "" {
			fmt.Fprintf(stderr, "luagent: %s\n", visible.Text(line))
		}
	}
	return s, 0, true
}
