package approval

import (
	"context"
	"testing"
)

func TestHintAndPermissionHook(t *testing.T) {
	allow := func(context.Context, Call) (Decision, string) { return Allow, "policy allows" }
	deny := func(context.Context, Call) (Decision, string) { return Deny, "policy denies" }
	bg := context.Background()
	w := Call{Kind: KindMCP, Name: "fs__write"}
	// allow runs what the policy asks about; the policy's deny stands.
	if d, r := New(nil, nil, false).Decide(WithHint(bg, Allow, "hook ok"), w); d != Allow || r != "hook ok" {
		t.Errorf("allow hint: %s %q", d, r)
	}
	if d, _ := New(deny, nil, false).Decide(WithHint(bg, Allow, "hook ok"), w); d != Deny {
		t.Errorf("allow hint over a deny: %s", d)
	}
	// ask asks about what the policy allows.
	if d, r := New(allow, nil, false).Decide(WithHint(bg, Ask, "hook wants a person"), w); d != Deny || r != NoApproverReason {
		t.Errorf("ask hint: %s %q", d, r)
	}
	// The permission hook answers before the person, --yes or the denial.
	var asked string
	ap := New(nil, func(context.Context, Call) (Decision, string) { return Allow, "person" }, true)
	ap.SetPermissionHook(func(_ context.Context, c Call, reason string) (Decision, string) {
		asked = reason
		return Deny, "hook says no"
	})
	if d, r := ap.Decide(bg, w); d != Deny || r != "hook says no" || asked != "the tool is not marked readOnlyHint" {
		t.Errorf("permission hook: %s %q (asked with %q)", d, r, asked)
	}
	ap.SetPermissionHook(func(context.Context, Call, string) (Decision, string) { return "", "" })
	if d, r := ap.Decide(bg, w); d != Allow || r != "allowed by --yes (the tool is not marked readOnlyHint)" {
		t.Errorf("no answer from the hook: %s %q", d, r)
	}
}

// A sampling request a server makes during an allowed call is its own
// question: the call's hint and the permission hook do not answer it.
func TestHintSkipsSampling(t *testing.T) {
	ap := New(nil, nil, false)
	ap.SetPermissionHook(func(context.Context, Call, string) (Decision, string) { return Allow, "hook" })
	if d, r := ap.Decide(WithHint(context.Background(), Allow, "hook ok"), Call{Kind: KindSampling}); d != Deny || r != NoApproverReason {
		t.Errorf("%s %q", d, r)
	}
}
