package agent_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/luagent/luagent/runtime/agent"
	"github.com/luagent/luagent/runtime/llm"
)

// twoTurns is a stand-in model: it calls the first tool it is offered,
// then answers with what the tool said.
type twoTurns struct{}

func (twoTurns) Name() string { return "two-turns" }

func (twoTurns) Stream(_ context.Context, req *llm.Request, _ func(llm.Event)) (*llm.Response, error) {
	last := req.Messages[len(req.Messages)-1]
	if last.Role == llm.RoleTool {
		return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{llm.Text("The tool said: " + last.Parts[0].Text)}}, StopReason: llm.StopEnd}, nil
	}
	call := llm.ToolCall{ID: "1", Name: req.Tools[0].Name, Arguments: json.RawMessage(`{"city":"Oslo"}`)}
	return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call}}, StopReason: llm.StopToolCalls}, nil
}

// An agent with one tool of its own and no hub, from Go alone.
func Example() {
	weather := agent.LocalTool{
		Name:        "weather",
		Description: "The weather in a city",
		Schema:      json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
		Call: func(_ context.Context, args json.RawMessage) (agent.Result, error) {
			var a struct{ City string }
			json.Unmarshal(args, &a)
			return agent.TextResult("sunny in "+a.City, false), nil
		},
	}
	a := agent.New(agent.Config{Model: twoTurns{}, Tools: []agent.LocalTool{weather}, Yes: true})
	text, tr, err := a.Ask(context.Background(), "What is the weather in Oslo?")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(text)
	fmt.Println(tr.End, len(tr.Turns), "turns;", tr.ToolCalls[0].Name, tr.ToolCalls[0].Decision, "("+tr.ToolCalls[0].Reason+")")
	// Output:
	// The tool said: sunny in Oslo
	// answer 2 turns; weather allow (allowed by --yes (the tool is not marked readOnlyHint))
}

// A policy of its own: allow one server, deny the rest with a reason the
// model will see.
func ExampleConfig_approve() {
	policy := func(_ context.Context, c agent.Call) (agent.Decision, string) {
		if c.Server == "docs" || c.ReadOnly {
			return agent.Allow, "trusted"
		}
		return agent.Deny, "only the docs server may change things"
	}
	d, why := policy(context.Background(), agent.Call{Server: "shell", Tool: "run"})
	fmt.Println(d, why)
	// Output: deny only the docs server may change things
}
