package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/luagent/luagent/luabind/host"

	"github.com/luagent/luagent/runtime/transport/httpserver"
)

// `luagent serve FILE` and `luagent mcp-server --agent-file FILE...`: a
// Lua MCP server (or agents as tools) over stdio or Streamable HTTP.

const (
	groupHTTP   = "options of serve --http:"
	groupLimits = "limits of serve --http (what one client may hold; stdlib/doc/http-server.md):"
)

func serveCmd(o *options, code *int, stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	c := &cobra.Command{
		Use:   "serve FILE [options] [-- ARGS...]",
		Short: "serve the MCP server FILE returns, over stdio or Streamable HTTP (--http); a FILE returning agents serves each agent as a tool",
		Long: `Runs FILE, which must return an MCP server (return mcp.server{...}) or
agents (an agent.new{...} or a list: one tool each, as luagent mcp-server;
an agents-exe JSON agent file is the agent it describes), and serves it:
over stdio by default (the protocol on stdin/stdout, print and logs on
stderr), or over Streamable HTTP with --http. Both protocol eras
(2025-11-25 and 2026-07-28) are answered. ~/.luagent/init.lua does not run
unless --init is given. Options may come before or after FILE; ARGS after
-- reach the script as arg[1..].`,
		Example: `  luagent serve examples/notes.lua
  luagent serve examples/notes.lua --http 8081
  npx @modelcontextprotocol/inspector bin/luagent serve examples/notes.lua`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("serve needs a file: luagent serve server.lua")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			o.serve = true
			o.script, o.args = args[0], args[1:]
			if err := checkServe(o); err != nil {
				return err
			}
			*code = runHost(*o, stdin, stdout, stderr)
			return nil
		},
	}
	later(o, c, func() { serveFlags(c.Flags(), o) })
	return c
}

func mcpServerCmd(o *options, code *int, stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	c := &cobra.Command{
		Use:   "mcp-server --agent-file FILE... [serve options]",
		Short: "serve the files' agents as MCP tools",
		Long: `Serves the agents the files return (agent.new{...}, or a list of them) as
MCP tools, one tool per agent: named after the agent, described by its
description, input {prompt: string, transcript?: boolean}. A call asks the
agent in a fresh conversation and returns its answer; its tool calls arrive
as progress; cancelling the call stops the agent and its running tool call.
A FILE ending in .json (or whose text starts with "{") is an agents-exe
agent file: McpSimpleBinary servers, env "Param" entries required secret
parameters, modelName at modelUrl its model with apiKeyId's key from
luagent --api-keys FILE (default ~/.config/agents-exe/secret-keys).
The same as luagent serve AGENT_FILE, with every serve option (--http,
--workers, ...). Agents' parameters take --set NAME=VALUE,
--set-json NAME=JSON and --params-file FILE (flags win over the file).`,
		Example: `  luagent mcp-server --agent-file examples/agents.lua
  luagent --set timer_seconds=5 mcp-server --agent-file examples/agents.lua --http 8081`,
		Annotations: map[string]string{"usage": "usage: luagent mcp-server --agent-file FILE [--agent-file FILE ...] [serve options]\n"},
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("mcp-server takes its files as --agent-file FILE, not %s: luagent mcp-server --agent-file %s", args[0], args[0])
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			if len(o.agentFiles) == 0 {
				return usagef("mcp-server needs an agent file: luagent mcp-server --agent-file examples/agents.lua")
			}
			// The first file stands for the script (its folder is searched
			// by require); the others come in host.AgentFilesScript.
			o.serve = true
			o.script = o.agentFiles[0]
			if err := checkServe(o); err != nil {
				return err
			}
			*code = runHost(*o, stdin, stdout, stderr)
			return nil
		},
	}
	later(o, c, func() {
		d := flagDecl{fs: c.Flags()}
		d.fn("agent-file", "FILE", "an agent file to serve (repeatable)",
			"--agent-file needs a file: luagent mcp-server --agent-file examples/agents.lua", func(v string) error {
				if _, err := os.Stat(v); err != nil {
					return fmt.Errorf("--agent-file %s: %v", v, unwrapPathError(err))
				}
				o.agentFiles = append(o.agentFiles, v)
				return nil
			})
		serveFlags(c.Flags(), o)
	})
	return c
}

// runHost runs a mode in a Lua host (a variable so that tests can see the
// options a command line gives).
var runHost = runScript

