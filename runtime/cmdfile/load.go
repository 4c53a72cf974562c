package cmdfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/permission"
)

// Folders under .luagent/ (the project's) and $LUAGENT_HOME (the user's).
const (
	CommandsFolder = "commands"
	AgentsFolder   = "agents"
)

// Sources of a file.
const (
	Project = "project"
	User    = "user"
)

// maxFiles bounds the files read from one folder.
const maxFiles = 1000

// Options say where the files are.
type Options struct {
	// Home is luagent's folder ($LUAGENT_HOME, ~/.luagent): the user's
	// files are in Home/commands and Home/agents ("": none).
	Home string
	// ProjectDir is the project's folder (runtime/project.Root, else the
	// working folder): its files are in ProjectDir/.luagent/commands and
	// .luagent/agents ("": none). The same folder as Home's is read once,
	// as the user's.
	ProjectDir string
	// Trusted says the project's folder is trusted (runtime/project):
	// only then do its .lua files run and its allowed-tools apply.
	Trusted bool
}

func (o Options) dirs(sub string) [](struct{ dir, source string }) {
	var out []struct{ dir, source string }
	user := ""
	if o.Home != "" {
		user = filepath.Join(o.Home, sub)
	}
	if o.ProjectDir != "" {
		p := filepath.Join(o.ProjectDir, ".luagent", sub)
		if !same(p, user) {
			out = append(out, struct{ dir, source string }{p, Project})
		}
	}
	if user != "" {
		out = append(out, struct{ dir, source string }{user, User})
	}
	return out
}

func same(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return ra == rb
}

// Command is one command file.
type Command struct {
	// Name is what /NAME calls: the file's name without .md or .lua.
	// Namespace is its subfolder under commands/ ("frontend",
	// "a:b" for a/b/; "" at the top).
	Name, Namespace string
	// Source is Project or User; Path the file's.
	Source, Path string
	// Lua is a NAME.lua file: luabind computes its prompt (and its
	// description and hint) in the sandbox.
	Lua bool
	Meta
	// Body is a .md file's prompt, before Expand.
	Body string
	// Untrusted is a project file in a folder not trusted: its
	// AllowedTools grant nothing (Grants is empty). Project is then the
	// project's folder, the one to trust.
	Untrusted bool
	Project   string
	// Shadowed says another command has the name: this one is called by
	// its qualified name only.
	Shadowed bool
}

// Qualified is the command's name with its namespace: frontend:test.
func (c *Command) Qualified() string {
	if c.Namespace == "" {
		return c.Name
	}
	return c.Namespace + ":" + c.Name
}

// Label is where the command comes from, as Claude Code shows it beside
// the description: (project), (user), (project:frontend).
func (c *Command) Label() string {
	if c.Namespace == "" {
		return "(" + c.Source + ")"
	}
	return "(" + c.Source + ":" + c.Namespace + ")"
}

// Help is the command's line in /help: its description (or "run the
// prompt in PATH") and where it comes from.
func (c *Command) Help() string {
	d := strings.TrimSpace(c.Description)
	if d == "" {
		d = "the prompt in " + filepath.Base(c.Path)
	}
	return oneLine(d) + " " + c.Label()
}

// Usage is /NAME and its argument hint.
func (c *Command) Usage() string {
	n := c.Name
	if c.Shadowed {
		n = c.Qualified()
	}
	if h := strings.TrimSpace(c.ArgumentHint); h != "" {
		return "/" + n + " " + oneLine(h)
	}
	return "/" + n
}

// Grants are the tool patterns the command pre-approves: its
// allowed-tools, none for an untrusted project's file.
// A pattern luagent's permission rules cannot read (Claude Code's
// Bash(git add:*): luagent has no Bash tool) is in skipped.
func (c *Command) Grants() (patterns, skipped []string) {
	if c.Untrusted {
		return nil, nil
	}
	for _, t := range c.AllowedTools {
		if _, err := permission.Parse(t); err != nil {
			skipped = append(skipped, t)
			continue
		}
		patterns = append(patterns, t)
	}
	return patterns, skipped
}

// Prompt is a .md command's prompt for these arguments.
func (c *Command) Prompt(args string) string { return Expand(c.Body, args) }

// Set is the commands found, each name once.
type Set struct {
	// Commands are sorted by name; a project's command hides the user's
	// of the same name.
	Commands []*Command
	// Problems are one line each: a file that could not be read; the
	// others loaded.
	Problems []string
	// Notes are one line each: what was skipped and why (an untrusted
	// project's .lua files).
	Notes  []string
	byName map[string]*Command
}

// Find is the command /name calls: a name (test) or a qualified name
// (frontend:test); nil when there is none.
func (s *Set) Find(name string) *Command {
	if s == nil {
		return nil
	}
	return s.byName[name]
}

