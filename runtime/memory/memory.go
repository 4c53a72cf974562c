// Package memory is project memory: the AGENTS.md files (and the other
// names config.json's "memoryFiles" adds) of the user and of the project,
// read as text and put into the agent's system prompt, each under a
// header naming its path.
//
// Where they are looked up, in the prompt's order:
//
//   - the user's: Options.Home ($LUAGENT_HOME, ~/.luagent);
//   - the project's: each folder from the repository's root (the nearest
//     folder above the working folder that holds .git, a folder or a
//     file) down to the working folder; outside a repository, the
//     working folder alone.
//
// In each folder AGENTS.md comes first, then Options.Names in their
// order. The nearest folder's files come last, so their instructions are
// the last the model reads. A file reached twice (a CLAUDE.md that is a
// symbolic link to AGENTS.md, the home inside the project) counts once.
//
// Each file gives at most MaxFileBytes to the prompt and all of them at
// most MaxTotalBytes; the total is shared out from the nearest file
// outwards, so a large user file is cut before the project's. A cut file
// is cut at a line's end and says so in the prompt, and Notes says so in
// a line for the person. Nothing here runs a file: its bytes are text,
// made valid UTF-8. The prompt depends only on the files' contents and
// paths (no times, no map order): the same files give the same bytes.
package memory

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/visible"
)

// FileName is the memory file every folder is looked in for.
const FileName = "AGENTS.md"

// The bounds.
const (
	MaxFileBytes  = 32 << 10 // one file's share of the prompt
	MaxTotalBytes = 64 << 10 // all files' together
)

// Options say where to look.
type Options struct {
	// Dir is the working folder ("": os.Getwd).
	Dir string
	// Home is luagent's folder, whose memory file is the user's ("":
	// none).
	Home string
	// Names are more file names to look for beside AGENTS.md
	// (config.json's memoryFiles), in their order.
	Names []string
	// MaxFile and MaxTotal replace MaxFileBytes and MaxTotalBytes (0:
	// those).
	MaxFile, MaxTotal int
}

// File is one memory file found.
type File struct {
	// Path is where it was found (the working folder's path joined with
	// its name: a symbolic link's own path).
	Path string
	// User says it is the user's (in Home), not the project's.
	User bool
	// Size is its size in bytes; Used how many of them are in the prompt.
	Size int64
	Used int
	// Cut says the prompt holds only the first Used bytes.
	Cut bool
	// Err says why it is not in the prompt (nil: it is, unless empty):
	// kind invalid for a file that cannot be read, is not a regular file
	// or is binary; kind limit for one the total bound left no room for.
	Err error

	text string // what goes into the prompt
}

// Memory is what Load found.
type Memory struct {
	Files []File
	// MaxFile and MaxTotal are the bounds it was loaded with.
	MaxFile, MaxTotal int
}

// Load finds and reads the memory files. A file that cannot be read is
// listed with its Err, never a failure of the whole.
func Load(o Options) *Memory {
	m := &Memory{MaxFile: o.MaxFile, MaxTotal: o.MaxTotal}
	if m.MaxFile <= 0 {
		m.MaxFile = MaxFileBytes
	}
	if m.MaxTotal <= 0 {
		m.MaxTotal = MaxTotalBytes
	}
	dir := o.Dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	if dir != "" {
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
	}
	names := fileNames(o.Names)
	var seen []os.FileInfo
	look := func(folder string, user bool) {
		for _, name := range names {
			p := filepath.Join(folder, name)
			f, info, ok := read(p, m.MaxFile)
			if !ok {
				continue
			}
			if info != nil {
				dup := false
				for _, s := range seen {
					dup = dup || os.SameFile(s, info)
				}
				if dup {
					continue
				}
				seen = append(seen, info)
			}
			f.User = user
			m.Files = append(m.Files, f)
		}
	}
	if o.Home != "" {
		home := o.Home
		if abs, err := filepath.Abs(home); err == nil {
			home = abs
		}
		look(home, true)
	}
	if dir != "" {
		for _, folder := range Folders(dir) {
			look(folder, false)
		}
	}
	m.share()
	return m
}

// fileNames are AGENTS.md and names, each once, in order.
func fileNames(names []string) []string {
	out := []string{FileName}
	for _, n := range names {
		dup := false
		for _, o := range out {
			dup = dup || o == n
		}
		if !dup && n != "" {
			out = append(out, n)
		}
	}
	return out
}

// Folders are the folders whose memory files count for dir: from the
// repository's root (the nearest folder at or above dir holding .git)
// down to dir, or dir alone outside a repository.
func Folders(dir string) []string {
	dir = filepath.Clean(dir)
	var chain []string
	for d := dir; ; {
		chain = append(chain, d)
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			// chain is dir up to the root: reversed, the root first.
			for i, j := 0, len(chain)-1; i < j; i, j = i+1, j-1 {
				chain[i], chain[j] = chain[j], chain[i]
			}
			return chain
		}
		up := filepath.Dir(d)
		if up == d {
			return []string{dir}
		}
		d = up
	}
}

