package agent

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/llm"
	"github.com/luagent/luagent/runtime/skills"
	"github.com/luagent/luagent/runtime/testkit"
)

// Each model response comes whole as EventResponse, after its text deltas
// and before its calls start, with its usage and stop reason; secrets
// are masked in it as in the other events.
func TestEventResponse(t *testing.T) {
	echo := tc("echo", `{"text":"s3cr3t-value"}`)
	m := script(calls(echo), answer("done with s3cr3t-value"))
	var evs []Event
	a := New(Config{Model: m, Secrets: []string{"s3cr3t-value"}, OnEvent: func(e Event) { evs = append(evs, e) },
		Tools: []LocalTool{{Name: "echo", Call: func(_ context.Context, args json.RawMessage) (Result, error) {
			return TextResult(string(args), false), nil
		}}}, Yes: true})
	if tools, skills := a.Offered(); !slices.Equal(tools, []string{"echo"}) || len(skills) != 0 {
		t.Errorf("Offered: %v %v", tools, skills)
	}
	if _, _, err := a.Ask(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	var order []string
	var resps []Event
	for _, e := range evs {
		order = append(order, string(e.Type))
		if e.Type == EventResponse {
			resps = append(resps, e)
		}
	}
	want := []string{"response", "tool_start", "approval", "tool_end", "text", "response", "end"}
	if !slices.Equal(order, want) {
		t.Fatalf("events %v, want %v", order, want)
	}
	r1, r2 := resps[0], resps[1]
	if r1.Turn != 1 || r1.StopReason != llm.StopToolCalls || r1.Usage != (Usage{InputTokens: 10, OutputTokens: 5}) || len(r1.Response.ToolCalls) != 1 ||
		r1.Response.ToolCalls[0].ID != echo.ID || r1.Response.Role != "assistant" {
		t.Errorf("first response: %+v %+v", r1, r1.Response)
	}
	if strings.Contains(string(r1.Response.ToolCalls[0].Arguments), "s3cr3t") {
		t.Errorf("a secret in the response's arguments: %s", r1.Response.ToolCalls[0].Arguments)
	}
	if r2.Turn != 2 || r2.StopReason != llm.StopEnd || len(r2.Response.Parts) != 1 || r2.Response.Parts[0].Text != "done with "+SecretMask {
		t.Errorf("second response: %+v %+v", r2, r2.Response)
	}
	// The conversation keeps what the model said.
	if msgs := a.Messages(); !strings.Contains(string(msgs[1].ToolCalls[0].Arguments), "s3cr3t-value") {
		t.Errorf("the conversation lost the value: %s", msgs[1].ToolCalls[0].Arguments)
	}
}

// Offered names the skills offered beside the tools (and their tools).
func TestOfferedSkills(t *testing.T) {
	a := New(Config{Model: script(answer("x")), Skills: &skills.Local{Dirs: skills.LocalDirs(testkit.SkillHome(t), "")}})
	tools, names := a.Offered()
	if !slices.Contains(names, "notes") || !slices.Contains(tools, ToolLoadSkill) {
		t.Errorf("tools %v, skills %v", tools, names)
	}
}
