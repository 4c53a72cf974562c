package agent

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/luagent/luagent/runtime/approval"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/permission"
)

// permissionsOf reads agent.new's permissions = {allow = {...}, ask =
// {...}, deny = {...}}: the agent's own rules (runtime/permission),
// decided before its policy with the host's (luagent ask's and chat's).
// nil or false: none.
func permissionsOf(v lua.LValue) (approval.Rules, error) {
	switch v.(type) {
	case *lua.LNilType, lua.LBool:
		if v == lua.LTrue {
			return nil, errs.New(errs.Invalid, "agent.new", `permissions must be a table {allow = {...}, ask = {...}, deny = {...}}`)
		}
		return nil, nil
	}
	t, ok := v.(*lua.LTable)
	if !ok {
		return nil, errs.Errorf(errs.Invalid, "agent.new", "permissions must be a table {allow = {...}, ask = {...}, deny = {...}}, not %s", v.Type())
	}
	var bad error
	t.ForEach(func(k, _ lua.LValue) {
		if s, ok := k.(lua.LString); !ok || (s != "allow" && s != "ask" && s != "deny") {
			bad = errs.Errorf(errs.Invalid, "agent.new", "permissions has %s: its lists are allow, ask and deny", lua.LVAsString(k))
		}
	})
	if bad != nil {
		return nil, bad
	}
	lists := map[string][]string{}
	for _, name := range []string{"allow", "ask", "deny"} {
		switch l := t.RawGetString(name).(type) {
		case *lua.LNilType:
		case *lua.LTable:
			for i := 1; i <= l.Len(); i++ {
				s, ok := l.RawGetInt(i).(lua.LString)
				if !ok {
					return nil, errs.Errorf(errs.Invalid, "agent.new", "permissions.%s[%d] must be a string (a pattern like fs__read_*)", name, i)
				}
				if err := permission.Check(string(s)); err != nil {
					return nil, errs.Errorf(errs.Invalid, "agent.new", "permissions.%s[%d]: %v", name, i, err)
				}
				lists[name] = append(lists[name], string(s))
			}
		default:
			return nil, errs.Errorf(errs.Invalid, "agent.new", "permissions.%s must be a list of patterns", name)
		}
	}
	r := &permission.Rules{}
	if err := r.Lists(lists["allow"], lists["ask"], lists["deny"], "agent.new"); err != nil {
		return nil, errs.Errorf(errs.Invalid, "agent.new", "%v", err)
	}
	return r, nil
}