// Names are the commands' names, sorted (completion).
func (s *Set) Names() []string {
	if s == nil {
		return nil
	}
	out := make([]string, 0, len(s.Commands))
	for _, c := range s.Commands {
		if c.Shadowed {
			out = append(out, c.Qualified())
		} else {
			out = append(out, c.Name)
		}
	}
	sort.Strings(out)
	return out
}

// name is what a command or agent file may be called.
var name = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`) })

// file is one file found under a folder.
type file struct {
	path, rel, source string
	ns, name, ext     string
}

// walk lists the .md and .lua files under dir (subfolders too when deep),
// sorted: top level first, then by namespace and name.
func walk(dir, source string, deep bool, problems *[]string) []file {
	var out []file
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir && errorsIsNotExist(err) {
				return fs.SkipAll
			}
			*problems = append(*problems, fmt.Sprintf("%s: cannot read: %v", p, err))
			return nil
		}
		if d.IsDir() {
			if p != dir && (!deep || strings.HasPrefix(d.Name(), ".")) {
				return fs.SkipDir
			}
			return nil
		}
		ext := filepath.Ext(d.Name())
		if ext != ".md" && ext != ".lua" || strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		if len(out) >= maxFiles {
			*problems = append(*problems, fmt.Sprintf("%s: more than %d files; the rest are not read", dir, maxFiles))
			return fs.SkipAll
		}
		rel, _ := filepath.Rel(dir, p)
		parts := strings.Split(filepath.ToSlash(rel), "/")
		f := file{path: p, rel: rel, source: source, ext: ext, name: strings.TrimSuffix(parts[len(parts)-1], ext)}
		f.ns = strings.Join(parts[:len(parts)-1], ":")
		for _, seg := range parts {
			if !name().MatchString(strings.TrimSuffix(seg, ext)) {
				*problems = append(*problems, fmt.Sprintf("%s: a name is letters, digits, _ . - (at most 64); rename the file", p))
				return nil
			}
		}
		out = append(out, f)
		return nil
	})
	if err != nil {
		*problems = append(*problems, fmt.Sprintf("%s: cannot read: %v", dir, err))
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if (a.ns == "") != (b.ns == "") {
			return a.ns == ""
		}
		if a.ns != b.ns {
			return a.ns < b.ns
		}
		if a.name != b.name {
			return a.name < b.name
		}
		return a.ext == ".lua" // NAME.lua before NAME.md: it wins
	})
	return out
}

// errorsIsNotExist: no such folder, or a file where a folder was expected.
func errorsIsNotExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

func readFile(p string) ([]byte, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if fi.Size() > maxFile {
		return nil, errs.Errorf(errs.Invalid, "commands", "%s: larger than %d KiB", p, maxFile>>10)
	}
	return os.ReadFile(p)
}

// LoadCommands reads the command files: the project's first, so that a
// project's command wins over the user's of the same name (Claude Code's
// rule too). A file that cannot be read or parsed is one line in
// Problems; the others still load. In a project not trusted, its .lua
// files are skipped (one line in Notes) and its allowed-tools grant
// nothing.
func LoadCommands(o Options) *Set {
	s := &Set{byName: map[string]*Command{}}
	skipped := 0
	skippedDir := ""
	for _, d := range o.dirs(CommandsFolder) {
		untrusted := d.source == Project && !o.Trusted
		for _, f := range walk(d.dir, d.source, true, &s.Problems) {
			c := &Command{Name: f.name, Namespace: f.ns, Source: f.source, Path: f.path, Untrusted: untrusted}
			if untrusted {
				c.Project = o.ProjectDir
			}
			if f.ext == ".lua" {
				if untrusted {
					skipped++
					skippedDir = d.dir
					continue
				}
				c.Lua = true
			} else {
				doc, err := readFile(f.path)
				if err != nil {
					s.Problems = append(s.Problems, oneLine(err.Error()))
					continue
				}
				m, body, err := ParseCommand(f.path, doc)
				if err != nil {
					s.Problems = append(s.Problems, oneLine(errs.Message(err)))
					continue
				}
				c.Meta, c.Body = m, body
			}
			q := c.Qualified()
			if _, taken := s.byName[q]; taken {
				continue // NAME.lua beside NAME.md, or the user's under the project's
			}
			if _, taken := s.byName[c.Name]; taken {
				if c.Namespace == "" {
					continue
				}
				c.Shadowed = true // listed; called by its qualified name
			} else {
				s.byName[c.Name] = c
			}
			s.byName[q] = c
			s.Commands = append(s.Commands, c)
		}
	}
	if skipped > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%d .lua command file(s) in %s not run: the project folder is not trusted (luagent trust %s)", skipped, skippedDir, o.ProjectDir))
	}
	sort.SliceStable(s.Commands, func(i, j int) bool { return s.Commands[i].Qualified() < s.Commands[j].Qualified() })
	return s
}

// Remove takes c out of the names Find finds (luabind drops a .lua file
// that fails this way; the caller drops it from Commands).
func (s *Set) Remove(c *Command) {
	for k, v := range s.byName {
		if v == c {
			delete(s.byName, k)
		}
	}
}
