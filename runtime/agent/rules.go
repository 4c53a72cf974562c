package agent

import (
	"context"

	"github.com/luagent/luagent/runtime/approval"
)

// SetRules sets the host's permission rules (nil: none), decided before
// the policy with the agent's own (Config.Rules): luagent ask and chat
// set the user's, the project's and --allow / --deny on the agent they
// run.
func (a *Agent) SetRules(r approval.Rules) { a.approver.SetRules(r) }

// HostRules are the rules SetRules gave (nil: none): an agent made afresh
// from this one's Config (a served agent's call) is decided by them too.
func (a *Agent) HostRules() approval.Rules { return a.approver.HostRules() }

type callerRulesKey struct{}

// CallerRules are the host rules of the agent whose local tool ctx runs
// for (nil: none): an agent asked as a tool (agents = {...}) is decided
// by its caller's rules, --deny and a session's project included.
func CallerRules(ctx context.Context) approval.Rules {
	r, _ := ctx.Value(callerRulesKey{}).(approval.Rules)
	return r
}

// Rule is the permission rule that matched a call (Call.Rule).
type Rule = approval.Rule
