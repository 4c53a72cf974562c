package mcp

import (
	"context"
	"encoding/json"

	lua "github.com/yuin/gopher-lua"

	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/luabind/value"
	"github.com/luagent/luagent/runtime/skills"
)

// Skills from Lua (the skills extension, through runtime/skills):
//
//	for _, s in ipairs(conn:skills()) do print(s.name, s.description) end
//	local body, files = conn:load_skill("pdf-processing")  -- nil, err when refused
//	local text = conn:read_skill_file("pdf-processing", "references/FORMS.md")
//	for _, s in ipairs(hub:skills()) do print(s.name) end   -- SERVER__NAME
//
// Listing reads no skill file; load_skill reads SKILL.md and verifies it
// against the listing (size, digest, front matter); read_skill_file reads
// a loaded skill's file, verified too. A failure of either returns nil
// and the error (kind integrity for content that failed its check).

// skillMethods adds the connections' skill methods.
func (m *module) skillMethods(methods *lua.LTable) {
	for name, fn := range map[string]func(*lua.LState) sched.Start{
		"skills":          m.readSkills,
		"load_skill":      m.readLoadSkill,
		"read_skill_file": m.readSkillFile,
	} {
		methods.RawSetString(name, m.lp.Async("conn:"+name, fn))
	}
}

// hubSkillMethods adds the hub's skill methods.
func (m *module) hubSkillMethods(methods *lua.LTable) {
	methods.RawSetString("skills", m.lp.L.NewFunction(m.hubSkills))
	methods.RawSetString("load_skill", m.lp.Async("hub:load_skill", m.hubLoadSkill))
	methods.RawSetString("read_skill_file", m.lp.Async("hub:read_skill_file", m.hubReadSkillFile))
}

// remote is the connection's skills (made on first use).
func (c *conn) remote() *skills.Remote {
	c.skillsOnce.Do(func() { c.skills = skills.NewRemote(c.name, c.c) })
	return c.skills
}

// orError completes a wait with the values f makes, or nil and the error.
func orError(err error, f func(L *lua.LState) []lua.LValue) sched.Completion {
	return func(L *lua.LState) ([]lua.LValue, error) {
		if err != nil {
			return []lua.LValue{lua.LNil, sched.ErrorValueOf(L, err)}, nil
		}
		return f(L), nil
	}
}

func stringsTable(L *lua.LState, list []string) *lua.LTable {
	t := L.CreateTable(len(list), 0)
	for i, s := range list {
		t.RawSetInt(i+1, lua.LString(s))
	}
	return value.MarkArray(t)
}

// skillTable is a listed skill as Lua sees it: {name, uri, description,
// frontmatter, resources = {{uri, digest, size}, ...} | "dynamic"}.
func skillTable(L *lua.LState, e skills.Entry) *lua.LTable {
	t := L.CreateTable(0, 6)
	t.RawSetString("name", lua.LString(e.Name))
	t.RawSetString("uri", lua.LString(e.URI))
	t.RawSetString("description", lua.LString(e.Description))
	var w struct {
		Frontmatter json.RawMessage `json:"frontmatter"`
		Resources   json.RawMessage `json:"resources"`
	}
	json.Unmarshal(e.Raw, &w)
	for k, raw := range map[string]json.RawMessage{"frontmatter": w.Frontmatter, "resources": w.Resources} {
		if v, err := value.Decode(L, raw); err == nil {
			t.RawSetString(k, v)
		}
	}
	return t
}

// conn:skills() -> skills, problems (the entries left out, one line each)
func (m *module) readSkills(L *lua.LState) sched.Start {
	c := m.check(L, 1)
	return goDo(func(ctx context.Context) sched.Completion {
		entries, problems, err := c.remote().List(ctx)
		if err != nil {
			return fail(err)
		}
		return func(L *lua.LState) ([]lua.LValue, error) {
			t := L.CreateTable(len(entries), 0)
			for i, e := range entries {
				t.RawSetInt(i+1, skillTable(L, e))
			}
			lines := make([]string, len(problems))
			for i, p := range problems {
				lines[i] = p.String()
			}
			return []lua.LValue{value.MarkArray(t), stringsTable(L, lines)}, nil
		}
	})
}

// conn:load_skill(name_or_uri) -> body, files | nil, err
func (m *module) readLoadSkill(L *lua.LState) sched.Start {
	c := m.check(L, 1)
	name := L.CheckString(2)
	return goDo(func(ctx context.Context) sched.Completion {
		r := c.remote()
		e, err := r.Resolve(ctx, name)
		var l *skills.Loaded
		if err == nil {
			l, err = r.Load(ctx, e)
		}
		return orError(err, func(L *lua.LState) []lua.LValue { return loadedValues(L, l) })
	})
}

// conn:read_skill_file(name_or_uri, path_or_uri) -> content, mime_type | nil, err
func (m *module) readSkillFile(L *lua.LState) sched.Start {
	c := m.check(L, 1)
	name, path := L.CheckString(2), L.CheckString(3)
	return goDo(func(ctx context.Context) sched.Completion {
		r := c.remote()
		e, err := r.Resolve(ctx, name)
		var f *skills.File
		if err == nil {
			f, err = r.ReadFile(ctx, e, path)
		}
		return orError(err, func(L *lua.LState) []lua.LValue { return fileValues(f) })
	})
}

func loadedValues(L *lua.LState, l *skills.Loaded) []lua.LValue {
	return []lua.LValue{lua.LString(l.Body), stringsTable(L, l.Files)}
}

// fileValues is a file's content (text, or the bytes of a blob) and its
// MIME type.
func fileValues(f *skills.File) []lua.LValue {
	content := f.Text
	if f.Blob != nil {
		content = string(f.Blob)
	}
	return []lua.LValue{lua.LString(content), lua.LString(f.MIMEType)}
}

// hub:skills() -> {{name (SERVER__NAME), server, skill, description, uri}, ...}
func (m *module) hubSkills(L *lua.LState) int {
	all := m.checkHub(L).h.Skills()
	t := L.CreateTable(len(all), 0)
	for i, sk := range all {
		st := skillTable(L, sk.Entry)
		st.RawSetString("name", lua.LString(sk.Name))
		st.RawSetString("server", lua.LString(sk.Server))
		st.RawSetString("skill", lua.LString(sk.Skill))
		t.RawSetInt(i+1, st)
	}
	L.Push(value.MarkArray(t))
	return 1
}

// hub:load_skill(name) -> body, files | nil, err
func (m *module) hubLoadSkill(L *lua.LState) sched.Start {
	hb := m.checkHub(L)
	name := L.CheckString(2)
	return goDo(func(ctx context.Context) sched.Completion {
		l, err := hb.h.LoadSkill(ctx, name)
		return orError(err, func(L *lua.LState) []lua.LValue { return loadedValues(L, l) })
	})
}

// hub:read_skill_file(name, path) -> content, mime_type | nil, err
func (m *module) hubReadSkillFile(L *lua.LState) sched.Start {
	hb := m.checkHub(L)
	name, path := L.CheckString(2), L.CheckString(3)
	return goDo(func(ctx context.Context) sched.Completion {
		f, err := hb.h.ReadSkillFile(ctx, name, path)
		return orError(err, func(L *lua.LState) []lua.LValue { return fileValues(f) })
	})
}
