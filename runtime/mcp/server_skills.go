package mcp

import (
	"encoding/json"
	"mime"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/jsonrpc"
	"github.com/luagent/luagent/runtime/jsonscan"
	"github.com/luagent/luagent/runtime/skills"
)

// Server-published skills (the skills extension, SEP-2640), both eras: a
// skill is a folder of files with SKILL.md at its root, served as the
// resources skill://NAME/PATH. skills/list (paged) and skills/get give
// each skill's entry: its URI, SKILL.md's front matter, and every file
// with its size and sha256 digest, which clients check what they read
// against (runtime/skills). resources/directory/read lists a folder of a
// skill.

// SkillsExtension is the skills extension's identifier.
const SkillsExtension = skills.Extension

// Limits of one skill (the extension's SHOULD NOTs), as the client side
// enforces them.
const (
	MaxSkillFiles = skills.MaxFiles
	MaxSkillBytes = skills.MaxSkillBytes
)

// Skill is one skill a server publishes: its files by path within the
// skill's folder ("SKILL.md", "references/FORMS.md"), SKILL.md required,
// beginning with front matter naming the skill (name, description).
type Skill struct {
	Files map[string][]byte
	// Name, when set, must be the name in SKILL.md's front matter (a
	// server that names the skill it means to publish).
	Name string
}

type serverSkill struct {
	name  string
	uri   string          // skill://NAME/SKILL.md
	entry json.RawMessage // the skills/list entry
	files []string        // paths, SKILL.md first
}

func skillEntries(r *registry) *entries[*serverSkill] { return &r.skills }

const skillDirMIME = "inode/directory"

// AddSkill publishes sk, or replaces the skill of that name, and its files
// as resources. Errors (kind Invalid) say what is wrong with it.
func (s *Server) AddSkill(sk Skill) error {
	if s.reg == nil {
		return errCustomHandler
	}
	doc, ok := sk.Files["SKILL.md"]
	if !ok {
		return errs.New(errs.Invalid, "", "a skill needs a SKILL.md")
	}
	fm, _, err := skills.ParseFrontmatter(doc)
	if err != nil {
		return errs.Errorf(errs.Invalid, "", "SKILL.md: %v", err)
	}
	name, _ := fm["name"].(string)
	if sk.Name != "" && name != sk.Name {
		return errs.Errorf(errs.Invalid, "", "name %q is not the name in SKILL.md's front matter (%v)", sk.Name, fm["name"])
	}
	desc, _ := fm["description"].(string)
	if name == "" || desc == "" {
		return errs.New(errs.Invalid, "", "SKILL.md's front matter needs a name and a description")
	}
	if !skills.ValidName(name) {
		return errs.Errorf(errs.Invalid, "", "skill name %q: use 1-64 lowercase letters, digits and single hyphens, not at either end", name)
	}
	if len(sk.Files) > MaxSkillFiles {
		return errs.Errorf(errs.Invalid, "", "skill %q has %d files, more than %d", name, len(sk.Files), MaxSkillFiles)
	}
	total := 0
	files := make([]string, 0, len(sk.Files))
	for p, b := range sk.Files {
		if p != path.Clean(p) || p == "." || strings.HasPrefix(p, "../") || p == ".." || strings.HasPrefix(p, "/") || strings.ContainsAny(p, "\\?#%") {
			return errs.Errorf(errs.Invalid, "", "skill %q: file path %q must be relative, clean and within the skill's folder", name, p)
		}
		total += len(b)
		if p != "SKILL.md" {
			files = append(files, p)
		}
	}
	if total > MaxSkillBytes {
		return errs.Errorf(errs.Invalid, "", "skill %q holds %d bytes, more than %d", name, total, MaxSkillBytes)
	}
	slices.Sort(files)
	files = append([]string{"SKILL.md"}, files...)
	base := "skill://" + name + "/"
	list := make([]skills.Resource, len(files))
	for i, p := range files {
		list[i] = skills.Resource{URI: base + p, Digest: skills.Digest(sk.Files[p]), Size: int64(len(sk.Files[p]))}
	}
	entry, err := json.Marshal(struct {
		URI         string            `json:"uri"`
		Frontmatter map[string]any    `json:"frontmatter"`
		Resources   []skills.Resource `json:"resources"`
	}{base + "SKILL.md", fm, list})
	if err != nil {
		return errs.Errorf(errs.Invalid, "", "skill %q: the front matter cannot be sent as JSON: %v", name, err)
	}
	// The files first, so that a listed skill's files are there to read.
	var old []string
	s.reg.mu.RLock()
	if prev := s.reg.skills.get(name); prev != nil {
		old = prev.files
	}
	s.reg.mu.RUnlock()
	for _, p := range old {
		if _, ok := sk.Files[p]; !ok {
			s.RemoveResources(base + p)
		}
	}
	for _, p := range files {
		b := sk.Files[p]
		r := Resource{URI: base + p, Name: name + "/" + p, MIMEType: fileMIME(p)}
		if p == "SKILL.md" {
			r.Name, r.Description, r.MIMEType = name, desc, "text/markdown"
		}
		text := utf8.Valid(b)
		mt := r.MIMEType
		if err := s.AddResource(r, func(rd *ResourceRead) {
			c := ResourceContents{MIMEType: mt}
			if text {
				c.Text = string(b)
			} else {
				c.Blob = b
			}
			rd.Return(&ReadResourceResult{Contents: []ResourceContents{c}}, nil)
		}); err != nil {
			return err
		}
	}
	return add(s, "resources", skillEntries, "", name, &serverSkill{name: name, uri: base + "SKILL.md", entry: entry, files: files})
}

