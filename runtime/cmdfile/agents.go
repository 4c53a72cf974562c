package cmdfile

import (
	"fmt"
	"sort"
	"strings"

	"github.com/luagent/luagent/runtime/errs"
)

// Agent is one agent file.
type Agent struct {
	// Name is the front matter's name (else the file's name); the main
	// agent gets a tool of that name (slugged).
	Name, Description string
	// Model is the front matter's model in luagent's spelling (ModelSpec;
	// "": the main agent's). Claude Code's aliases sonnet, opus and haiku
	// are the main agent's model too.
	Model string
	// System is the body: the agent's system prompt.
	System string
	// Tools are the front matter's tools as written (nil: every tool of
	// its servers); Servers its servers (nil: the main agent's catalog).
	Tools, Servers []string
	// Source is Project or User; Path the file's.
	Source, Path string
	// Lua is a NAME.lua file returning agent.new{...}.
	Lua bool
}

// AgentSet is the agents found, each name once.
type AgentSet struct {
	// Agents are sorted by name; a project's hides the user's of the same
	// name.
	Agents   []*Agent
	Problems []string
	Notes    []string
}

// ParseAgent reads an agent file's bytes: front matter (name,
// description, tools, model, servers) and the system prompt. An error of
// kind invalid names the file in one line.
func ParseAgent(path string, doc []byte) (*Agent, error) {
	if len(doc) > maxFile {
		return nil, errs.Errorf(errs.Invalid, "agents", "%s: larger than %d KiB", path, maxFile>>10)
	}
	yml, body, has := Split(doc)
	a := &Agent{Path: path, System: strings.TrimSpace(string(body))}
	if !has {
		return nil, errs.Errorf(errs.Invalid, "agents", "%s: an agent file begins with front matter (---, name: and description:, ---); fix the file", path)
	}
	fm, _, err := parseMeta(yml)
	if err != nil {
		return nil, errs.Errorf(errs.Invalid, "agents", "%s: %v; fix the file (the other agents still load)", path, err)
	}
	bad := func(err error) (*Agent, error) {
		return nil, errs.Errorf(errs.Invalid, "agents", "%s: %v; fix the file", path, err)
	}
	if a.Name, err = text("name", fm.Name, " "); err != nil {
		return bad(err)
	}
	if a.Description, err = text("description", fm.Description, " "); err != nil {
		return bad(err)
	}
	m, err := text("model", fm.Model, " ")
	if err != nil {
		return bad(err)
	}
	switch strings.TrimSpace(m) {
	case "sonnet", "opus", "haiku":
		m = ""
	}
	a.Model = ModelSpec(m)
	if a.Tools, err = list("tools", fm.Tools); err != nil {
		return bad(err)
	}
	if fm.Tools != nil && a.Tools == nil {
		a.Tools = []string{} // tools: "" is none
	}
	if a.Servers, err = list("servers", fm.Servers); err != nil {
		return bad(err)
	}
	if a.Name = strings.TrimSpace(a.Name); a.Name != "" && !name().MatchString(a.Name) {
		return bad(fmt.Errorf("name %q: a name is letters, digits, _ . - (at most 64)", a.Name))
	}
	return a, nil
}

// MCPTools maps the front matter's tools to luagent's tool names: MCP
// tools (mcp__server__tool, or server__tool) are server__tool, a whole
// server (mcp__server) server__*. Claude Code's own tools (Read, Bash,
// ...) have no luagent tool: they are in Other.
func (a *Agent) MCPTools() (names, other []string) {
	for _, t := range a.Tools {
		if i := strings.IndexByte(t, '('); i >= 0 {
			t = t[:i] // Bash(git:*): the tool's name
		}
		rest, isMCP := strings.CutPrefix(t, "mcp__")
		switch {
		case isMCP && !strings.Contains(rest, "__"):
			names = append(names, rest+"__*")
		case isMCP:
			names = append(names, rest)
		case strings.Contains(t, "__"):
			names = append(names, t)
		default:
			other = append(other, t)
		}
	}
	return names, other
}

// LoadAgents reads the agent files: the project's first, so that a
// project's agent wins over the user's of the same name. Files are read
// from the folders' top level only. A file that cannot be read or parsed
// is one line in Problems; the others still load. In a project not
// trusted, its .lua files are skipped (one line in Notes).
func LoadAgents(o Options) *AgentSet {
	s := &AgentSet{}
	seen := map[string]bool{}
	skipped, skippedDir := 0, ""
	for _, d := range o.dirs(AgentsFolder) {
		for _, f := range walk(d.dir, d.source, false, &s.Problems) {
			var a *Agent
			if f.ext == ".lua" {
				if d.source == Project && !o.Trusted {
					skipped++
					skippedDir = d.dir
					continue
				}
				a = &Agent{Name: f.name, Path: f.path, Lua: true}
			} else {
				doc, err := readFile(f.path)
				if err != nil {
					s.Problems = append(s.Problems, oneLine(err.Error()))
					continue
				}
				if a, err = ParseAgent(f.path, doc); err != nil {
					s.Problems = append(s.Problems, oneLine(errs.Message(err)))
					continue
				}
				if a.Name == "" {
					a.Name = f.name
				}
			}
			a.Source = d.source
			if seen[a.Name] {
				continue
			}
			seen[a.Name] = true
			s.Agents = append(s.Agents, a)
		}
	}
	if skipped > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%d .lua agent file(s) in %s not run: the project folder is not trusted (luagent trust %s)", skipped, skippedDir, o.ProjectDir))
	}
	sort.SliceStable(s.Agents, func(i, j int) bool { return s.Agents[i].Name < s.Agents[j].Name })
	return s
}
