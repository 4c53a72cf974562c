package main

import (
	"io"

	"github.com/spf13/cobra"
)

// The root's text and `luagent run`: the REPL, -e and scripts.

const rootLong = `A Lua host that speaks the Model Context Protocol: an interactive REPL, a
script runner, a host for MCP servers written in Lua, and an MCP client.

  luagent                      the interactive Lua REPL (type help in it)
  luagent FILE [ARGS...]       run a script; arg[0]=FILE, arg[1..]=ARGS (also: luagent run FILE)
  luagent - [ARGS...]          run the script read from stdin
  luagent -e 'CODE'            run CODE (repeatable) and exit; -i opens the REPL after

luagent COMMAND --help prints the command's own options (luagent serve --help).
Options are accepted before or after the command (luagent -v mcp tools NAME).`

const rootEnv = `  LUAGENT_HOME  replaces ~/.luagent (init.lua, lua/ modules, history, credentials/)
  LUA_PATH      more require patterns (";;" stands for the defaults); require finds luagent's
                built-in modules first, then FILE's own folder (run, serve, --agent FILE; the
                REPL and -e search no folder), ~/.luagent/lua/, LUA_PATH (stdlib/doc/modules.md)
  LUAGENT_LOG   log level: debug, info, warn, error`

const rootFooter = `luagent completion bash|zsh|fish prints a shell completion script.
More: README.md (the tour and the Lua reference) and stdlib/doc/.`

func runCmd(o *options, code *int, stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	c := &cobra.Command{
		Use:   "run FILE [ARGS...]",
		Short: "run a script (FILE - reads stdin); luagent FILE does the same",
		Long: `Runs the Lua script FILE (- reads it from stdin), then exits: with 0, with 1
when the script raised an error (its file:line, message and traceback are
printed on stderr), 130/143 on SIGINT/SIGTERM. The script sees arg[0]=FILE,
arg[1..]=ARGS and arg[-1]=this luagent binary's path; ... holds ARGS too.
~/.luagent/init.lua runs first unless --clean is given. Options go before
FILE: what follows FILE is the script's (luagent run s.lua --help passes
--help to s.lua).

A first line #!/usr/bin/env -S luagent run makes a script executable.

--sandbox runs FILE as untrusted code (stdlib/doc/sandbox.md): no files,
processes, network or environment; json, inspect, task, log, string, table,
math; a time limit, an instruction budget and a memory ceiling. --grant env,
--grant mcp (connect, hub) and --grant agent add those modules.`,
		Example: `  luagent run examples/hello.lua
  echo 'print(1 + 1)' | luagent run -
  luagent run --sandbox examples/json.lua`,
		Annotations: map[string]string{"usage": `usage: luagent [options] run FILE [ARGS...]
       luagent [options] run - [ARGS...]
       luagent [options] run --sandbox [--grant MODULE]... FILE [ARGS...]
       luagent [options] FILE [ARGS...]
`, annArgsEnd: "1"},
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				if len(o.agentFiles) > 0 {
					return agentFileInRun()
				}
				return usagef("run needs a file: luagent run script.lua (or - for stdin)")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			if len(o.agentFiles) > 0 {
				return agentFileInRun()
			}
			if err := checkSandboxFlags(*o); err != nil {
				return usagef("%v", err)
			}
			o.script, o.args = args[0], args[1:]
			*code = runHost(*o, stdin, stdout, stderr)
			return nil
		},
	}
	c.Flags().SetInterspersed(false)
	later(o, c, func() {
		scriptFlags(c.Flags(), o)
		sandboxFlags(c.Flags(), o, "run FILE as untrusted code (stdlib/doc/sandbox.md)")
		// agents-exe's `run --agent-file F` is a chat with the agent in F.
		d := flagDecl{fs: c.Flags()}
		d.list(&o.agentFiles, "agent-file", "FILE", "agents-exe's form: luagent says what to use instead", "--agent-file needs a file: luagent chat --agent agent.json")
		c.Flags().MarkHidden("agent-file")
	})
	return c
}

// agentFileInRun answers agents-exe's `run --agent-file FILE`.
func agentFileInRun() error {
	return usagef("run runs a Lua script; for an agent file use luagent chat --agent FILE (a conversation), luagent ask --agent FILE PROMPT (one answer) or luagent mcp-server --agent-file FILE (serve it)")
}
