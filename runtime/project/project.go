// Package project is a project's own luagent file and folder trust: the
// file .luagent/config.json in the working folder or a parent up to the
// repository root (the folder holding .git), in config.json's format
// (runtime/catalog), holding the project's permission rules and hooks.
// Whoever wrote the repository wrote that file: its deny and ask rules
// always apply, its allow rules and its hooks only in a folder the user
// trusted (luagent trust DIR, or chat's one question), which is kept in
// $LUAGENT_HOME/trusted_folders.json.
//
//	path := project.Find(cwd)          // "" when there is none
//	f, err := project.Load(path)       // f.Permissions, f.Hooks (raw)
//	ok := project.Trusted(home, f.Dir) // may its allow rules and hooks apply?
package project

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"

	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/errs"
)

// Folder and Name make a project file's path: DIR/.luagent/config.json.
const (
	Folder = ".luagent"
	Name   = "config.json"
)

// File is a project file, parsed and checked.
type File struct {
	// Path is the file's; Dir the project's folder (the one holding
	// .luagent).
	Path, Dir string
	// Config is the file as config.json's format reads it.
	Config *catalog.Config
	// Permissions are its rules (nil: none).
	Permissions *catalog.Permissions
	// Hooks is its "hooks" member as written (nil: none), for the hooks
	// package to parse.
	Hooks json.RawMessage
}

// Trustable reports whether the file holds what only a trusted folder
// may use: allow rules or hooks.
func (f *File) Trustable() bool {
	if f == nil {
		return false
	}
	return (f.Permissions != nil && len(f.Permissions.Allow) > 0) || (len(f.Hooks) > 0 && string(f.Hooks) != "null")
}

// Find returns the project file for the working folder cwd:
// .luagent/config.json in cwd or its nearest parent that has one, up to
// the repository root (the folder holding .git); outside a repository,
// only cwd's. "" when there is none. The home folder's .luagent (the
// user's own, ~/.luagent/config.json) is never a project's.
func Find(cwd string) string {
	dir, err := filepath.Abs(cwd)
	if err != nil {
		return ""
	}
	repo := repoRoot(dir)
	home, _ := os.UserHomeDir()
	for {
		p := filepath.Join(dir, Folder, Name)
		if dir != home {
			if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
				return p
			}
		}
		if repo == "" || dir == repo {
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Root is the folder where cwd's project file is, or would be made: the
// folder of the one Find finds, else the repository root; "" outside a
// repository (and for the home folder, whose .luagent is the user's).
func Root(cwd string) string {
	if p := Find(cwd); p != "" {
		return filepath.Dir(filepath.Dir(p))
	}
	dir, err := filepath.Abs(cwd)
	if err != nil {
		return ""
	}
	r := repoRoot(dir)
	if home, _ := os.UserHomeDir(); r == home {
		return ""
	}
	return r
}

// PathIn is the project file's path in the project folder dir.
func PathIn(dir string) string { return filepath.Join(dir, Folder, Name) }

// repoRoot is the nearest folder from dir up that holds .git (a folder,
// or a worktree's file), or "".
func repoRoot(dir string) string {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Load reads and checks the project file at path as config.json is
// checked: an error of kind invalid names the file and the member
// (permissions.allow[2]: ...).
func Load(path string) (*File, error) {
	c, _, err := catalog.Read(path) // its errors name the file
	if err != nil {
		return nil, err
	}
	if err := c.Validate(); err != nil {
		var e *errs.Error
		if errors.As(err, &e) {
			return nil, &errs.Error{Kind: e.Kind, Op: e.Op, Msg: path + ": " + e.Msg, Err: e.Err}
		}
		return nil, errs.Wrap(errs.Invalid, "project", err)
	}
	abs, _ := filepath.Abs(path)
	f := &File{Path: abs, Dir: filepath.Dir(filepath.Dir(abs)), Config: c, Permissions: c.Permissions}
	if h := c.Member("hooks"); h != nil {
		f.Hooks = h
	}
	return f, nil
}