// serveFlags are serve's (and mcp-server's) own.
func serveFlags(fs *pflag.FlagSet, o *options) {
	d := flagDecl{fs: fs}
	d.fn("http", "[PORT|ADDR][/PATH]", "serve over HTTP instead of stdio (default 127.0.0.1:8080/mcp; a bare PORT is 127.0.0.1:PORT)", "", func(v string) error {
		addr, err := httpAddr(v)
		if err != nil {
			return err
		}
		o.http = addr
		return nil
	})
	fs.Lookup("http").NoOptDefVal = defaultHTTP
	d.fn("handler-timeout", "SECONDS", "stop a request's handler after this long (default 60)",
		"--handler-timeout needs seconds: luagent serve --handler-timeout 30 server.lua", func(v string) error {
			secs, err := strconv.ParseFloat(v, 64)
			if err != nil || secs <= 0 {
				return fmt.Errorf("--handler-timeout must be a number of seconds > 0, not %q", v)
			}
			o.handlerTO = time.Duration(secs * float64(time.Second))
			return nil
		})
	sandboxFlags(fs, o, "run FILE as untrusted code: mcp.server but no files, processes, network or environment; limits per request (stdlib/doc/sandbox.md)")

	h := flagDecl{fs: fs, group: groupHTTP}
	h.list(&o.allowOrigin, "allow-origin", "ORIGIN", "accept browser requests from ORIGIN too",
		"--allow-origin needs an origin: --allow-origin https://app.example.com")
	h.fn("auth-token-env", "NAME", "require Authorization: Bearer <the value of $NAME>",
		"--auth-token-env needs the name of an environment variable: --auth-token-env MCP_TOKEN", func(v string) error {
			if strings.ContainsAny(v, "= ") {
				return fmt.Errorf("--auth-token-env needs the name of an environment variable: --auth-token-env MCP_TOKEN")
			}
			o.authEnv = v
			return nil
		})
	h.fn("auth-server", "URL", "an authorization server to advertise (repeatable)",
		"--auth-server needs a URL: --auth-server https://auth.example.com", func(v string) error {
			if err := httpserver.CheckServerURL(v); err != nil {
				return fmt.Errorf("--auth-server: %v", err)
			}
			o.authServers = append(o.authServers, v)
			return nil
		})
	h.fn("allow-host", "NAME", "accept Host NAME too (a proxy in front of a loopback server)",
		"--allow-host needs a host name: --allow-host mcp.internal", func(v string) error {
			if strings.ContainsAny(v, "/: ") {
				return fmt.Errorf("--allow-host needs a host name: --allow-host mcp.internal")
			}
			o.allowHost = append(o.allowHost, v)
			return nil
		})
	workers := fmt.Sprintf("--workers needs a number of Lua states from 1 to %d: --workers 2", host.MaxWorkers)
	h.fn("workers", "N", "run N Lua states of the script (default 1)", workers, func(v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > host.MaxWorkers {
			return fmt.Errorf("%s", workers)
		}
		o.workers = n
		return nil
	})
	h.fn("grace", "SECONDS", "time requests in flight get to finish on SIGTERM (default 5)", "--grace needs seconds > 0: --grace 10", func(v string) error {
		secs, err := strconv.ParseFloat(v, 64)
		if err != nil || secs <= 0 {
			return fmt.Errorf("--grace needs seconds > 0: --grace 10")
		}
		o.grace = time.Duration(secs * float64(time.Second))
		return nil
	})
	h.str(&o.tlsCert, "tls-cert", "FILE", "serve HTTPS (and HTTP/2) with this PEM certificate (and --tls-key)",
		"--tls-cert needs a PEM certificate file: --tls-cert cert.pem --tls-key key.pem")
	h.str(&o.tlsKey, "tls-key", "FILE", "the PEM private key of --tls-cert",
		"--tls-key needs a PEM private key file: --tls-cert cert.pem --tls-key key.pem")

	l := flagDecl{fs: fs, group: groupLimits}
	for _, f := range limitFlags {
		name := strings.TrimPrefix(f.name, "--")
		l.fn(name, f.want, f.usage, fmt.Sprintf("%s needs %s: %s %s", f.name, f.want, f.name, example(f.want)), func(v string) error {
			if err := f.set(&o.limits, v); err != nil {
				return fmt.Errorf("%s %s: %v (e.g. %s %s)", f.name, v, err, f.name, example(f.want))
			}
			return nil
		})
	}
}

// sandboxFlags are run's and serve's --sandbox and --grant.
func sandboxFlags(fs *pflag.FlagSet, o *options, usage string) {
	d := flagDecl{fs: fs}
	d.boolean(&o.sandbox, "sandbox", usage)
	d.fn("grant", "MODULE", "with --sandbox: also give env, mcp (connect, hub) or agent",
		"--grant needs a module: --sandbox --grant "+host.Grants[0], func(v string) error {
			if err := host.CheckGrants([]string{v}); err != nil {
				return fmt.Errorf("--grant: %v", err)
			}
			o.grants = append(o.grants, v)
			return nil
		})
}

// checkServe checks the serve options that go together.
func checkServe(o *options) error {
	if err := checkSandboxFlags(*o); err != nil {
		return usagef("%v", err)
	}
	switch {
	case len(o.allowOrigin) > 0 && o.http == "":
		return usagef("--allow-origin is for HTTP: add --http")
	case (len(o.allowHost) > 0 || o.workers > 1 || o.grace > 0) && o.http == "":
		return usagef("--allow-host, --workers and --grace are for HTTP: add --http (over stdio one client has one server)")
	case (o.authEnv != "" || len(o.authServers) > 0) && o.http == "":
		return usagef("--auth-token-env and --auth-server are for HTTP: add --http (over stdio, pass credentials in the environment)")
	case (o.limits != httpserver.Limits{} || o.tlsCert != "" || o.tlsKey != "") && o.http == "":
		return usagef("the connection limits and --tls-cert/--tls-key are for HTTP: add --http")
	case (o.tlsCert == "") != (o.tlsKey == ""):
		return usagef("--tls-cert and --tls-key go together: --tls-cert cert.pem --tls-key key.pem")
	}
	return nil
}
