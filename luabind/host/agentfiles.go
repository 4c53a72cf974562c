package host

import (
	"io/fs"

	agentmod "github.com/luagent/luagent/luabind/mod/agent"
	"github.com/luagent/luagent/stdlib"
)

// The scripts luagent runs for agent files are stdlib chunks, loaded by
// name: what the user gave (a file's text, its name, the files) reaches
// them as arguments, never spliced into Lua source.

// chunk is stdlib's file, which is embedded: a missing one is a build
// mistake.
func chunk(file string) []byte {
	src, err := fs.ReadFile(stdlib.FS, file)
	if err != nil {
		panic("host: stdlib chunk " + file + ": " + err.Error())
	}
	return src
}

// AgentFileScript is the script luagent serve runs for s: s itself, or,
// for an agents-exe JSON agent file, stdlib's agent_file.lua with the
// file's text and name as arg[1] and arg[2] (it returns the agent the file
// describes, which is served).
func AgentFileScript(s Script) Script {
	if !agentmod.IsAgentsExe(s.Name, s.Src) {
		return s
	}
	return Script{Src: chunk("agent_file.lua"), Name: s.Name, Args: []string{string(s.Src), s.Name}, Arg0: s.Arg0}
}

// AgentFilesScript is the script luagent mcp-server --agent-file FILE...
// runs: stdlib's agent_files.lua, whose arg is the files.
func AgentFilesScript(files []string) Script {
	return Script{Src: chunk("agent_files.lua"), Name: "mcp-server", Args: files, Arg0: files[0]}
}
