package agent

import (
	"context"
	"sort"

	"github.com/luagent/luagent/runtime/cost"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/llm"
	"github.com/luagent/luagent/runtime/trace"
)

// ModelUsage is one model's tokens and cost: in a Transcript (one Ask's)
// and in Costs (the agent's running total). CostUSD counts what the
// model's price says; Unpriced says luagent knows no price for it (not
// in the built-in table of runtime/cost, no "price" in config.json), so
// its cost is unknown, not 0.
type ModelUsage struct {
	Usage
	Requests int     `json:"requests"`
	CostUSD  float64 `json:"cost_usd"`
	Unpriced bool    `json:"unpriced,omitempty"`
}

// Costs is what the agent's model requests cost so far, over every Ask:
// the total and each model's (a fallback that answered is its own).
type Costs struct {
	TotalUSD float64 `json:"total_cost_usd"`
	// Unpriced: some request's model has no known price; TotalUSD counts
	// the priced ones only.
	Unpriced bool                  `json:"unpriced,omitempty"`
	Models   map[string]ModelUsage `json:"models"`
}

// ModelNames are the models of c, sorted.
func (c Costs) ModelNames() []string {
	out := make([]string, 0, len(c.Models))
	for m := range c.Models {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// Costs returns what the agent's requests cost so far.
func (a *Agent) Costs() Costs {
	a.costMu.Lock()
	defer a.costMu.Unlock()
	c := a.costs
	c.Models = make(map[string]ModelUsage, len(a.costs.Models))
	for k, v := range a.costs.Models {
		c.Models[k] = v
	}
	return c
}

// SetLimits changes MaxTurns and MaxCost for the next Ask (the command
// line's --max-turns and --max-cost over an agent file's own); 0 leaves
// one as it is.
func (a *Agent) SetLimits(maxTurns int, maxCost float64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if maxTurns > 0 {
		a.cfg.MaxTurns = maxTurns
	}
	if maxCost > 0 {
		a.costMu.Lock()
		a.maxCost = maxCost
		a.costMu.Unlock()
	}
}

// AddCosts adds c to the agent's running total (an agent that takes over
// a conversation, /model's, goes on from what the old one spent).
func (a *Agent) AddCosts(c Costs) {
	a.costMu.Lock()
	defer a.costMu.Unlock()
	if a.costs.Models == nil {
		a.costs.Models = map[string]ModelUsage{}
	}
	for m, v := range c.Models {
		mu := a.costs.Models[m]
		mu.Usage.Add(v.Usage)
		mu.Requests += v.Requests
		mu.CostUSD += v.CostUSD
		mu.Unpriced = mu.Unpriced || v.Unpriced
		a.costs.Models[m] = mu
	}
	a.costs.TotalUSD += c.TotalUSD
	a.costs.Unpriced = a.costs.Unpriced || c.Unpriced
}

// accountSample counts a sampling request the agent's model answered
// (beside an Ask: in the running one's transcript, if any).
func (a *Agent) accountSample(resp *llm.Response) {
	u := Usage(resp.Usage)
	model, usd, known := a.price(a.cfg.Model.Name(), resp, u)
	a.account(model, u, usd, known)
}

// price is one response's cost: under the model that answered (a
// fallback's name, when it was not the one asked).
func (a *Agent) price(asked string, resp *llm.Response, u Usage) (model string, usd float64, known bool) {
	model = asked
	if resp.Model != "" {
		model = resp.Model
	}
	usd, known = a.cfg.Prices.Of(model, cost.Usage(u))
	return model, usd, known
}

func addModelUsage(m map[string]ModelUsage, model string, u Usage, usd float64, known bool) {
	mu := m[model]
	mu.Usage.Add(u)
	mu.Requests++
	mu.CostUSD += usd
	mu.Unpriced = mu.Unpriced || !known
	m[model] = mu
}

// costRun is what a running Ask's spending goes to besides the agent's
// own total: its transcript, and the agent whose tool call asked it (a
// subagent's requests count in its parent's cost and bound too).
type costRun struct {
	tr     *Transcript
	parent *Agent
}

type costParentKey struct{}

// beginCost starts an Ask's accounting: the parent is the agent whose
// tool call ctx comes from (nil: none); the returned ctx makes this agent
// the parent of the agents its tools ask.
func (a *Agent) beginCost(ctx context.Context, tr *Transcript) context.Context {
	parent, _ := ctx.Value(costParentKey{}).(*Agent)
	if parent == a {
		parent = nil
	}
	a.costMu.Lock()
	a.run = &costRun{tr: tr, parent: parent}
	a.costMu.Unlock()
	return context.WithValue(ctx, costParentKey{}, a)
}

// endCost ends the Ask's accounting: what its subagents spend later is
// the agent's own total's only.
func (a *Agent) endCost() {
	a.costMu.Lock()
	a.run = nil
	a.costMu.Unlock()
}

// account adds one response's usage and cost to the agent's running
// total and its running Ask's transcript, and to its parents' (up the
// chain of agents whose tool calls asked it).
func (a *Agent) account(model string, u Usage, usd float64, known bool) {
	for ag := a; ag != nil; {
		ag.costMu.Lock()
		if ag.costs.Models == nil {
			ag.costs.Models = map[string]ModelUsage{}
		}
		addModelUsage(ag.costs.Models, model, u, usd, known)
		ag.costs.TotalUSD += usd
		ag.costs.Unpriced = ag.costs.Unpriced || !known
		var next *Agent
		if r := ag.run; r != nil {
			if r.tr.ModelUsage == nil {
				r.tr.ModelUsage = map[string]ModelUsage{}
			}
			addModelUsage(r.tr.ModelUsage, model, u, usd, known)
			r.tr.CostUSD += usd
			r.tr.Unpriced = r.tr.Unpriced || !known
			next = r.parent
		}
		ag.costMu.Unlock()
		ag = next
	}
}

// overBound says whether the agent's MaxCost, or a parent's, is reached:
// the spent total and the bound it reached.
func (a *Agent) overBound() (spent, bound float64, over bool) {
	for ag := a; ag != nil; {
		ag.costMu.Lock()
		total, b := ag.costs.TotalUSD, ag.maxCost
		var next *Agent
		if ag.run != nil {
			next = ag.run.parent
		}
		ag.costMu.Unlock()
		if b > 0 && total >= b {
			return total, b, true
		}
		ag = next
	}
	return 0, 0, false
}

// checkCostBound is MaxCost's check before an Ask: a bound on a model
// with no known price could not hold, so it is an error saying how to
// give one.
func (a *Agent) checkCostBound(model string) error {
	a.costMu.Lock()
	own := a.maxCost
	a.costMu.Unlock()
	if own > 0 {
		if _, ok := a.cfg.Prices.Lookup(model); !ok {
			return errs.Errorf(errs.Invalid, "agent", "max_cost $%g cannot be kept: luagent knows no price for the model %q; give it one in config.json (models.NAME.price) or leave max_cost out", own, model)
		}
	}
	if spent, bound, over := a.overBound(); over {
		return costReached(spent, bound)
	}
	return nil
}

func costReached(total, bound float64) error {
	return errs.Errorf(errs.Limit, "agent", "the cost bound is reached: %s spent of max_cost $%g; raise it (--max-cost USD, max_cost) to go on", cost.Format(total, true), bound)
}

// costAttrs puts a response's cost on its trace event (left off when
// its model has no known price).
func costAttrs(e trace.Event, usd float64, known bool) trace.Event {
	if known {
		e.CostUSD = &usd
	}
	return e
}
