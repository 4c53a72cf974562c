package tui

import (
	"context"
	"fmt"

	ragent "github.com/luagent/luagent/runtime/agent"
	"github.com/luagent/luagent/runtime/approval"
	"github.com/luagent/luagent/runtime/chat"
	"github.com/luagent/luagent/runtime/permission"
	"github.com/luagent/luagent/runtime/project"
)

// Permission rules in a chat: the one question about a project folder's
// trust, the rules the session's agents get, and "always" answers saved
// as rules.

// permissionRules asks, once per folder, whether to trust a project whose
// file holds allow rules or hooks (on a terminal; a piped chat was told
// on stderr what was ignored), and returns the rules in force (nil: the
// chat has none).
func (t *chatTerm) permissionRules() (approval.Rules, error) {
	p := t.cfg.Perms
	if p == nil {
		return nil, nil
	}
	if t.tty && p.NeedsTrust() && !p.Declined() {
		t.say("This folder's %s holds %s written by whoever wrote the repository.", p.Shown(p.File.Path), trustWhat(p.File))
		line, err := t.ask("  trust " + p.File.Dir + "? (its allow rules and hooks apply from now on) [y/n] ")
		ans, _ := chat.ParseApproval(line)
		switch {
		case err != nil:
			// No answer (Ctrl-C, end of input): ignored this time only.
		case ans.Choice == chat.AllowOnce && !ans.Edit:
			if err := p.TrustProject(); err != nil {
				t.fail(err)
			} else {
				t.say("  trusted (luagent trust --remove %s undoes it)", p.File.Dir)
			}
		default:
			if err := p.DeclineProject(); err != nil {
				t.fail(err)
			}
		}
		if line := p.Ignored(); line != "" {
			fmt.Fprintf(t.errw, "luagent: %s\n", t.shown(line))
		}
	}
	r, err := p.Rules()
	if err != nil {
		return nil, err
	}
	return r, nil
}

func trustWhat(f *project.File) string {
	allow := f.Permissions != nil && len(f.Permissions.Allow) > 0
	hooks := len(f.Hooks) > 0 && string(f.Hooks) != "null"
	switch {
	case allow && hooks:
		return "allow rules and hooks (commands it runs)"
	case hooks:
		return "hooks (commands it runs)"
	}
	return "allow rules"
}

// alwaysChoices is the approval question's words for "always": where
// each answer saves its rule.
func (t *chatTerm) alwaysChoices(c ragent.Call) string {
	p := t.cfg.Perms
	if p == nil || c.Kind == ragent.KindSampling {
		return fmt.Sprintf("a = allow %s for this session", c.Tool)
	}
	user := p.Shown(p.SaveTo(project.SaveUser))
	if proj := p.SaveTo(project.SaveProject); proj != "" {
		return fmt.Sprintf("a = always (a rule in %s), u = always (in %s), s = this session only", p.Shown(proj), user)
	}
	return fmt.Sprintf("a = always (a rule in %s), s = this session only", user)
}

// saveAlways saves an "always" answer as an allow rule for the call's
// tool and says where; the call is allowed for the session whatever
// happens to the save.
func (t *chatTerm) saveAlways(ctx context.Context, c ragent.Call, ap chat.Approval) {
	p := t.cfg.Perms
	if p == nil || ap.Choice != chat.AllowAlways || c.Kind == ragent.KindSampling {
		return
	}
	where := project.SaveProject
	if ap.Where == approval.SaveUser {
		where = project.SaveUser
	}
	pattern := permission.ForTool(c)
	file, note, err := p.SaveAllow(ctx, where, pattern)
	if err != nil {
		t.fail(err)
		t.say("    allowed for this session only")
		return
	}
	t.say("    saved: allow %s in %s", pattern, file)
	if note != "" {
		t.say("    %s", note)
	}
}
