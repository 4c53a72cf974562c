package agent

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/approval"
	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/hub"
	"github.com/luagent/luagent/runtime/llm"
	"github.com/luagent/luagent/runtime/testkit"
)

// samplingModel answers server-everything's sampling request (its system
// prompt says who asks) with "Paris", and plays the agent's turns from
// agent: first a call of trigger-sampling-request, then an answer.
type samplingModel struct {
	*scripted
	sampled chan *llm.Request
}

func (m *samplingModel) Stream(ctx context.Context, req *llm.Request, on func(llm.Event)) (*llm.Response, error) {
	if req.System == "You are a helpful test server." {
		m.sampled <- req
		return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{llm.Text("Paris")}}, StopReason: llm.StopEnd}, nil
	}
	return m.scripted.Stream(ctx, req, on)
}

// A server with "sampling": true (server-everything's
// trigger-sampling-request) samples through the agent's model once the
// policy allows it; the default policy asks, so without --yes or a person
// the server is refused, with the reason.
func TestSamplingThroughTheAgent(t *testing.T) {
	cmd, args := testkit.Everything(t)
	h := startHub(t, hub.Options{}, &catalog.Server{Name: "everything", Enabled: true, Command: cmd, Args: args,
		StartupTimeout: time.Minute, Sampling: true})
	if _, ok := h.Tool("everything__trigger-sampling-request"); !ok {
		t.Fatal("server-everything did not see the sampling capability (no trigger-sampling-request tool)")
	}
	// The agent set last answers.
	if !h.SetSampler(New(Config{Model: script(answer("not me"))}).Sample) {
		t.Fatal("SetSampler on a hub without one did not install it")
	}
	// The tool itself is allowed; sampling is left to the default policy.
	toolsOnly := func(ctx context.Context, c Call) (Decision, string) {
		if c.Kind == KindSampling {
			return approval.Default(ctx, c)
		}
		return Allow, "test"
	}
	for _, tt := range []struct {
		name    string
		cfg     Config
		want    string // in the tool's result
		isError bool
	}{
		{"yes allows", Config{Approve: toolsOnly, Yes: true}, "Paris", false},
		{"nobody to ask denies", Config{Approve: toolsOnly}, "needs approval", true},
		{"person allows", Config{Approve: toolsOnly, Ask: func(_ context.Context, c Call) (Decision, string) {
			if c.Kind != KindSampling || c.Server != "everything" || !strings.Contains(string(c.Arguments), "capital?") {
				return Deny, "unexpected call " + c.Name
			}
			return Allow, "ok"
		}}, "Paris", false},
		{"policy denies with reason", Config{Approve: func(_ context.Context, c Call) (Decision, string) {
			if c.Kind == KindSampling {
				return Deny, "no sampling on Fridays"
			}
			return Allow, ""
		}}, "no sampling on Fridays", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			trigger := tc("everything__trigger-sampling-request", `{"prompt":"capital?","maxTokens":50}`)
			m := &samplingModel{scripted: script(calls(trigger), answer("done")), sampled: make(chan *llm.Request, 1)}
			cfg := tt.cfg
			cfg.Model, cfg.Hub = m, h
			var approvals []Event
			cfg.OnEvent = func(e Event) {
				if e.Type == EventApproval && e.Call.Kind == KindSampling {
					approvals = append(approvals, e)
				}
			}
			a := New(cfg)
			if !h.SetSampler(a.Sample) {
				t.Fatal("a later SetSampler did not replace the earlier one")
			}
			if _, _, err := a.Ask(context.Background(), "sample"); err != nil {
				t.Fatal(err)
			}
			r := toolMessage(t, m.requests()[1], trigger.ID)
			if got := partsText(r); !strings.Contains(got, tt.want) || r.IsError != tt.isError {
				t.Errorf("tool result %q (isError %v), want %q (isError %v)", got, r.IsError, tt.want, tt.isError)
			}
			if len(approvals) != 1 {
				t.Fatalf("%d sampling approvals, want 1", len(approvals))
			}
			if !tt.isError {
				req := <-m.sampled
				if req.MaxTokens != 50 || len(req.Messages) != 1 || !strings.Contains(textOf(req.Messages[0]), "capital?") {
					t.Errorf("the model got %+v", req)
				}
			}
		})
	}
}

// A hub made with a sampler (a script's on_sample) keeps it.
func TestSamplingOnSampleWins(t *testing.T) {
	h := hub.New(nil, hub.Options{Sample: func(context.Context, string, json.RawMessage) (json.RawMessage, error) { return nil, nil }})
	defer h.Close()
	if h.SetSampler(New(Config{Model: script(answer("x"))}).Sample) {
		t.Error("SetSampler replaced the hub's own Sample")
	}
}

