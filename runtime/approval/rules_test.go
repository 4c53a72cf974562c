package approval

import (
	"context"
	"testing"
)

// fixedRules match every call with one rule.
type fixedRules struct{ r *Rule }

func (f fixedRules) Match(Call) (Rule, bool) {
	if f.r == nil {
		return Rule{}, false
	}
	return *f.r, true
}

// The rules are decided before the policy, which sees the rule and may
// still refuse: a deny rule never reaches the policy, an allow rule allows
// what the policy would ask about, an ask rule asks about what the policy
// would allow, and the policy's deny stands.
func TestRulesBeforeThePolicy(t *testing.T) {
	rule := func(v Decision) *Rule { return &Rule{Verdict: v, Pattern: "s__w", Source: "test"} }
	policy := func(d Decision) Policy {
		return func(_ context.Context, c Call) (Decision, string) { return d, "the policy" }
	}
	person := func(context.Context, Call) (Decision, string) { return Allow, "the person" }
	for _, tt := range []struct {
		name    string
		rule    *Rule
		policy  Policy
		ask     Policy
		yes     bool
		want    Decision
		because string
	}{
		{"deny rule", rule(Deny), policy(Allow), person, true, Deny, "denied by the rule s__w (test)"},
		{"allow rule, policy asks", rule(Allow), nil, nil, false, Allow, "allowed by the rule s__w (test)"},
		{"allow rule, policy allows", rule(Allow), policy(Allow), nil, false, Allow, "allowed by the rule s__w (test)"},
		{"allow rule, policy refuses", rule(Allow), policy(Deny), nil, false, Deny, "the policy"},
		{"ask rule, policy allows, nobody to ask", rule(Ask), policy(Allow), nil, false, Deny, NoApproverReason},
		{"ask rule, the person allows", rule(Ask), policy(Allow), person, false, Allow, "the person"},
		{"ask rule, --yes", rule(Ask), policy(Allow), nil, true, Allow, "allowed by --yes (the rule s__w (test) asks)"},
		{"ask rule, policy refuses", rule(Ask), policy(Deny), person, false, Deny, "the policy"},
		{"no rule", nil, policy(Allow), nil, false, Allow, "the policy"},
	} {
		var seen *Rule
		p := tt.policy
		if p == nil {
			p = Default
		}
		spy := func(ctx context.Context, c Call) (Decision, string) {
			seen = c.Rule
			return p(ctx, c)
		}
		a := New(spy, tt.ask, tt.yes)
		a.SetRules(fixedRules{tt.rule})
		d, reason := a.Decide(context.Background(), Call{Kind: KindMCP, Name: "s__w"})
		if d != tt.want || reason != tt.because {
			t.Errorf("%s: %s %q, want %s %q", tt.name, d, reason, tt.want, tt.because)
		}
		if tt.rule != nil && tt.rule.Verdict != Deny && (seen == nil || *seen != *tt.rule) {
			t.Errorf("%s: the policy saw the rule %+v", tt.name, seen)
		}
	}
}

// The agent's own rules and the host's are decided together: deny over
// allow over ask, whichever holds it; sampling matches none.
func TestOwnAndHostRules(t *testing.T) {
	a := New(nil, nil, false).WithRules(fixedRules{&Rule{Verdict: Ask, Pattern: "*"}})
	if r := a.Match(Call{Name: "x"}); r == nil || r.Verdict != Ask {
		t.Fatalf("own rule: %+v", r)
	}
	a.SetRules(fixedRules{&Rule{Verdict: Allow, Pattern: "x"}})
	if r := a.Match(Call{Name: "x"}); r == nil || r.Verdict != Allow {
		t.Fatalf("host allow over own ask: %+v", r)
	}
	a.SetRules(nil)
	if r := a.Match(Call{Name: "x", Kind: KindSampling}); r != nil {
		t.Fatalf("sampling matched %+v", r)
	}
}
