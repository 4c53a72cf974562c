package mcp

import (
	"github.com/luagent/luagent/luabind/value"
	rmcp "github.com/luagent/luagent/runtime/mcp"
	"github.com/luagent/luagent/runtime/skills"
	lua "github.com/yuin/gopher-lua"
)

// The native half of s:skill and s:skills_dir (stdlib/mcp_features.lua):
// publishing a skill's files, and reading them from disk (runtime/skills),
// which _files does apart from _server: a sandbox keeps _server only, and
// publishes skills from text.

func (m *module) filesNative(L *lua.LState) *lua.LTable {
	t := L.CreateTable(0, 3)
	L.SetFuncs(t, map[string]lua.LGFunction{
		// read_skill_dir(path) -> files (path -> text), or nil and why
		"read_skill_dir": func(L *lua.LState) int {
			files, err := skills.ReadFolder(L.CheckString(1))
			t := L.CreateTable(0, len(files))
			for p, b := range files {
				t.RawSetString(p, lua.LString(b))
			}
			return orWhy(L, t, err)
		},
		// skill_dirs(path) -> the folders of path holding a SKILL.md, sorted
		"skill_dirs": func(L *lua.LState) int {
			dirs, err := skills.Folders(L.CheckString(1))
			t := L.CreateTable(len(dirs), 0)
			for _, d := range dirs {
				t.Append(lua.LString(d))
			}
			return orWhy(L, t, err)
		},
		// read_file(path) -> a SKILL.md's text, or nil and why
		"read_file": func(L *lua.LState) int {
			b, err := skills.ReadSkillFile(L.CheckString(1))
			return orWhy(L, lua.LString(b), err)
		},
	})
	return t
}

// add_skill(s, files, name): files a table path -> text (gopher-luar: the
// Lua side has checked it); name, when not "", must be the front matter's.
func (m *module) addSkill(L *lua.LState) int {
	s, files := checkServer(L), value.FromLuar[map[string][]byte](L, 2)
	return registered(L, s.srv.AddSkill(rmcp.Skill{Files: files, Name: L.OptString(3, "")}))
}
