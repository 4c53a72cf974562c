package permission

import (
	"fmt"

	"github.com/luagent/luagent/runtime/approval"
)

// Rules is a set of rules: the user's, a project's, the command line's,
// in the order added. It is an approval.Rules; its zero value has none.
// It is not changed once handed to an agent (Add before).
type Rules struct {
	list []rule
}

type rule struct {
	verdict approval.Decision
	source  string
	p       Pattern
}

var _ approval.Rules = (*Rules)(nil)

// Add parses pattern and adds it to the list verdict names (approval.Allow,
// Ask or Deny), as written in source (a file's path, "--allow").
func (r *Rules) Add(verdict approval.Decision, pattern, source string) error {
	switch verdict {
	case approval.Allow, approval.Ask, approval.Deny:
	default:
		return fmt.Errorf("no rule list %q (allow, ask or deny)", verdict)
	}
	p, err := Parse(pattern)
	if err != nil {
		return err
	}
	r.list = append(r.list, rule{verdict: verdict, source: source, p: p})
	return nil
}

// Lists adds the three lists of one source (config.json's
// permissions.allow, .ask, .deny); the first bad pattern is an error
// naming it, like permissions.allow[2] (0-based, as JSON paths are).
func (r *Rules) Lists(allow, ask, deny []string, source string) error {
	for _, l := range []struct {
		verdict approval.Decision
		list    []string
	}{{approval.Allow, allow}, {approval.Ask, ask}, {approval.Deny, deny}} {
		for i, p := range l.list {
			if err := r.Add(l.verdict, p, source); err != nil {
				return fmt.Errorf("permissions.%s[%d]: %v", l.verdict, i, err)
			}
		}
	}
	return nil
}

// Len is the number of rules.
func (r *Rules) Len() int {
	if r == nil {
		return 0
	}
	return len(r.list)
}

// Match is the rule the call matches: the first deny rule that does, else
// the first allow rule, else the first ask rule. The name matched is the
// call's qualified name (server__tool), or its name for a local or meta
// tool. A server's sampling request matches no rule.
func (r *Rules) Match(c approval.Call) (approval.Rule, bool) {
	if r == nil || c.Kind == approval.KindSampling {
		return approval.Rule{}, false
	}
	name := c.Qualified
	if name == "" {
		name = c.Name
	}
	var found *rule
	for i := range r.list {
		x := &r.list[i]
		if found != nil && rank(x.verdict) <= rank(found.verdict) {
			continue
		}
		if x.p.Match(name, c.Arguments) {
			found = x
			if x.verdict == approval.Deny {
				break
			}
		}
	}
	if found == nil {
		return approval.Rule{}, false
	}
	return approval.Rule{Verdict: found.verdict, Pattern: found.p.text, Source: found.source}, true
}

func rank(d approval.Decision) int {
	switch d {
	case approval.Deny:
		return 3
	case approval.Allow:
		return 2
	}
	return 1
}

// Join is a and b's rules together (either may be nil).
func Join(a, b *Rules) *Rules {
	out := &Rules{}
	if a != nil {
		out.list = append(out.list, a.list...)
	}
	if b != nil {
		out.list = append(out.list, b.list...)
	}
	return out
}

// Check parses pattern and returns its error, for a validator.
func Check(pattern string) error {
	_, err := Parse(pattern)
	return err
}

// ForTool is the pattern that allows exactly one tool, as chat's "always"
// answer saves it: the qualified name (server__tool), or a local tool's
// name.
func ForTool(c approval.Call) string {
	if c.Qualified != "" {
		return c.Qualified
	}
	return c.Name
}
