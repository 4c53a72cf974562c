package project

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/luagent/luagent/runtime/approval"
	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/permission"
)

// Setup is what luagent ask and chat know of the permission rules when
// they start: the user's config.json, the project file (if any) and
// whether its folder is trusted, and --allow / --deny.
type Setup struct {
	Home, Cwd string
	// User is the user's config.json (UserPath), loaded.
	User     *catalog.Config
	UserPath string
	// File is the project file (nil: none); Trusted says its folder is
	// trusted, so its allow rules apply.
	File    *File
	Trusted bool
	// Allow and Deny are --allow's and --deny's patterns.
	Allow, Deny []string
}

// NewSetup finds and loads cwd's project file and checks --allow and
// --deny: a project file or a pattern that is wrong is an error of kind
// invalid saying which and where.
func NewSetup(home, cwd string, user *catalog.Config, allow, deny []string) (*Setup, error) {
	s := &Setup{Home: home, Cwd: cwd, User: user, UserPath: catalog.Path(home), Allow: allow, Deny: deny}
	if p := Find(cwd); p != "" && !samePath(p, s.UserPath) {
		f, err := Load(p)
		if err != nil {
			return nil, err
		}
		s.File = f
		s.Trusted = Trusted(home, f.Dir)
	}
	if _, err := s.Rules(); err != nil {
		return nil, err
	}
	return s, nil
}

func samePath(a, b string) bool {
	ca, err1 := Clean(a)
	cb, err2 := Clean(b)
	return err1 == nil && err2 == nil && ca == cb
}

// NeedsTrust reports whether the project file holds allow rules or hooks
// that do not apply because its folder is not trusted.
func (s *Setup) NeedsTrust() bool { return s.File.Trustable() && !s.Trusted }

// Declined reports whether the user said no to trusting the project's
// folder when chat asked (chat asks once).
func (s *Setup) Declined() bool { return s.File != nil && Declined(s.Home, s.File.Dir) }

// TrustProject trusts the project's folder from now on (chat's yes).
func (s *Setup) TrustProject() error {
	if s.File == nil {
		return nil
	}
	if _, err := Trust(s.Home, s.File.Dir); err != nil {
		return err
	}
	s.Trusted = true
	return nil
}

// DeclineProject records chat's no, so it is not asked again.
func (s *Setup) DeclineProject() error {
	if s.File == nil {
		return nil
	}
	return Decline(s.Home, s.File.Dir)
}

// Ignored is the line that says what of the project file was ignored and
// how to trust its folder ("" when nothing was).
func (s *Setup) Ignored() string {
	if !s.NeedsTrust() {
		return ""
	}
	var what []string
	if s.File.Permissions != nil && len(s.File.Permissions.Allow) > 0 {
		what = append(what, "allow rules")
	}
	if len(s.File.Hooks) > 0 && string(s.File.Hooks) != "null" {
		what = append(what, "hooks")
	}
	return fmt.Sprintf("ignored the %s of %s: the folder is not trusted (luagent trust %s trusts it)",
		strings.Join(what, " and "), s.File.Path, quoteArg(s.File.Dir))
}

func quoteArg(s string) string {
	if strings.ContainsAny(s, " \t'\"$`\\!*?&;|<>()[]{}#~") {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return s
}

// Rules are the rules in force: the user's, the project's deny and ask
// rules (and its allow rules in a trusted folder), then --allow and
// --deny. Deny wins over allow, allow over ask, wherever each was written.
func (s *Setup) Rules() (*permission.Rules, error) {
	r := &permission.Rules{}
	if s.User != nil && s.User.Permissions != nil {
		p := s.User.Permissions
		if err := r.Lists(p.Allow, p.Ask, p.Deny, s.UserPath); err != nil {
			return nil, errs.Errorf(errs.Invalid, "permissions", "%s: %v", s.UserPath, err)
		}
	}
	if s.File != nil && s.File.Permissions != nil {
		p := s.File.Permissions
		var allow []string
		if s.Trusted {
			allow = p.Allow
		}
		if err := r.Lists(allow, p.Ask, p.Deny, s.File.Path); err != nil {
			return nil, errs.Errorf(errs.Invalid, "permissions", "%s: %v", s.File.Path, err)
		}
	}
	for _, f := range []struct {
		flag    string
		verdict approval.Decision
		list    []string
	}{{"--allow", approval.Allow, s.Allow}, {"--deny", approval.Deny, s.Deny}} {
		for _, p := range f.list {
			if err := r.Add(f.verdict, p, f.flag); err != nil {
				return nil, errs.Errorf(errs.Invalid, "permissions", "%s %s", f.flag, err)
			}
		}
	}
	return r, nil
}

// Where an "always allow" answer saves its rule.
const (
	SaveProject = "project" // the project's .luagent/config.json (made if needed)
	SaveUser    = "user"    // the user's config.json
)

// SaveTo is the file a rule saved to where goes to: the project's (""
// when cwd is in no project nor repository) or the user's.
func (s *Setup) SaveTo(where string) string {
	if where == SaveUser {
		return s.UserPath
	}
	if s.File != nil {
		return s.File.Path
	}
	if root := Root(s.Cwd); root != "" {
		return PathIn(root)
	}
	return ""
}

// SaveAllow adds pattern to the allow list of the file where names
// (SaveProject falls back to the user's outside a project), kept as it
// was around the change, and returns the file and a note to show. A rule
// saved to a project whose folder is not trusted trusts it — the person
// who chose to write the rule there is the one trusting it — unless the
// user said no to that folder before, or its file already held allow
// rules or hooks nobody agreed to.
func (s *Setup) SaveAllow(ctx context.Context, where, pattern string) (file, note string, err error) {
	file = s.SaveTo(where)
	if file == "" {
		file, where = s.UserPath, SaveUser
	}
	err = catalog.Update(ctx, file, func(c *catalog.Config) error {
		_, err := c.AddAllow(pattern)
		return err
	})
	if err != nil {
		return file, "", err
	}
	if where == SaveUser {
		return file, "", nil
	}
	dir := filepath.Dir(filepath.Dir(file))
	switch {
	case Trusted(s.Home, dir):
	case Declined(s.Home, dir) || s.NeedsTrust():
		note = "the folder is not trusted, so its allow rules apply only after: luagent trust " + quoteArg(dir)
	default:
		if _, err := Trust(s.Home, dir); err != nil {
			return file, "", err
		}
		note = "trusted " + dir + " (luagent trust --remove " + quoteArg(dir) + " undoes it)"
	}
	return file, note, nil
}

// Shown is path as a prompt shows it: relative to the working folder
// when inside it, with ~ for the home folder.
func (s *Setup) Shown(path string) string {
	if rel, err := filepath.Rel(s.Cwd, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		if rel, err := filepath.Rel(home, path); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.Join("~", rel)
		}
	}
	return path
}
