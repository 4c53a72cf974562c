package catalog

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/luagent/luagent/runtime/permission"
)

// Permissions is the top-level "permissions" member: rules over the
// tools' qualified names (runtime/permission has the pattern syntax),
// decided before an agent's policy. Deny wins over allow, allow over ask.
//
//	"permissions": {
//	  "allow": ["fs__read_*", "fs__write_file(path:/tmp/*)"],
//	  "ask":   ["*"],
//	  "deny":  ["mcp__github__delete_repo"] }
//
// Other members (Claude Code's defaultMode, ...) are kept as written and
// mean nothing to luagent.
type Permissions struct {
	Allow, Ask, Deny []string

	extra members
	read  *Permissions
	raw   map[string]json.RawMessage
}

// Empty reports whether p has no rule.
func (p *Permissions) Empty() bool {
	return p == nil || len(p.Allow)+len(p.Ask)+len(p.Deny) == 0
}

// Rules are p's rules, parsed, with source as their origin (the file's
// path). A pattern that does not parse is an error naming it
// (permissions.allow[2]); Validate has already said so for a loaded file.
func (p *Permissions) Rules(source string) (*permission.Rules, error) {
	r := &permission.Rules{}
	if p == nil {
		return r, nil
	}
	return r, r.Lists(p.Allow, p.Ask, p.Deny, source)
}

// AddAllow adds pattern to the allow list, unless it is already there
// (false then). Update saves it with the rest of the file as it was.
func (c *Config) AddAllow(pattern string) (bool, error) {
	if err := permission.Check(pattern); err != nil {
		return false, fmt.Errorf("permissions.allow: %v", err)
	}
	if c.Permissions == nil {
		c.Permissions = &Permissions{}
	}
	if slices.Contains(c.Permissions.Allow, pattern) {
		return false, nil
	}
	c.Permissions.Allow = append(c.Permissions.Allow, pattern)
	return true, nil
}

// Member is the top-level member name as read, known or not (nil when the
// file has none): the hooks package reads "hooks" from a project file
// this way.
func (c *Config) Member(name string) json.RawMessage {
	if v, ok := c.raw[name]; ok {
		return v
	}
	return c.extra.values[name]
}

func parsePermissions(raw json.RawMessage, p *problems) *Permissions {
	if isNull(raw) {
		return nil
	}
	ms, ok := objectMembers(raw)
	if !ok {
		p.add("permissions", `must be an object of rule lists: {"allow": ["fs__read_*"], "ask": [], "deny": []}`)
		return nil
	}
	out := &Permissions{raw: map[string]json.RawMessage{}}
	eachField(ms, "permissions", p, out.raw, &out.extra, func(m member, fp string) bool {
		switch m.name {
		case "allow":
			out.Allow = strList(m.val, fp, p)
		case "ask":
			out.Ask = strList(m.val, fp, p)
		case "deny":
			out.Deny = strList(m.val, fp, p)
		default:
			return false
		}
		return true
	})
	out.read = &Permissions{Allow: cloneList(out.Allow), Ask: cloneList(out.Ask), Deny: cloneList(out.Deny)}
	return out
}

// validatePermissions names every pattern that does not parse, by its
// path: permissions.allow[2]: "fs x": a tool name has ...
func (c *Config) validatePermissions(p *problems) {
	if c.Permissions == nil {
		return
	}
	for _, l := range []struct {
		name string
		list []string
	}{{"allow", c.Permissions.Allow}, {"ask", c.Permissions.Ask}, {"deny", c.Permissions.Deny}} {
		for i, pat := range l.list {
			if err := permission.Check(pat); err != nil {
				p.add(fmt.Sprintf("permissions.%s[%d]", l.name, i), err.Error())
			}
		}
	}
}

// permissionsEntries is the member as read when unchanged, else written
// anew (its unknown members kept); nothing when there is none.
func (c *Config) permissionsEntries() []entry {
	ps := c.Permissions
	if ps == nil {
		if raw, ok := c.raw["permissions"]; ok && isNull(raw) {
			return []entry{{"permissions", node{raw: raw}}}
		}
		return nil
	}
	raw, read := c.raw["permissions"]
	if read && ps.read != nil && listEqual(ps.read.Allow, ps.Allow) && listEqual(ps.read.Ask, ps.Ask) && listEqual(ps.read.Deny, ps.Deny) {
		return []entry{{"permissions", node{raw: raw}}}
	}
	var ms []entry
	add := func(name string, l, was []string) {
		if r, ok := ps.raw[name]; ok && ps.read != nil && listEqual(l, was) {
			ms = append(ms, entry{name, node{raw: r}})
			return
		}
		if l != nil {
			ms = append(ms, entry{name, list(l)})
		}
	}
	was := ps.read
	if was == nil {
		was = &Permissions{}
	}
	add("allow", ps.Allow, was.Allow)
	add("ask", ps.Ask, was.Ask)
	add("deny", ps.Deny, was.Deny)
	return []entry{{"permissions", node{obj: true, members: appendExtra(ms, ps.extra)}}}
}
