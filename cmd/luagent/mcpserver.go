package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/luagent/luagent/luabind/host"
	"github.com/luagent/luagent/runtime/catalog"
)

// parseMCPServer reads `luagent mcp-server --agent-file FILE ...
// [serve options]`: the agents the files return served as MCP tools, as
// `luagent serve AGENT_FILE` serves one file's.
func parseMCPServer(o options, rest []string, stdout, stderr io.Writer) (options, int, bool) {
	var serveArgs []string
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case a == "-h" || a == "--help":
			return o, printUsage(stdout, mcpServerUsage), false
		case a == "--agent-file" || strings.HasPrefix(a, "--agent-file="):
			v, ok := optValue(rest, &i, "--agent-file")
			if !ok {
				fmt.Fprintln(stderr, "luagent: --agent-file needs a file: luagent mcp-server --agent-file examples/agents.lua")
				return o, host.ExitUsage, false
			}
			if _, err := os.Stat(v); err != nil {
				fmt.Fprintf(stderr, "luagent: --agent-file %s: %v\n", v, unwrapPathError(err))
				return o, host.ExitUsage, false
			}
			o.agentFiles = append(o.agentFiles, v)
		case isParamFlag(a):
			if !paramFlag(&o, rest, &i, stderr) {
				return o, host.ExitUsage, false
			}
		default:
			serveArgs = append(serveArgs, a)
		}
	}
	if len(o.agentFiles) == 0 {
		fmt.Fprintln(stderr, "luagent: mcp-server needs an agent file: luagent mcp-server --agent-file examples/agents.lua")
		return o, host.ExitUsage, false
	}
	o.serve = true
	// The first file stands for the script (its folder is searched by
	// require); the others come in host.AgentFilesScript.
	return parseServe(o, append(serveArgs, "--", o.agentFiles[0]), stdout, stderr)
}

// isParamFlag says whether a is --set, --set-json or --params-file (with
// its value or =VALUE), the parameter options paramFlag reads.
func isParamFlag(a string) bool {
	for _, f := range []string{"--set", "--set-json", "--params-file"} {
		if a == f || strings.HasPrefix(a, f+"=") {
			return true
		}
	}
	return false
}

// paramFlag reads the parameter option at argv[*i] (isParamFlag) into o,
// saying why on stderr when it is malformed. luagent's own options and
// mcp-server's share it.
func paramFlag(o *options, argv []string, i *int, stderr io.Writer) bool {
	a := argv[*i]
	switch {
	case a == "--set-json" || strings.HasPrefix(a, "--set-json="):
		return setJSON(o, argv, i, stderr)
	case a == "--params-file" || strings.HasPrefix(a, "--params-file="):
		v, ok := optValue(argv, i, "--params-file")
		if !ok {
			fmt.Fprintln(stderr, "luagent: --params-file needs a file: luagent --params-file params.json run script.lua")
			return false
		}
		o.paramFiles = append(o.paramFiles, v)
		return true
	}
	v, ok := optValue(argv, i, "--set")
	if !ok {
		fmt.Fprintln(stderr, "luagent: --set needs NAME=VALUE: luagent --set github_token=... run script.lua")
		return false
	}
	k, val, err := catalog.ParseSet(v)
	if err != nil {
		fmt.Fprintf(stderr, "luagent: %v\n", err)
		return false
	}
	o.sets[k] = val
	delete(o.setsJSON, k)
	return true
}

// setJSON reads --set-json NAME=JSON: the value must be JSON, and agents
// take it as such (a binding's value, a typed parameter).
func setJSON(o *options, argv []string, i *int, stderr io.Writer) bool {
	v, ok := optValue(argv, i, "--set-json")
	if !ok {
		fmt.Fprintln(stderr, `luagent: --set-json needs NAME=JSON: luagent --set-json repos='["a","b"]' serve agents.lua`)
		return false
	}
	k, val, err := catalog.ParseSet(v)
	if err == nil && !json.Valid([]byte(val)) {
		// Never the value: it may be a secret.
		err = fmt.Errorf("--set-json %s: the value is not JSON (quote a string: --set-json %s='\"text\"')", k, k)
	}
	if err != nil {
		fmt.Fprintf(stderr, "luagent: %v\n", strings.Replace(err.Error(), "--set takes", "--set-json takes", 1))
		return false
	}
	o.sets[k] = val
	if o.setsJSON == nil {
		o.setsJSON = map[string]bool{}
	}
	o.setsJSON[k] = true
	return true
}

// paramsJSON names the parameters whose values are JSON text: --set-json's
// and a JSON params file's members that are not strings (unless --set
// gave the name a plain value).
func (o *options) paramsJSON(params catalog.Params) map[string]bool {
	out := map[string]bool{}
	for _, f := range o.paramFiles {
		data, err := os.ReadFile(f)
		if t := bytes.TrimSpace(data); err != nil || len(t) == 0 || t[0] != '{' {
			continue
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(data, &m) != nil {
			continue
		}
		for k, v := range m {
			if len(v) > 0 {
				out[k] = v[0] != '"'
			}
		}
	}
	for k := range o.sets {
		out[k] = o.setsJSON[k]
	}
	for k, j := range out {
		if _, ok := params[k]; !ok || !j {
			delete(out, k)
		}
	}
	return out
}

const mcpServerUsage = `luagent mcp-server --agent-file FILE [--agent-file FILE ...] [serve options]

Serves the agents the files return (agent.new{...}, or a list of them) as
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
--set-json NAME=JSON and --params-file FILE (flags win over the file).

  luagent mcp-server --agent-file examples/agents.lua
  luagent --set gh_token=... mcp-server --agent-file agents.lua --http 8081
`
