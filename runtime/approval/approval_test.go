package approval

import (
	"context"
	"testing"
)

func TestDefault(t *testing.T) {
	yes, no := true, false
	for _, tt := range []struct {
		name string
		c    Call
		want Decision
	}{
		{"read-only", Call{Kind: KindMCP, ReadOnly: true, Annotations: &Annotations{ReadOnlyHint: &yes}}, Allow},
		{"not read-only", Call{Kind: KindMCP, Annotations: &Annotations{ReadOnlyHint: &no}}, Ask},
		{"no annotations", Call{Kind: KindLocal}, Ask},
		{"sampling", Call{Kind: KindSampling, ReadOnly: true}, Ask},
	} {
		if d, _ := Default(context.Background(), tt.c); d != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, d, tt.want)
		}
	}
}

func TestApproverDecide(t *testing.T) {
	ask := func(d Decision) Policy {
		return func(context.Context, Call) (Decision, string) { return d, "the person" }
	}
	for _, tt := range []struct {
		name    string
		policy  Policy
		ask     Policy
		yes     bool
		want    Decision
		because string
	}{
		{"nobody to ask", nil, nil, false, Deny, NoApproverReason},
		{"yes", nil, nil, true, Allow, "allowed by --yes (the tool is not marked readOnlyHint)"},
		{"the person allows", nil, ask(Allow), false, Allow, "the person"},
		{"the person does not decide", nil, ask(Ask), false, Deny, "the person asked did not decide"},
		{"a policy's odd answer", ask("maybe"), nil, false, Deny, `the policy answered "maybe" (not allow, deny or ask)`},
	} {
		d, reason := New(tt.policy, tt.ask, tt.yes).Decide(context.Background(), Call{Kind: KindMCP, Name: "w"})
		if d != tt.want || reason != tt.because {
			t.Errorf("%s: %s %q, want %s %q", tt.name, d, reason, tt.want, tt.because)
		}
	}
}

// "a" allows the tool for the session: the next call to it is not asked;
// another tool is.
func TestPersonRemembersTheSession(t *testing.T) {
	var asked []string
	answers := []Answer{{Choice: AllowSession}, {Choice: Refuse, Reason: "not that"}}
	p := NewPerson(func(_ context.Context, c Call) Answer {
		asked = append(asked, c.Tool)
		a := answers[0]
		answers = answers[1:]
		return a
	})
	w := Call{Server: "s", Tool: "write", Kind: KindMCP}
	ctx := context.Background()
	for i, want := range []string{"allowed by the user for this session", "allowed for this session"} {
		if d, r, _ := p.Decide(ctx, w); d != Allow || r != want {
			t.Errorf("call %d: %s %q", i, d, r)
		}
	}
	if d, r, _ := p.Decide(ctx, Call{Server: "s", Tool: "delete", Kind: KindMCP}); d != Deny || r != "denied by the user: not that" {
		t.Errorf("another tool: %s %q", d, r)
	}
	if len(asked) != 2 {
		t.Errorf("asked %q", asked)
	}
}
