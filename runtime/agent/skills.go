package agent

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/llm"
	"github.com/luagent/luagent/runtime/skills"
)

// Skills: the system prompt lists each skill's name and description, and
// two read-only meta-tools load one (its verified SKILL.md body and the
// list of its files) and read its files. Nothing of a skill is read
// before the model asks for it.

// The skill tools' names.
const (
	ToolLoadSkill     = "load_skill"
	ToolReadSkillFile = "read_skill_file"
)

// Bounds of the skills' part of the system prompt.
const (
	maxPromptSkills = 100
	maxSkillDesc    = 300 // runes of one description
)

var skillTools = []llm.Tool{
	{Name: ToolLoadSkill,
		Description: "Load a skill from the list of skills in the system prompt: returns its instructions and the names of its files. Load a skill when the task matches its description, then follow it.",
		Schema:      json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","description":"the skill's name, as listed"}},"required":["name"]}`)},
	{Name: ToolReadSkillFile,
		Description: "Read one file of a skill loaded with load_skill, by its path relative to the skill's folder (as load_skill listed it).",
		Schema:      json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","description":"the skill's name"},"path":{"type":"string","description":"the file's path, e.g. references/FORMS.md"}},"required":["name","path"]}`)},
}

// skillList is Config.Skills' skills of the agent's servers (local ones
// always).
func (a *Agent) skillList() []skills.Info {
	if a.cfg.Skills == nil {
		return nil
	}
	var out []skills.Info
	for _, in := range a.cfg.Skills.List() {
		if in.Server == "" || a.inSubset(in.Server) {
			out = append(out, in)
		}
	}
	return out
}

// addSkillTools offers the skill tools when there are skills.
func (ts *toolset) addSkillTools(list []skills.Info) {
	ts.skills = list
	if len(list) == 0 {
		return
	}
	for _, t := range skillTools {
		if len(list) <= maxPromptSkills {
			t.Schema = withNameEnum(t.Schema, list)
		}
		ts.add(t, entry{kind: KindMeta})
	}
}

// withNameEnum gives a skill tool's name the listed names as its enum, so
// a model (the mock's example arguments too) picks a real one.
func withNameEnum(schema json.RawMessage, list []skills.Info) json.RawMessage {
	var s map[string]any
	if json.Unmarshal(schema, &s) != nil {
		return schema
	}
	names := make([]string, len(list))
	for i, in := range list {
		names[i] = in.Name
	}
	if props, ok := s["properties"].(map[string]any); ok {
		if name, ok := props["name"].(map[string]any); ok {
			name["enum"] = names
		}
	}
	b, err := json.Marshal(s)
	if err != nil {
		return schema
	}
	return b
}

// withSkills appends the skills' list to a system prompt.
func withSkills(system string, list []skills.Info) string {
	if len(list) == 0 {
		return system
	}
	var b strings.Builder
	b.WriteString(system)
	if b.Len() > 0 {
		b.WriteString("\n\n")
	}
	fmt.Fprintf(&b, "## Skills\nThese skills hold instructions for particular tasks. When a task matches a skill's description, load it with %s and follow it; read its files with %s.\n", ToolLoadSkill, ToolReadSkillFile)
	for i, in := range list {
		if i == maxPromptSkills {
			fmt.Fprintf(&b, "- (%d more skills are not listed)\n", len(list)-i)
			break
		}
		desc := strings.Join(strings.Fields(in.Description), " ")
		if r := []rune(desc); len(r) > maxSkillDesc {
			desc = string(r[:maxSkillDesc-1]) + "…"
		}
		fmt.Fprintf(&b, "- %s: %s\n", in.Name, desc)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func isSkillTool(name string) bool { return name == ToolLoadSkill || name == ToolReadSkillFile }

// runSkill runs load_skill or read_skill_file.
func (a *Agent) runSkill(ctx context.Context, tool string, args json.RawMessage) (Result, error) {
	var p struct {
		Name string `json:"name"`
		Path string `json:"path"`
	}
	if err := json.Unmarshal(args, &p); err != nil || p.Name == "" || tool == ToolReadSkillFile && p.Path == "" {
		if tool == ToolReadSkillFile {
			return Result{}, errs.New(errs.Invalid, tool, "give the skill's name and the file's path")
		}
		return Result{}, errs.New(errs.Invalid, tool, "give the skill's name")
	}
	known := false
	for _, in := range a.skillList() {
		known = known || in.Name == p.Name
	}
	if !known {
		return Result{}, errs.Errorf(errs.NotFound, tool, "no skill %q: use a name from the list of skills", p.Name)
	}
	if tool == ToolLoadSkill {
		l, err := a.cfg.Skills.Load(ctx, p.Name)
		if err != nil {
			return Result{}, err
		}
		return TextResult(loadedText(l), false), nil
	}
	f, err := a.cfg.Skills.ReadFile(ctx, p.Name, p.Path)
	if err != nil {
		return Result{}, err
	}
	return fileResult(f), nil
}

// loadedText is what the model gets of a loaded skill.
func loadedText(l *skills.Loaded) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Skill %s is loaded. Its instructions:\n\n%s", l.Name, strings.TrimSpace(l.Body))
	switch {
	case len(l.Files) > 0:
		fmt.Fprintf(&b, "\n\nIts files (read one with %s): %s", ToolReadSkillFile, strings.Join(l.Files, ", "))
	case l.Dynamic:
		fmt.Fprintf(&b, "\n\nIts server lists no files: read those the instructions name with %s.", ToolReadSkillFile)
	}
	return b.String()
}

// fileResult is a skill file as content: text, an image, or a note.
func fileResult(f *skills.File) Result {
	switch {
	case f.Blob == nil:
		return TextResult(f.Text, false)
	case strings.HasPrefix(f.MIMEType, "image/"):
		b, _ := json.Marshal(map[string]string{"type": "image", "data": base64.StdEncoding.EncodeToString(f.Blob), "mimeType": f.MIMEType})
		return Result{Content: []json.RawMessage{b}}
	}
	return TextResult(fmt.Sprintf("[%s: %s, %d bytes, not text]", f.Path, f.MIMEType, len(f.Blob)), false)
}
