// Package approval is luagent's one approval module: the request a policy
// judges (Call), its answer (Decision), the one default policy (Default),
// the mechanism that turns a policy's Ask into a person's answer, --yes or
// a denial (Approver), a person's answers as a chat reads them (Answer,
// ParseAnswer, Person), and the clock that keeps a person's time out of a
// tool call's duration (Asking, StartCall). It knows nothing of Lua or of a
// terminal: runtime/agent runs it for every call and sampling request;
// luabind adapts Lua policies to Policy and gives Lua agent.default_policy
// as Default; chat's UI answers through Person.
//
//	ap := approval.New(nil, nil, false) // Default, nobody to ask, no --yes
//	d, reason := ap.Decide(ctx, c)      // Deny, NoApproverReason for a write
package approval

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
)

// Decision is a policy's answer.
type Decision string

// The decisions.
const (
	Allow Decision = "allow"
	Deny  Decision = "deny"
	Ask   Decision = "ask" // ask a person, or deny if nobody can answer
)

// Where the tool of a Call lives (Call.Kind).
const (
	KindMCP   = "mcp"   // a hub server's tool
	KindLocal = "local" // the agent's own tool (Go, or Lua adapted)
	KindMeta  = "meta"  // the agent's meta-tools (search, resources, skills)
	KindCode  = "code"  // run_lua (code mode): each call its snippet makes is judged on its own
	// KindSampling is a server's sampling/createMessage request: Name and
	// Tool are the method, Server the server asking, Arguments its params.
	KindSampling = "sampling"
)

// Annotations are a tool's MCP annotations (hints).
type Annotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// ReadOnly reports whether the annotations say readOnlyHint: true.
func (an *Annotations) ReadOnly() bool {
	return an != nil && an.ReadOnlyHint != nil && *an.ReadOnlyHint
}

// Call is one tool call the model asked for (or a server's sampling
// request), as hooks and the policy see it.
type Call struct {
	// ID is the model's id of the call; Name what the model called.
	ID   string `json:"id"`
	Name string `json:"name"`
	// Server and Tool are the hub server and its own tool name (""
	// for local and meta tools); Qualified is the hub's qualified name.
	Server    string `json:"server,omitempty"`
	Tool      string `json:"tool"`
	Qualified string `json:"qualified,omitempty"`
	// Arguments is the JSON object the tool gets (a before-tool hook may
	// change it).
	Arguments json.RawMessage `json:"arguments"`
	// Annotations are the tool's (nil when it has none); ReadOnly is
	// Annotations.ReadOnlyHint, true for the meta-tools.
	Annotations *Annotations `json:"annotations,omitempty"`
	ReadOnly    bool         `json:"read_only,omitempty"`
	// Kind says where the tool lives (KindMCP, ...), or KindSampling.
	Kind string `json:"kind"`
	// Parent is the id of the run_lua call whose snippet made this call
	// ("" for the model's own calls).
	Parent string `json:"parent,omitempty"`
	// Rule is the permission rule that matched the call (nil: none), set
	// before the policy runs: the policy sees it and may still refuse.
	Rule *Rule `json:"rule,omitempty"`
}

// Clone is the call as an event carries it: later changes (a hook) do not
// reach an event already sent.
func (c *Call) Clone() *Call {
	cp := *c
	if c.Rule != nil {
		r := *c.Rule
		cp.Rule = &r
	}
	return &cp
}

// Policy decides a call: Allow, Deny, or Ask (a person), with the reason
// shown to the person and the model.
type Policy func(ctx context.Context, c Call) (Decision, string)

// Default is the one default policy, for every agent made without one
// (ask, chat, agent.new{} in Lua, whose agent.default_policy is this
// function): tools marked readOnlyHint: true (and the meta-tools) run;
// every other call, and a server's sampling request, asks a person (and is
// denied when nobody can answer, unless --yes).
func Default(ctx context.Context, c Call) (Decision, string) {
	return defaultPolicy.Load().p(ctx, c)
}

func readOnlyRuns(_ context.Context, c Call) (Decision, string) {
	if c.Kind == KindSampling {
		return Ask, "the server asks to use the model"
	}
	if c.ReadOnly {
		return Allow, "the tool is marked read-only"
	}
	return Ask, "the tool is not marked readOnlyHint"
}

type policyBox struct{ p Policy }

var defaultPolicy atomic.Pointer[policyBox]

func init() { defaultPolicy.Store(&policyBox{readOnlyRuns}) }

// ReplaceDefaultForTest makes p the default policy until the returned
// function restores it. It exists so one test can show that every front
// end (ask, chat, a Lua agent) follows the one definition; nothing else
// calls it.
func ReplaceDefaultForTest(p Policy) (restore func()) {
	old := defaultPolicy.Swap(&policyBox{p})
	return func() { defaultPolicy.Store(old) }
}

// NoApproverReason is why an Ask becomes a denial when nobody can be asked
// and --yes was not given.
const NoApproverReason = "needs approval; nobody to ask (run with --yes to allow)"

// Approver runs a policy and, when it says Ask, asks a person (one
// question at a time), or allows (yes), or denies (nobody to ask).
type Approver struct {
	policy Policy
	yes    bool
	own    Rules                    // the agent's own rules (nil: none)
	host   atomic.Pointer[rulesBox] // the host's (SetRules: ask's, chat's)
	ask    atomic.Pointer[Policy]   // the person's, set at any time (SetAsk)
	askMu  sync.Mutex               // one question at a time

	perm atomic.Pointer[PermissionHook] // SetPermissionHook's (hint.go)
}

// New returns an approver over policy (nil: Default); ask is how a person
// is asked (nil: nobody can be); yes allows every Ask without asking.
func New(policy, ask Policy, yes bool) *Approver {
	if policy == nil {
		policy = Default
	}
	a := &Approver{policy: policy, yes: yes}
	a.SetAsk(ask)
	return a
}

// SetAsk replaces how a person is asked (nil: nobody can be): a chat sets
// its own on the agent it runs.
func (a *Approver) SetAsk(ask Policy) {
	if ask == nil {
		a.ask.Store(nil)
		return
	}
	a.ask.Store(&ask)
}

// Decide decides the permission rules (Rules), then runs the policy,
// asking when the outcome is Ask, and returns Allow or Deny with the
// reason.
func (a *Approver) Decide(ctx context.Context, c Call) (Decision, string) {
	c.Rule = a.Match(c)
	if c.Rule != nil && c.Rule.Verdict == Deny {
		return Deny, "denied by the rule " + c.Rule.String()
	}
	d, reason := a.policy(ctx, c)
	d, reason = combine(c.Rule, d, reason)
	d, reason = a.hinted(ctx, c, d, reason) // a hook's say (hint.go)
	// A call that would ask a person: the rules and the policy said Ask.
	if d == Ask {
		ask := a.ask.Load()
		switch {
		case a.yes:
			d, reason = Allow, "allowed by --yes ("+reason+")"
		case ask != nil:
			a.askMu.Lock()
			d, reason = (*ask)(ctx, c)
			a.askMu.Unlock()
			if d == Ask {
				d, reason = Deny, "the person asked did not decide"
			}
		default:
			d, reason = Deny, NoApproverReason
		}
	}
	if d != Allow && d != Deny {
		return Deny, fmt.Sprintf("the policy answered %q (not allow, deny or ask)", string(d))
	}
	return d, reason
}