// Without "sampling": true the capability is not advertised, and a
// server that asks anyway is refused.
func TestSamplingNeedsTheEntrysConsent(t *testing.T) {
	cmd, args := testkit.Everything(t)
	h := startHub(t, hub.Options{}, &catalog.Server{Name: "everything", Enabled: true, Command: cmd, Args: args, StartupTimeout: time.Minute})
	h.SetSampler(New(Config{Model: script(answer("x"))}).Sample)
	if _, ok := h.Tool("everything__trigger-sampling-request"); ok {
		t.Error("sampling was advertised to a server whose entry did not opt in")
	}
}

func TestSamplingRequestMapping(t *testing.T) {
	params := `{"messages":[
	  {"role":"user","content":{"type":"text","text":"weather in Paris?"}},
	  {"role":"assistant","content":[{"type":"text","text":"let me look"},{"type":"tool_use","id":"u1","name":"weather","input":{"city":"Paris"}}]},
	  {"role":"user","content":[{"type":"tool_result","toolUseId":"u1","content":[{"type":"text","text":"18C"}]},{"type":"image","data":"aGk=","mimeType":"image/png"}]}],
	  "systemPrompt":"be brief","maxTokens":1000000,"temperature":0.5,"stopSequences":["END"],
	  "tools":[{"name":"weather","description":"the weather","inputSchema":{"type":"object"}}]}`
	req, err := samplingRequest(json.RawMessage(params))
	if err != nil {
		t.Fatal(err)
	}
	if req.System != "be brief" || req.MaxTokens != maxSamplingTokens || req.Temperature == nil || *req.Temperature != 0.5 ||
		!slices.Equal(req.Stop, []string{"END"}) || len(req.Tools) != 1 || req.Tools[0].Name != "weather" {
		t.Errorf("request fields: %+v", req)
	}
	roles := []string{}
	for _, m := range req.Messages {
		roles = append(roles, m.Role)
	}
	if !slices.Equal(roles, []string{"user", "assistant", "tool", "user"}) {
		t.Fatalf("roles %v", roles)
	}
	if tcs := req.Messages[1].ToolCalls; len(tcs) != 1 || tcs[0].ID != "u1" || string(tcs[0].Arguments) != `{"city":"Paris"}` {
		t.Errorf("tool_use: %+v", req.Messages[1])
	}
	if m := req.Messages[2]; m.ToolCallID != "u1" || textOf(m) != "18C" {
		t.Errorf("tool_result: %+v", m)
	}
	if p := req.Messages[3].Parts; len(p) != 1 || p[0].Type != "image" || string(p[0].Data) != "hi" {
		t.Errorf("image: %+v", p)
	}

	for _, bad := range []string{`{}`, `{"messages":[]}`, `[1]`, `{"messages":[{"role":"system","content":{"type":"text","text":"x"}}]}`,
		`{"messages":[{"role":"user","content":{"type":"tool_use","id":"x","name":"y"}}]}`} {
		if _, err := samplingRequest(json.RawMessage(bad)); !errs.Is(err, errs.Invalid) {
			t.Errorf("%s: %v, want an invalid error", bad, err)
		}
	}
}

func TestSamplingResultShapes(t *testing.T) {
	for _, tt := range []struct {
		name string
		resp llm.Response
		want string
	}{
		{"text", llm.Response{Message: llm.Message{Parts: []llm.Part{llm.Text("Paris")}}, StopReason: llm.StopEnd},
			`{"role":"assistant","content":{"text":"Paris","type":"text"},"model":"m","stopReason":"endTurn"}`},
		{"empty answer is an empty text block", llm.Response{StopReason: llm.StopMaxTokens},
			`{"role":"assistant","content":{"text":"","type":"text"},"model":"m","stopReason":"maxTokens"}`},
		{"tool calls", llm.Response{Message: llm.Message{Parts: []llm.Part{llm.Text("checking")},
			ToolCalls: []llm.ToolCall{{ID: "t1", Name: "weather", Arguments: json.RawMessage(`{"city":"Paris"}`)}}}, StopReason: llm.StopToolCalls},
			`{"role":"assistant","content":[{"text":"checking","type":"text"},{"id":"t1","input":{"city":"Paris"},"name":"weather","type":"tool_use"}],"model":"m","stopReason":"toolUse"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(samplingResult("m", &tt.resp)); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}
