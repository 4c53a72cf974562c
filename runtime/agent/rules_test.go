package agent

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/luagent/luagent/runtime/approval"
	"github.com/luagent/luagent/runtime/permission"
)

// The rules an agent is given decide before its policy: an allowed tool
// runs with nobody to ask, a denied one is refused even with Yes, and the
// approval event and the policy see the rule.
func TestRulesDecideBeforeThePolicy(t *testing.T) {
	write := LocalTool{Name: "write", Call: func(context.Context, json.RawMessage) (Result, error) {
		return TextResult("written", false), nil
	}}
	for _, tt := range []struct {
		name        string
		allow, deny []string
		yes         bool
		want        Decision
		reason      string
	}{
		{"allowed, nobody to ask", []string{"write(path:/tmp/*)"}, nil, false, Allow, "allowed by the rule write(path:/tmp/*) (test)"},
		{"not matched, nobody to ask", []string{"write(path:/etc/*)"}, nil, false, Deny, NoApproverReason},
		{"denied despite yes", []string{"*"}, []string{"write"}, true, Deny, "denied by the rule write (test)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var rules permission.Rules
			if err := rules.Lists(tt.allow, nil, tt.deny, "test"); err != nil {
				t.Fatal(err)
			}
			var seen *approval.Rule
			var event *approval.Rule
			a := New(Config{Model: script(calls(tc("write", `{"path":"/tmp/x"}`)), answer("ok")), Tools: []LocalTool{write}, Yes: tt.yes,
				Approve: func(ctx context.Context, c Call) (Decision, string) {
					seen = c.Rule
					return approval.Default(ctx, c)
				},
				OnEvent: func(e Event) {
					if e.Type == EventApproval {
						event = e.Call.Rule
					}
				}})
			a.SetRules(&rules)
			_, tr, err := a.Ask(context.Background(), "go")
			if err != nil {
				t.Fatal(err)
			}
			rec := tr.ToolCalls[0]
			if rec.Decision != tt.want || rec.Reason != tt.reason {
				t.Errorf("%s %q, want %s %q", rec.Decision, rec.Reason, tt.want, tt.reason)
			}
			if tt.want == Allow && (seen == nil || seen.Verdict != Allow || event == nil || event.Pattern != tt.allow[0]) {
				t.Errorf("the policy saw %+v, the event %+v", seen, event)
			}
		})
	}
}
