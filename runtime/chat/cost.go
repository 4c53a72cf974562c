package chat

import (
	"fmt"
	"strings"
	"text/tabwriter"

	ragent "github.com/luagent/luagent/runtime/agent"
	"github.com/luagent/luagent/runtime/cost"
	"github.com/luagent/luagent/runtime/visible"
)

// CostReport is /cost's text: each model's requests, tokens (the whole
// prompt, the part read from the provider's cache, the part written to
// it, the answer) and cost, then the total. A model with no known price
// shows "unknown", and the total says it leaves that model out.
func CostReport(c ragent.Costs) string {
	if len(c.Models) == 0 {
		return "no model requests yet: $0"
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "model\trequests\tinput\tcached\tcache write\toutput\tcost\t")
	var unpriced []string
	for _, m := range c.ModelNames() {
		mu := c.Models[m]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%s\t\n", visible.Line(m), mu.Requests, mu.InputTokens, mu.CacheReadTokens,
			mu.CacheWriteTokens, mu.OutputTokens, cost.Format(mu.CostUSD, !mu.Unpriced))
		if mu.Unpriced {
			unpriced = append(unpriced, visible.Line(m))
		}
	}
	tw.Flush()
	total := "total: " + cost.Format(c.TotalUSD, true)
	switch {
	case len(unpriced) == len(c.Models):
		total = "total: unknown"
	case len(unpriced) > 0:
		total += " and unknown"
	}
	if len(unpriced) > 0 {
		total += fmt.Sprintf(" (no price known for %s: give one in config.json, models.NAME.price)", strings.Join(unpriced, ", "))
	}
	return b.String() + total
}
