package approval

// Permission rules, as the approver sees them: runtime/permission parses
// and matches them (config.json's "permissions", --allow, --deny); the
// approver decides them before the policy.

// Rule is the permission rule that matched a call.
type Rule struct {
	// Verdict is the rule's list: Allow, Ask or Deny.
	Verdict Decision `json:"verdict"`
	// Pattern is the rule as written ("fs__write_file(path:/tmp/*)").
	Pattern string `json:"pattern"`
	// Source says where it was written: a config.json's path, or
	// "--allow" / "--deny".
	Source string `json:"source"`
}

// String is the rule as reasons name it: `fs__* (--allow)`.
func (r Rule) String() string {
	if r.Source == "" {
		return r.Pattern
	}
	return r.Pattern + " (" + r.Source + ")"
}

// Rules decide which rule, if any, a call matches: a deny rule before an
// allow rule, an allow rule before an ask rule. A server's sampling
// request matches none.
type Rules interface {
	Match(c Call) (Rule, bool)
}

type rulesBox struct{ r Rules }

// WithRules gives the approver rules of its own (an agent's), decided with
// the host's (SetRules).
func (a *Approver) WithRules(r Rules) *Approver {
	a.own = r
	return a
}

// SetRules replaces the host's rules (nil: none): ask and chat set the
// user's, the project's and the command line's on the agent they run.
func (a *Approver) SetRules(r Rules) {
	if r == nil {
		a.host.Store(nil)
		return
	}
	a.host.Store(&rulesBox{r})
}

// HostRules are the rules SetRules gave (nil: none).
func (a *Approver) HostRules() Rules {
	if b := a.host.Load(); b != nil {
		return b.r
	}
	return nil
}

// Match is the rule a call matches (nil: none): of the agent's own rules
// and the host's, a deny wins over an allow, an allow over an ask.
func (a *Approver) Match(c Call) *Rule {
	if c.Kind == KindSampling {
		return nil
	}
	var best *Rule
	try := func(r Rules) {
		if r == nil {
			return
		}
		if m, ok := r.Match(c); ok && (best == nil || rank(m.Verdict) > rank(best.Verdict)) {
			best = &m
		}
	}
	try(a.own)
	if b := a.host.Load(); b != nil {
		try(b.r)
	}
	return best
}

func rank(d Decision) int {
	switch d {
	case Deny:
		return 3
	case Allow:
		return 2
	case Ask:
		return 1
	}
	return 0
}

// combine is the rule's verdict with the policy's answer: the policy's
// Deny (or an answer that is none of the three) stands; otherwise an allow
// rule allows and an ask rule asks, whatever the policy said; with no rule
// the policy's answer stands. (A deny rule never reaches the policy.)
func combine(r *Rule, d Decision, reason string) (Decision, string) {
	if r == nil || d == Deny || (d != Allow && d != Ask) {
		return d, reason
	}
	switch r.Verdict {
	case Allow:
		return Allow, "allowed by the rule " + r.String()
	case Ask:
		return Ask, "the rule " + r.String() + " asks"
	}
	return d, reason
}