// RemoveSkills removes the named skills and their files, and says how many
// there were.
func (s *Server) RemoveSkills(names ...string) int {
	if s.reg == nil {
		return 0
	}
	var uris []string
	s.reg.mu.RLock()
	for _, n := range names {
		if sk := s.reg.skills.get(n); sk != nil {
			for _, p := range sk.files {
				uris = append(uris, "skill://"+n+"/"+p)
			}
		}
	}
	s.reg.mu.RUnlock()
	s.RemoveResources(uris...)
	return remove(s, "resources", skillEntries, "", names)
}

func fileMIME(p string) string {
	switch ext := path.Ext(p); ext {
	case ".md":
		return "text/markdown"
	case "":
		return "text/plain"
	default:
		if t := mime.TypeByExtension(ext); t != "" {
			return t
		}
	}
	return "application/octet-stream"
}

func (reg *registry) hasSkills() bool {
	reg.mu.RLock()
	defer reg.mu.RUnlock()
	return reg.skills.len() > 0
}

const skillPage = 50

// listSkills is skills/list: entries in pages (an entry is never split).
func (reg *registry) listSkills(r *Request) {
	start := 0
	if c := r.Param("cursor"); c != nil && string(c) != "null" {
		cur := r.StringParam("cursor")
		n, err := strconv.Atoi(cur)
		if err != nil || n < 0 {
			r.Fail(rpcError(jsonrpc.CodeInvalidParams, "invalid cursor "+strconv.Quote(cur)+": pass back a nextCursor unchanged", nil))
			return
		}
		start = n
	}
	reg.mu.RLock()
	var all []json.RawMessage
	reg.skills.each(func(sk *serverSkill) bool { all = append(all, sk.entry); return true })
	reg.mu.RUnlock()
	b := []byte(`{"skills":[`)
	end := min(start+skillPage, len(all))
	for i := start; i < end; i++ {
		if i > start {
			b = append(b, ',')
		}
		b = append(b, all[i]...)
	}
	b = append(b, ']')
	if end < len(all) {
		b = append(b, `,"nextCursor":`...)
		b = jsonscan.AppendString(b, strconv.Itoa(end))
	}
	r.Reply(append(b, '}'))
}

// skillOf is the skill a URI of it names (nil if none) and the path in it.
func (reg *registry) skillOf(uri string) (*serverSkill, string) {
	rest, ok := strings.CutPrefix(uri, "skill://")
	if !ok {
		return nil, ""
	}
	name, p, _ := strings.Cut(rest, "/")
	reg.mu.RLock()
	defer reg.mu.RUnlock()
	return reg.skills.get(name), p
}

// getSkill is skills/get: the entry of the skill whose SKILL.md URI (or
// folder) is params.uri.
func (reg *registry) getSkill(r *Request) {
	uri := r.StringParam("uri")
	sk, p := reg.skillOf(uri)
	if sk == nil || (p != "SKILL.md" && p != "") {
		r.Fail(rpcError(jsonrpc.CodeInvalidParams, "Unknown skill: "+uri+" (skills/list names the skills served)", map[string]string{"uri": uri}))
		return
	}
	r.Reply(append(append([]byte(`{"skill":`), sk.entry...), '}'))
}

// readSkillDir is resources/directory/read: the direct children of a
// skill's folder (or of a folder in it), subfolders as inode/directory.
func (reg *registry) readSkillDir(r *Request) {
	uri := r.StringParam("uri")
	sk, p := reg.skillOf(strings.TrimSuffix(uri, "/"))
	p = strings.TrimSuffix(p, "/")
	var kids []string
	dirs := map[string]bool{}
	if sk != nil {
		prefix := ""
		if p != "" {
			prefix = p + "/"
		}
		for _, f := range sk.files {
			rest, ok := strings.CutPrefix(f, prefix)
			if !ok {
				continue
			}
			if d, _, sub := strings.Cut(rest, "/"); sub {
				if !dirs[d] {
					dirs[d] = true
					kids = append(kids, d)
				}
				continue
			}
			kids = append(kids, rest)
		}
	}
	if len(kids) == 0 {
		r.Fail(rpcError(jsonrpc.CodeInvalidParams, "Not a directory: "+uri+" (a skill's folder is skill://NAME, its subfolders skill://NAME/DIR)", map[string]string{"uri": uri}))
		return
	}
	base := "skill://" + sk.name + "/"
	if p != "" {
		base += p + "/"
	}
	type child struct {
		URI      string `json:"uri"`
		Name     string `json:"name"`
		MIMEType string `json:"mimeType"`
	}
	out := make([]child, len(kids))
	for i, k := range kids {
		if dirs[k] {
			out[i] = child{base + k, k, skillDirMIME}
		} else {
			out[i] = child{base + k, k, fileMIME(k)}
		}
	}
	b, _ := json.Marshal(map[string]any{"resources": out})
	r.Reply(b)
}
