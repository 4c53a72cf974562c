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
	c, ignored, err = f.hooks(func() bool { return Trusted(home, f.Dir) })
	return c, f.Dir, ignored, err
}

// Hooks are the project file's hooks when its folder is trusted (ignored:
// it has hooks, and the folder is not), read from the setup's file.
func (s *Setup) Hooks() (c hooks.Config, ignored bool, err error) {
	if s.File == nil {
		return hooks.Config{}, false, nil
	}
	return s.File.hooks(func() bool { return s.Trusted })
}

// hooks parses f's hooks when trusted() says its folder is trusted
// (asked only when it has some).
func (f *File) hooks(trusted func() bool) (hooks.Config, bool, error) {
	if len(f.Hooks) == 0 || string(f.Hooks) == "null" {
		return hooks.Config{}, false, nil
	}
	if !trusted() {
		return hooks.Config{}, true, nil
	}
	c, problems := hooks.Parse(f.Hooks, f.Path)
	if len(problems) > 0 {
		return hooks.Config{}, false, errs.Errorf(errs.Invalid, "project", "%s: %s; fix the project's hooks", f.Path, problems[0])
	}
	return c, false, nil
}
