package agent

import "github.com/luagent/luagent/runtime/approval"

// SetRules sets the host's permission rules (nil: none), decided before
// the policy with the agent's own (Config.Rules): luagent ask and chat
// set the user's, the project's and --allow / --deny on the agent they
// run.
func (a *Agent) SetRules(r approval.Rules) { a.approver.SetRules(r) }

// HostRules are the rules SetRules gave (nil: none): an agent made afresh
// from this one's Config (a served agent's call) is decided by them too.
func (a *Agent) HostRules() approval.Rules { return a.approver.HostRules() }

// Rule is the permission rule that matched a call (Call.Rule).
type Rule = approval.Rule
