package mcp

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/luagent/luagent/runtime/errs"
	rmcp "github.com/luagent/luagent/runtime/mcp"
	"github.com/luagent/luagent/runtime/skills"
	lua "github.com/yuin/gopher-lua"
)

// The native half of s:skill and s:skills_dir (stdlib/mcp_features.lua):
// reading a skill's folder and publishing its files.

func (m *module) filesNative(L *lua.LState) *lua.LTable {
	t := L.CreateTable(0, 3)
	L.SetFuncs(t, map[string]lua.LGFunction{
		"read_skill_dir": m.readSkillDir,
		"skill_dirs":     m.skillDirs,
		"read_file":      m.readFile,
	})
	return t
}

// add_skill(s, files, name): files a table path -> text; name, when not
// "", must be the front matter's.
func (m *module) addSkill(L *lua.LState) int {
	s, t, want := checkServer(L), L.CheckTable(2), L.OptString(3, "")
	files := map[string][]byte{}
	t.ForEach(func(k, v lua.LValue) {
		if ks, ok := k.(lua.LString); ok {
			if vs, ok := v.(lua.LString); ok {
				files[string(ks)] = []byte(vs)
			}
		}
	})
	if want != "" {
		if fm, _, err := skills.ParseFrontmatter(files["SKILL.md"]); err == nil && fm["name"] != want {
			return registered(L, errs.Errorf(errs.Invalid, "", "name %q is not the name in SKILL.md's front matter (%v)", want, fm["name"]))
		}
	}
	return registered(L, s.srv.AddSkill(rmcp.Skill{Files: files}))
}

// read_skill_dir(path) -> files (path -> text), or nil and why: every
// regular file under path, within the skill limits.
func (m *module) readSkillDir(L *lua.LState) int {
	root := L.CheckString(1)
	files := L.CreateTable(0, 4)
	n, total := 0, 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		if n++; n > rmcp.MaxSkillFiles {
			return errs.Errorf(errs.Invalid, "", "%s has more than %d files", root, rmcp.MaxSkillFiles)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if total += len(b); total > rmcp.MaxSkillBytes {
			return errs.Errorf(errs.Invalid, "", "%s holds more than %d bytes", root, rmcp.MaxSkillBytes)
		}
		files.RawSetString(filepath.ToSlash(rel), lua.LString(b))
		return nil
	})
	if err == nil && files.RawGetString("SKILL.md") == lua.LNil {
		err = errs.Errorf(errs.Invalid, "", "%s has no SKILL.md", root)
	}
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString("skill folder: " + errMsg(err)))
		return 2
	}
	L.Push(files)
	return 1
}

// skill_dirs(path) -> the folders of path holding a SKILL.md, sorted.
func (m *module) skillDirs(L *lua.LState) int {
	root := L.CheckString(1)
	ents, err := os.ReadDir(root)
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString("skills folder: " + err.Error()))
		return 2
	}
	var dirs []string
	for _, e := range ents {
		p := filepath.Join(root, e.Name())
		if st, err := os.Stat(filepath.Join(p, "SKILL.md")); err == nil && st.Mode().IsRegular() {
			dirs = append(dirs, p)
		}
	}
	slices.Sort(dirs)
	t := L.CreateTable(len(dirs), 0)
	for _, d := range dirs {
		t.Append(lua.LString(d))
	}
	L.Push(t)
	return 1
}

// read_file(path) -> text, or nil and why (a skill's SKILL.md).
func (m *module) readFile(L *lua.LState) int {
	p := L.CheckString(1)
	st, err := os.Stat(p)
	if err == nil && st.Size() > rmcp.MaxSkillBytes {
		err = errs.Errorf(errs.Invalid, "", "%s is larger than %d bytes", p, rmcp.MaxSkillBytes)
	}
	var b []byte
	if err == nil {
		b, err = os.ReadFile(p)
	}
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString("skill file: " + errMsg(err)))
		return 2
	}
	L.Push(lua.LString(b))
	return 1
}
