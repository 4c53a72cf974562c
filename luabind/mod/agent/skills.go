package agent

import (
	"os"

	lua "github.com/yuin/gopher-lua"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/hub"
	"github.com/luagent/luagent/runtime/skills"
)

// skillSource reads agent.new's skills option: true or nil (the default)
// offers the local skills (Home/skills, then the working directory's
// .luagent/skills) and the hub's servers'; false none; a list of names
// only those (a server's by SERVER__NAME or by its own name).
func (m *module) skillSource(v lua.LValue, h *hub.Hub) (skills.Source, error) {
	var names []string
	switch v := v.(type) {
	case *lua.LNilType:
	case lua.LBool:
		if !v {
			return nil, nil
		}
	case *lua.LTable:
		names = []string{}
		for i := 1; i <= v.Len(); i++ {
			s, ok := v.RawGetInt(i).(lua.LString)
			if !ok {
				return nil, errs.Errorf(errs.Invalid, "agent.new", "skills[%d] must be a skill's name, not %s", i, v.RawGetInt(i).Type())
			}
			names = append(names, string(s))
		}
	default:
		return nil, errs.Errorf(errs.Invalid, "agent.new", "skills must be true, false or a list of skill names, not %s", v.Type())
	}
	project, _ := os.Getwd()
	src := []skills.Source{&skills.Local{Dirs: skills.LocalDirs(m.cfg.Home, project)}}
	if h != nil {
		src = append(src, h.SkillSource())
	}
	all := skills.Join(src...)
	if names != nil {
		return skills.Only(all, names), nil
	}
	return all, nil
}
