package chat

import (
	"context"
	"testing"

	ragent "github.com/luagent/luagent/runtime/agent"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/llm"
)

// fakeLua is a session's Lua side without Lua: /model makes a Go agent
// on the model named, /lua echoes, /meta's agent answers "meta".
type fakeLua struct{ models []string }

func (f *fakeLua) LoadAgent(string) error { return nil }
func (f *fakeLua) Build(context.Context, BuildOptions) (Agent, error) {
	return newGoAgent(ragent.Config{Model: llm.NewMock("")}), nil
}
func (f *fakeLua) WithModel(_ context.Context, model string) (Agent, error) {
	if model == "nope" {
		return nil, errs.New(errs.NotFound, "model", "no model nope")
	}
	f.models = append(f.models, model)
	return newGoAgent(ragent.Config{Model: llm.NewMock("")}), nil
}
func (f *fakeLua) BuildMeta(context.Context, MetaOptions) (Agent, error) {
	return newGoAgent(ragent.Config{Model: llm.Func("meta", func(context.Context, *llm.Request) (*llm.Response, error) {
		return &llm.Response{Message: llm.Message{Role: "assistant", Parts: []llm.Part{{Type: "text", Text: "meta"}}}}, nil
	})}), nil
}
func (f *fakeLua) Eval(_ context.Context, code string) (string, error) { return "= " + code, nil }

// /model, /lua and /meta go through the Lua side the session is given;
// without one they fail saying what they need.
func TestSessionLua(t *testing.T) {
	ctx := context.Background()
	l := &fakeLua{}
	s := New(Options{Agent: newGoAgent(ragent.Config{Model: llm.NewMock("")}), UI: &fakeUI{}, Lua: l})
	s.Turn(ctx, "one")
	before := s.Agent()
	if _, err := s.SetModel(ctx, "nope"); errs.KindOf(err) != errs.NotFound || s.Agent() != before {
		t.Errorf("a model that fails: %v, agent changed %v", err, s.Agent() != before)
	}
	a, err := s.SetModel(ctx, "other")
	if err != nil || s.Agent() != a || len(a.Agent().Messages()) != 2 {
		t.Fatalf("SetModel: %v; the new agent has %d messages, want the 2 so far", err, len(a.Agent().Messages()))
	}
	if out, err := s.Eval(ctx, "1+1"); out != "= 1+1" || err != nil {
		t.Errorf("Eval = %q, %v", out, err)
	}
	if text, err := s.Meta(ctx, "add a server", MetaOptions{}, nil); text != "meta" || err != nil {
		t.Errorf("Meta = %q, %v", text, err)
	}

	bare := New(Options{Agent: newGoAgent(ragent.Config{Model: llm.NewMock("")}), UI: &fakeUI{}})
	if _, err := bare.Eval(ctx, "1"); errs.KindOf(err) != errs.Invalid {
		t.Errorf("Eval without Lua: %v", err)
	}
	if _, err := bare.SetModel(ctx, "x"); errs.KindOf(err) != errs.Invalid {
		t.Errorf("SetModel without Lua: %v", err)
	}
}
