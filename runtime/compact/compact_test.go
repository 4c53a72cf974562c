package compact

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/llm"
)

func user(s string) llm.Message {
	return llm.Message{Role: llm.RoleUser, Parts: []llm.Part{llm.Text(s)}}
}
func asst(s string) llm.Message {
	return llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{llm.Text(s)}}
}
func call(id string) llm.Message {
	return llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: id, Name: "t", Arguments: []byte(`{}`)}}}
}
func result(id string) llm.Message {
	return llm.Message{Role: llm.RoleTool, ToolCallID: id, Parts: []llm.Part{llm.Text("r" + id)}}
}

// shape is a conversation as letters: u user, a assistant text, c a call,
// r its result.
func shape(msgs []llm.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		switch {
		case m.Role == llm.RoleUser:
			b.WriteByte('u')
		case m.Role == llm.RoleTool:
			b.WriteByte('r')
		case len(m.ToolCalls) > 0:
			b.WriteByte('c')
		default:
			b.WriteByte('a')
		}
	}
	return b.String()
}

func build(s string) []llm.Message {
	var out []llm.Message
	for i, c := range s {
		id := string(rune('a' + i%26))
		switch c {
		case 'u':
			out = append(out, user("u"))
		case 'a':
			out = append(out, asst("a"))
		case 'c':
			out = append(out, call(id))
		case 'r':
			out = append(out, result(id))
		}
	}
	return out
}

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		conv        string
		keep        int
		older, kept string
	}{
		{"", 2, "", ""},
		{"ua", 2, "", "ua"},
		{"uaua", 2, "", "uaua"},
		{"uauaua", 2, "ua", "uaua"},
		{"ucrauaua", 2, "ucra", "uaua"},
		{"ucrauaucra", 1, "ucraua", "ucra"},
		// One long turn: cut before its last steps, never between a call
		// and its result.
		{"ucrcrcrcra", 2, "ucrcrcr", "cra"},
		{"ucrcrcrcrcr", 1, "ucrcrcrcr", "cr"},
		{"ucr", 2, "", "ucr"},
		{"uaucrcrcr", 2, "uaucr", "crcr"},
	} {
		o, k := Split(build(tc.conv), tc.keep)
		if shape(o) != tc.older || shape(k) != tc.kept {
			t.Errorf("Split(%s, %d) = %s | %s, want %s | %s", tc.conv, tc.keep, shape(o), shape(k), tc.older, tc.kept)
		}
	}
}

// FuzzSplit: whatever the conversation, the kept part never starts with a
// tool result, and the two parts are the whole.
func FuzzSplit(f *testing.F) {
	f.Add("ucrcrauaucr", 2)
	f.Fuzz(func(t *testing.T, conv string, keep int) {
		var s strings.Builder
		for _, c := range conv {
			if strings.ContainsRune("uacr", c) {
				s.WriteRune(c)
			}
		}
		msgs := build(s.String())
		o, k := Split(msgs, keep%5)
		if len(o)+len(k) != len(msgs) {
			t.Fatalf("lost messages: %d + %d != %d", len(o), len(k), len(msgs))
		}
		if len(o) > 0 && len(k) > 0 && k[0].Role == llm.RoleTool {
			t.Fatalf("kept part of %s starts with a tool result", s.String())
		}
	})
}

func TestPolicy(t *testing.T) {
	for _, tc := range []struct {
		p     Policy
		input int
		due   bool
	}{
		{Policy{}, 1 << 30, false},
		{Policy{Window: 1000}, 799, false},
		{Policy{Window: 1000}, 800, true},
		{Policy{Window: 1000, Threshold: 0.5}, 500, true},
		{Policy{Window: 1000, Threshold: 0.5}, 499, false},
		{Policy{Window: 1000, Threshold: 7}, 800, true}, // out of range: the default
	} {
		if got := tc.p.Due(tc.input); got != tc.due {
			t.Errorf("%+v.Due(%d) = %v", tc.p, tc.input, got)
		}
	}
}

