package approval

import "context"

// A PreToolUse hook may say how a call is to be decided (Claude Code's
// permissionDecision): "allow" runs a call the policy would ask about
// without asking, "ask" asks a person about a call the policy allows; the
// policy's Deny always stands ("deny" never reaches the approver: the
// hook blocks the call before). A PermissionRequest hook answers in the
// person's place when a call would be asked about.

type hintKey struct{}

type hint struct {
	d      Decision
	reason string
}

// WithHint returns ctx carrying a hook's decision for the call decided
// under it: Allow or Ask (anything else is no hint).
func WithHint(ctx context.Context, d Decision, reason string) context.Context {
	return context.WithValue(ctx, hintKey{}, hint{d, reason})
}

// PermissionHook answers for the person when a call would be asked about:
// Allow or Deny with a reason, or anything else to leave the question to
// the person (or --yes, or the denial when nobody can be asked). reason is
// the policy's.
type PermissionHook func(ctx context.Context, c Call, reason string) (Decision, string)

// SetPermissionHook sets (nil: removes) the hook asked before a person.
func (a *Approver) SetPermissionHook(h PermissionHook) {
	if h == nil {
		a.perm.Store(nil)
		return
	}
	a.perm.Store(&h)
}

// hinted applies the call's hint and the permission hook to the policy's
// answer d.
func (a *Approver) hinted(ctx context.Context, c Call, d Decision, reason string) (Decision, string) {
	if c.Kind == KindSampling {
		return d, reason // a server's request, not the tool call it came during
	}
	if h, ok := ctx.Value(hintKey{}).(hint); ok {
		switch {
		case h.d == Allow && d == Ask:
			d, reason = Allow, h.reason
		case h.d == Ask && d == Allow:
			d, reason = Ask, h.reason
		}
	}
	if d != Ask {
		return d, reason
	}
	if p := a.perm.Load(); p != nil {
		if hd, hr := (*p)(ctx, c, reason); hd == Allow || hd == Deny {
			return hd, hr
		}
	}
	return d, reason
}
