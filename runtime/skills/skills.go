// Package skills is Agent Skills for luagent: folders with a SKILL.md whose
// YAML front matter names and describes the skill, found locally
// ($LUAGENT_HOME/skills/NAME/SKILL.md, then a project's
// .luagent/skills/NAME/SKILL.md) or published by MCP servers through the
// skills extension (skills/list, files read with resources/read).
//
// A model first sees names and descriptions only. A skill's body is read
// when it is loaded, never before (not on connecting, not on listing);
// a server's SKILL.md is checked against the size, digest and front
// matter its listing published before anyone sees it, and a skill's other
// files only after it has loaded, verified the same way. A failed check
// is an errs.Integrity error, and the content is not returned.
//
//	r := skills.NewRemote("docs", client)
//	entries, problems, err := r.List(ctx)
//	l, err := r.Load(ctx, entries[0])      // the verified body and its files
//	f, err := r.ReadFile(ctx, entries[0], l.Files[0])
//
// It knows nothing of Lua.
package skills

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/luagent/luagent/runtime/errs"
)

// Extension is the id of MCP's skills extension, declared under
// capabilities.extensions.
const Extension = "io.modelcontextprotocol/skills"

// Limits. A skill's files together may hold MaxSkillBytes and number
// MaxFiles (the extension's limits); a listing keeps at most MaxSkills
// skills from at most MaxPages pages.
const (
	MaxSkillBytes = 16 << 20
	MaxFiles      = 512
	MaxSkills     = 1000
	MaxPages      = 50
)

// Info is a skill as a model first sees it.
type Info struct {
	// Name is what the model calls it: the skill's own name for a local
	// skill, SERVER__NAME for a server's.
	Name        string
	Description string
	// Skill is the skill's own name (front matter name).
	Skill string
	// Server is the MCP server publishing it ("" for a local skill).
	Server string
	// Origin is where it comes from: its SKILL.md path or URI.
	Origin string
}

// Loaded is a loaded skill.
type Loaded struct {
	Name string
	// Body is SKILL.md after its front matter.
	Body string
	// Files are the skill's other files, relative to its folder (for
	// ReadFile), sorted.
	Files []string
	// Dynamic means the server publishes no list of files: any path in
	// the skill's folder may be asked for, and is read without a digest.
	Dynamic bool
}

// File is one file of a loaded skill.
type File struct {
	Path     string // relative to the skill's folder
	URI      string // the server's URI ("" for a local file)
	MIMEType string
	Text     string // the content when it is text
	Blob     []byte // the content otherwise
}

// Source gives skills: names and descriptions without reading any
// skill's body; Load and ReadFile by the name List gave.
type Source interface {
	List() []Info
	Load(ctx context.Context, name string) (*Loaded, error)
	ReadFile(ctx context.Context, name, path string) (*File, error)
}

// Problem is a skill that was left out of a listing, and why.
type Problem struct {
	Where  string // the SKILL.md path or URI, or the entry's index
	Reason string
}

func (p Problem) String() string { return p.Where + ": " + p.Reason }

// ValidName reports whether name follows Agent Skills' naming rules: 1-64
// characters of lowercase letters, digits and hyphens, with no hyphen at
// either end and no two in a row.
func ValidName(name string) bool {
	if len(name) == 0 || len(name) > 64 || name[0] == '-' || name[len(name)-1] == '-' || strings.Contains(name, "--") {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// checkNames says what is wrong with a skill's front matter name and
// description, and whether the name is the folder's ("" when all is well).
func checkNames(fm map[string]any, folder string) string {
	name, _ := fm["name"].(string)
	desc, _ := fm["description"].(string)
	switch {
	case name == "":
		return "its front matter has no name"
	case desc == "":
		return "its front matter has no description"
	case !ValidName(name):
		return "its name " + quote(name) + " breaks the naming rules (1-64 of a-z, 0-9 and -, no leading, trailing or double -)"
	case name != folder:
		return "its name " + quote(name) + " is not its folder's (" + quote(folder) + ")"
	}
	return ""
}

// Join is the skills of several sources; a name two sources give is the
// first's.
func Join(srcs ...Source) Source {
	out := joined{}
	for _, s := range srcs {
		if s != nil {
			out = append(out, s)
		}
	}
	return out
}

type joined []Source

func (j joined) List() []Info {
	var out []Info
	seen := map[string]bool{}
	for _, s := range j {
		for _, in := range s.List() {
			if !seen[in.Name] {
				seen[in.Name] = true
				out = append(out, in)
			}
		}
	}
	return out
}

func (j joined) owner(name string) (Source, error) {
	for _, s := range j {
		if slices.ContainsFunc(s.List(), func(in Info) bool { return in.Name == name }) {
			return s, nil
		}
	}
	return nil, notFound(name)
}

func (j joined) Load(ctx context.Context, name string) (*Loaded, error) {
	s, err := j.owner(name)
	if err != nil {
		return nil, err
	}
	return s.Load(ctx, name)
}

func (j joined) ReadFile(ctx context.Context, name, path string) (*File, error) {
	s, err := j.owner(name)
	if err != nil {
		return nil, err
	}
	return s.ReadFile(ctx, name, path)
}

// Only narrows src to the skills named (by Info.Name, or by the skill's
// own name).
func Only(src Source, names []string) Source {
	return only{src, names}
}

type only struct {
	src   Source
	names []string
}

func (o only) List() []Info {
	var out []Info
	for _, in := range o.src.List() {
		if slices.Contains(o.names, in.Name) || slices.Contains(o.names, in.Skill) {
			out = append(out, in)
		}
	}
	return out
}

func (o only) allowed(name string) error {
	if slices.ContainsFunc(o.List(), func(in Info) bool { return in.Name == name }) {
		return nil
	}
	return notFound(name)
}

func (o only) Load(ctx context.Context, name string) (*Loaded, error) {
	if err := o.allowed(name); err != nil {
		return nil, err
	}
	return o.src.Load(ctx, name)
}

func (o only) ReadFile(ctx context.Context, name, path string) (*File, error) {
	if err := o.allowed(name); err != nil {
		return nil, err
	}
	return o.src.ReadFile(ctx, name, path)
}

func notFound(name string) error {
	return errs.Errorf(errs.NotFound, "skills", "no skill %q: use a name from the list of skills", name)
}

// quote quotes s for a message, clipped.
func quote(s string) string { return strconv.Quote(clip(s)) }

// clip cuts s to 80 runes.
func clip(s string) string {
	if r := []rune(s); len(r) > 80 {
		return string(r[:77]) + "..."
	}
	return s
}