func TestCompact(t *testing.T) {
	msgs := build("ucrauaua")
	var got []llm.Message
	var focus string
	sum := func(_ context.Context, m []llm.Message, f string) (string, error) {
		got, focus = m, f
		return "the user asked things", nil
	}
	out, res, err := Compact(context.Background(), msgs, Options{Summarize: sum, Focus: "the plan", Pinned: []string{"never delete main"}})
	if err != nil {
		t.Fatal(err)
	}
	if shape(got) != "ucra" || focus != "the plan" {
		t.Errorf("the summariser got %s, focus %q", shape(got), focus)
	}
	if shape(out) != "uuaua" || !IsSummary(out[0]) {
		t.Fatalf("compacted to %s", shape(out))
	}
	text := out[0].Parts[0].Text
	for _, want := range []string{SummaryHeader, "the user asked things", "never delete main"} {
		if !strings.Contains(text, want) {
			t.Errorf("summary message lacks %q: %s", want, text)
		}
	}
	if res.Summarized != 4 || res.Kept != 4 || res.Before == 0 {
		t.Errorf("result %+v", res)
	}

	// Nothing older: unchanged, the summariser not asked.
	got = nil
	short := build("uaua")
	out, res, err = Compact(context.Background(), short, Options{Summarize: sum})
	if err != nil || len(out) != 4 || res.Summarized != 0 || got != nil {
		t.Errorf("short: %s %+v %v", shape(out), res, err)
	}

	// The summariser's error comes back; the conversation is unchanged.
	boom := errs.New(errs.RateLimit, "model", "slow down")
	out, _, err = Compact(context.Background(), msgs, Options{Summarize: func(context.Context, []llm.Message, string) (string, error) { return "", boom }})
	if !errors.Is(err, boom) || len(out) != len(msgs) {
		t.Errorf("error: %v, %d messages", err, len(out))
	}
	if _, _, err := Compact(context.Background(), msgs, Options{}); errs.KindOf(err) != errs.Invalid {
		t.Errorf("no summariser: %v", err)
	}
}

func TestModelSummarizer(t *testing.T) {
	var reqs []*llm.Request
	limit := 1 << 30
	m := llm.Func("sum", func(_ context.Context, r *llm.Request) (*llm.Response, error) {
		reqs = append(reqs, r)
		if n := Estimate(r.Messages); n > limit {
			return nil, errs.Errorf(errs.ContextLength, "sum", "prompt is too long: %d tokens", n)
		}
		return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{llm.Text("short")}}}, nil
	})
	msgs := build("ucrauaua")
	msgs[2].Parts[0].Text = strings.Repeat("x", 10000) // a long tool result
	s, err := ModelSummarizer(m)(context.Background(), msgs, "names")
	if err != nil || s != "short" {
		t.Fatalf("%q %v", s, err)
	}
	text := reqs[0].Messages[0].Parts[0].Text
	// One user message, no tools: the conversation written out, each part
	// bounded.
	if len(reqs[0].Messages) != 1 || len(reqs[0].Tools) != 0 || !strings.HasPrefix(text, SummaryPrompt+"\n\nFocus on: names") ||
		!strings.Contains(text, "[calls t {}]") || !strings.Contains(text, "[tool result] "+strings.Repeat("x", 100)) ||
		!strings.Contains(text, "more bytes]") || len(text) > 6000 {
		t.Errorf("request: %d messages, %d tools, %d bytes:\n%s", len(reqs[0].Messages), len(reqs[0].Tools), len(text), text)
	}
	// Too long even so: the older half is left out, and said to be.
	reqs, limit = nil, 600
	long := build("uauauauauauauaua")
	for i := range long {
		long[i].Parts[0].Text = strings.Repeat("y", 400)
	}
	if s, err := ModelSummarizer(m)(context.Background(), long, ""); err != nil || s != "short" || len(reqs) < 2 ||
		!strings.Contains(reqs[len(reqs)-1].Messages[0].Parts[0].Text, "earlier messages were too long to include]") {
		t.Errorf("%q %v after %d requests", s, err, len(reqs))
	}
	limit = 10
	if _, err := ModelSummarizer(m)(context.Background(), long, ""); errs.KindOf(err) != errs.ContextLength {
		t.Errorf("nothing fits: %v", err)
	}
}

func TestEstimate(t *testing.T) {
	if EstimateText("") != 0 || EstimateText("abcd") != 1 || EstimateText("abcde") != 2 {
		t.Error("EstimateText is not bytes/4 rounded up")
	}
	m := llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{llm.Text(strings.Repeat("x", 40))},
		ToolCalls: []llm.ToolCall{{Name: "abcd", Arguments: []byte(`{"a":1}`)}}}
	if got := EstimateMessage(m); got != 10+1+2 {
		t.Errorf("EstimateMessage = %d", got)
	}
}