// read reads up to max+1 bytes of the file at p. ok is false when there
// is no such file (a dangling link included): nothing to list.
func read(p string, max int) (File, os.FileInfo, bool) {
	f := File{Path: p}
	info, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil, false
	}
	if err != nil {
		f.Err = errs.Errorf(errs.Invalid, "memory", "cannot read %s: %v", p, cause(err))
		return f, nil, true
	}
	if !info.Mode().IsRegular() {
		// A folder, a pipe or a device: opening a pipe would wait forever.
		f.Err = errs.Errorf(errs.Invalid, "memory", "%s is not a regular file: left out", p)
		return f, info, true
	}
	f.Size = info.Size()
	fh, err := os.Open(p)
	if err != nil {
		f.Err = errs.Errorf(errs.Invalid, "memory", "cannot read %s: %v", p, cause(err))
		return f, info, true
	}
	defer fh.Close()
	b, err := io.ReadAll(io.LimitReader(fh, int64(max)+1))
	if err != nil {
		f.Err = errs.Errorf(errs.Invalid, "memory", "cannot read %s: %v", p, cause(err))
		return f, info, true
	}
	if len(b) <= max || int64(len(b)) > f.Size {
		f.Size = int64(len(b)) // read whole; or it grew since Stat
	}
	if bytes.IndexByte(b, 0) >= 0 {
		f.Err = errs.Errorf(errs.Invalid, "memory", "%s looks binary (it holds a NUL byte): left out", p)
		return f, info, true
	}
	f.text = string(b)
	return f, info, true
}

func cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// share cuts the files to the bounds: each to MaxFile, then the total to
// MaxTotal, the nearest file served first.
func (m *Memory) share() {
	left := m.MaxTotal
	for i := len(m.Files) - 1; i >= 0; i-- {
		f := &m.Files[i]
		if f.Err != nil {
			continue
		}
		limit := min(m.MaxFile, left)
		if limit <= 0 && len(f.text) > 0 {
			f.Err = errs.Errorf(errs.Limit, "memory", "%s is left out: the memory files before it took all %d bytes the prompt has for them", f.Path, m.MaxTotal)
			f.text = ""
			continue
		}
		if len(f.text) > limit {
			f.text = cutText(f.text, limit)
			f.Cut = true
		}
		f.Used = len(f.text)
		left -= f.Used
	}
}

// cutText is s cut to at most n bytes: at the last line's end within
// them when there is one, else at a character's start.
func cutText(s string, n int) string {
	s = s[:n]
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[:i+1]
	}
	for len(s) > 0 && !utf8.RuneStart(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	if len(s) > 0 {
		if r, size := utf8.DecodeLastRuneInString(s); r == utf8.RuneError && size <= 1 {
			s = s[:len(s)-1]
		}
	}
	return s
}

// Loaded are the files whose text is in the prompt.
func (m *Memory) Loaded() []File {
	var out []File
	for _, f := range m.Files {
		if f.Err == nil && strings.TrimSpace(f.text) != "" {
			out = append(out, f)
		}
	}
	return out
}

// Prompt is the memory as a section of a system prompt ("" when no file
// has any text).
func (m *Memory) Prompt() string {
	if m == nil {
		return ""
	}
	files := m.Loaded()
	if len(files) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("# Project memory\n\n")
	b.WriteString("The files below are instructions from the user (their own file first) and from this project (AGENTS.md files from the repository's root down to the working folder). Follow them; where they disagree, a later file wins over an earlier one.\n")
	for _, f := range files {
		fmt.Fprintf(&b, "\n## %s\n\n", visible.Line(f.Path))
		text := strings.ReplaceAll(strings.ToValidUTF8(f.text, "\uFFFD"), "\r\n", "\n")
		text = strings.TrimRight(text, "\n")
		b.WriteString(text)
		b.WriteByte('\n')
		if f.Cut {
			fmt.Fprintf(&b, "\n[luagent: this file is cut here: only its first %d of %d bytes are shown (memory files give at most %d bytes each, %d in all)]\n", f.Used, f.Size, m.MaxFile, m.MaxTotal)
		}
	}
	for _, f := range m.Files {
		if errs.KindOf(f.Err) == errs.Limit {
			fmt.Fprintf(&b, "\n[luagent: %s is left out: the memory files above took all %d bytes the prompt has for them]\n", visible.Line(f.Path), m.MaxTotal)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// Notes are one line each, for the person, of what did not go in whole:
// a file cut, left out or unreadable. The paths' control characters are
// made visible.
func (m *Memory) Notes() []string {
	if m == nil {
		return nil
	}
	var out []string
	for _, f := range m.Files {
		switch {
		case f.Err != nil:
			out = append(out, "memory: "+visible.Line(errs.Message(f.Err)))
		case f.Cut:
			out = append(out, fmt.Sprintf("memory: %s is %d bytes; only its first %d are in the system prompt (at most %d a file, %d in all)", visible.Line(f.Path), f.Size, f.Used, m.MaxFile, m.MaxTotal))
		}
	}
	return out
}

// Report is what chat's /memory shows: each file found, its size and
// what of it is in the prompt.
func (m *Memory) Report() string {
	if m == nil || len(m.Files) == 0 {
		return "memory: no AGENTS.md (or memoryFiles) found here or in ~/.luagent: nothing in the system prompt"
	}
	var b strings.Builder
	used := 0
	for _, f := range m.Loaded() {
		used += f.Used
	}
	fmt.Fprintf(&b, "memory: %d of %d files in the system prompt, %d bytes (at most %d a file, %d in all)", len(m.Loaded()), len(m.Files), used, m.MaxFile, m.MaxTotal)
	for _, f := range m.Files {
		var state string
		switch {
		case f.Err != nil:
			state = errs.Message(f.Err)
		case strings.TrimSpace(f.text) == "":
			state = "empty"
		case f.Cut:
			state = fmt.Sprintf("cut: the first %d bytes", f.Used)
		default:
			state = "loaded"
		}
		who := "project"
		if f.User {
			who = "user"
		}
		fmt.Fprintf(&b, "\n  %s  %d bytes  %s, %s", visible.Line(f.Path), f.Size, who, visible.Line(state))
	}
	return b.String()
}
