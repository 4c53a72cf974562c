package skills

import (
	"bufio"
	"context"
	"errors"
	"io"
	"io/fs"
	"mime"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/luagent/luagent/runtime/errs"
)

// LocalDirs are the folders local skills live in, in the order Local
// scans them: the user's (home/skills, home being $LUAGENT_HOME or
// ~/.luagent), then the project's (project/.luagent/skills, project being
// the working directory). Either may be "" to leave it out.
func LocalDirs(home, project string) []string {
	var dirs []string
	if home != "" {
		dirs = append(dirs, filepath.Join(home, "skills"))
	}
	if project != "" {
		dirs = append(dirs, filepath.Join(project, ".luagent", "skills"))
	}
	return dirs
}

// Local is the skills in folders of NAME/SKILL.md. A name found in a later
// folder replaces the earlier one: a project's skill overrides the user's
// skill of the same name (the project knows its own needs best).
type Local struct {
	Dirs []string
}

// LocalSkill is one local skill as listed: only its front matter was read.
type LocalSkill struct {
	Name        string
	Description string
	Dir         string // the skill's folder
	Path        string // its SKILL.md
	Frontmatter map[string]any
	// Shadows is the SKILL.md of a skill of the same name this one
	// replaces ("" if none).
	Shadows string
}

// Scan lists the skills, reading each SKILL.md's front matter only. A
// skill whose front matter is missing or wrong is left out with a
// Problem; a folder that does not exist is no problem.
func (l *Local) Scan() ([]LocalSkill, []Problem) {
	var out []LocalSkill
	var problems []Problem
	at := map[string]int{}
	for _, dir := range l.Dirs {
		ents, err := os.ReadDir(dir)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				problems = append(problems, Problem{dir, "cannot list the folder: " + err.Error()})
			}
			continue
		}
		for _, e := range ents {
			if !e.IsDir() && e.Type()&fs.ModeSymlink == 0 || strings.HasPrefix(e.Name(), ".") {
				continue
			}
			p := filepath.Join(dir, e.Name(), "SKILL.md")
			fm, err := readFrontmatter(p)
			if errors.Is(err, fs.ErrNotExist) {
				continue // a folder of something else
			}
			if err == nil {
				if why := checkNames(fm, e.Name()); why != "" {
					err = errors.New(why)
				}
			}
			if err != nil {
				problems = append(problems, Problem{p, err.Error() + "; the skill is left out"})
				continue
			}
			s := LocalSkill{Name: fm["name"].(string), Description: fm["description"].(string), Dir: filepath.Join(dir, e.Name()), Path: p, Frontmatter: fm}
			if i, dup := at[s.Name]; dup {
				s.Shadows = out[i].Path
				out[i] = s
				continue
			}
			at[s.Name] = len(out)
			out = append(out, s)
			if len(out) == MaxSkills {
				problems = append(problems, Problem{dir, "more than " + strconv.Itoa(MaxSkills) + " skills; the rest are left out"})
				return out, problems
			}
		}
	}
	return out, problems
}

// readFrontmatter reads a SKILL.md up to the end of its front matter.
func readFrontmatter(p string) (map[string]any, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var head []byte
	r := bufio.NewReader(io.LimitReader(f, maxFrontmatter+4096))
	for n := 0; ; n++ {
		ln, err := r.ReadBytes('\n')
		head = append(head, ln...)
		if n > 0 && strings.TrimRight(string(ln), " \t\r\n") == "---" || err != nil {
			break
		}
	}
	fm, _, err := ParseFrontmatter(head)
	if err != nil {
		return nil, errors.New("SKILL.md: " + err.Error())
	}
	return fm, nil
}

// List implements Source.
func (l *Local) List() []Info {
	found, _ := l.Scan()
	out := make([]Info, len(found))
	for i, s := range found {
		out[i] = Info{Name: s.Name, Description: s.Description, Skill: s.Name, Origin: s.Path}
	}
	return out
}

func (l *Local) find(name string) (LocalSkill, error) {
	found, _ := l.Scan()
	for _, s := range found {
		if s.Name == name {
			return s, nil
		}
	}
	return LocalSkill{}, notFound(name)
}

// Load implements Source: the whole SKILL.md is read now, and its folder
// listed.
func (l *Local) Load(_ context.Context, name string) (*Loaded, error) {
	s, err := l.find(name)
	if err != nil {
		return nil, err
	}
	doc, err := readCapped(s.Path)
	if err != nil {
		return nil, err
	}
	fm, body, err := ParseFrontmatter(doc)
	if err == nil && fm["name"] != name {
		err = errors.New("its name changed since it was listed")
	}
	if err != nil {
		return nil, errs.Errorf(errs.Invalid, "skills", "%s: %v", s.Path, err)
	}
	files, err := listFiles(s.Dir)
	if err != nil {
		return nil, err
	}
	return &Loaded{Name: name, Body: string(body), Files: files}, nil
}

// listFiles lists a skill's files but SKILL.md, skipping hidden ones and
// not following links out of it.
func listFiles(dir string) ([]string, error) {
	var files []string
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real // a linked skill folder is walked, links inside it are not
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable corner is left out
		}
		if p != dir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if rel == "SKILL.md" {
			return nil
		}
		if len(files) == MaxFiles {
			return fs.SkipAll
		}
		files = append(files, rel)
		return nil
	})
	if err != nil {
		return nil, errs.Errorf(errs.Invalid, "skills", "cannot list %s: %v", dir, err)
	}
	slices.Sort(files)
	return files, nil
}

// ReadFile implements Source: a file inside the skill's folder (a path
// that leaves it, through .. or a link, is refused).
func (l *Local) ReadFile(_ context.Context, name, rel string) (*File, error) {
	s, err := l.find(name)
	if err != nil {
		return nil, err
	}
	rel = strings.TrimPrefix(filepath.ToSlash(rel), "./")
	if !filepath.IsLocal(filepath.FromSlash(rel)) {
		return nil, errs.Errorf(errs.Invalid, "skills", "%q is not a path inside the skill %s: give one of its files, relative to its folder", rel, name)
	}
	root, err := os.OpenRoot(s.Dir)
	if err != nil {
		return nil, errs.Errorf(errs.NotFound, "skills", "cannot open the skill's folder: %v", err)
	}
	defer root.Close()
	f, err := root.Open(filepath.FromSlash(rel))
	if err != nil {
		return nil, errs.Errorf(errs.NotFound, "skills", "skill %s has no file %q (%v)", name, rel, errors.Unwrap(err))
	}
	defer f.Close()
	b, err := readAllCapped(f, rel)
	if err != nil {
		return nil, err
	}
	return fileOf(rel, "", mime.TypeByExtension(path.Ext(rel)), b), nil
}

func fileOf(rel, uri, mimeType string, b []byte) *File {
	f := &File{Path: rel, URI: uri, MIMEType: mimeType}
	if utf8.Valid(b) && !strings.HasPrefix(mimeType, "image/") {
		f.Text = string(b)
	} else {
		f.Blob = b
	}
	return f
}

func readCapped(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, errs.Errorf(errs.NotFound, "skills", "cannot read %s: %v", p, err)
	}
	defer f.Close()
	return readAllCapped(f, p)
}

func readAllCapped(r io.Reader, what string) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxSkillBytes+1))
	if err != nil {
		return nil, errs.Errorf(errs.Invalid, "skills", "cannot read %s: %v", what, err)
	}
	if len(b) > MaxSkillBytes {
		return nil, errs.Errorf(errs.Limit, "skills", "%s is larger than %d bytes, a skill's limit", what, MaxSkillBytes)
	}
	return b, nil
}
