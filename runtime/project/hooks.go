package project

import (
	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/hooks"
)

// Hooks are the hooks cwd's project file adds to the user's: its "hooks"
// member, read as config.json's is, only when its folder is trusted (they
// are commands whoever wrote the repository chose). ignored says the file
// has hooks a folder not trusted leaves out. dir is the project's folder
// ("" without a project file): the hooks' CLAUDE_PROJECT_DIR.
func Hooks(home, cwd string) (c hooks.Config, dir string, ignored bool, err error) {
	p := Find(cwd)
	if p == "" || samePath(p, catalog.Path(home)) {
		return hooks.Config{}, "", false, nil
	}
	f, err := Load(p)
	if err != nil {
		return hooks.Config{}, "", false, err
	}
	if len(f.Hooks) == 0 || string(f.Hooks) == "null" {
		return hooks.Config{}, f.Dir, false, nil
	}
	if !Trusted(home, f.Dir) {
		return hooks.Config{}, f.Dir, true, nil
	}
	c, problems := hooks.Parse(f.Hooks, p)
	if len(problems) > 0 {
		return hooks.Config{}, f.Dir, false, errs.Errorf(errs.Invalid, "project", "%s: %s; fix the project's hooks", p, problems[0])
	}
	return c, f.Dir, false, nil
}
