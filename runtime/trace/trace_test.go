package trace_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/trace"
)

// A URL in an event's text (an error quoting it, a server named by it)
// reaches no sink with its secrets, whoever built the event.
func TestEmitMasksURLs(t *testing.T) {
	const u = "http://user:pa55@127.0.0.1:1/mcp?token=s3cret&api_key=k"
	var rec trace.Recorder
	var jsonl, human bytes.Buffer
	sink := trace.Multi{&rec, trace.NewJSONL(&jsonl), trace.NewHuman(&human)}
	trace.Emit(sink, trace.Event{Kind: trace.ErrorReply, Server: u, Message: `Post "` + u + `": refused`,
		Error: "cannot reach " + u, Command: "npx mcp-remote " + u})
	ev := rec.Events()[0]
	for what, s := range map[string]string{"server": ev.Server, "message": ev.Message, "error": ev.Error, "command": ev.Command,
		"jsonl": jsonl.String(), "human": human.String()} {
		if strings.Contains(s, "pa55") || strings.Contains(s, "s3cret") || strings.Contains(s, "api_key=k") || !strings.Contains(s, "hidden") {
			t.Errorf("%s: %s", what, s)
		}
	}
}

// -v's line is one line, whatever a server put in its name or message.
func TestHumanShowsControls(t *testing.T) {
	var b bytes.Buffer
	trace.Emit(trace.NewHuman(&b), trace.Event{Kind: trace.ErrorReply, Server: "srv", Method: "tools/call",
		Message: "boom\x1b]0;pwned\x07\nline\u202e"})
	if got := b.String(); !strings.HasSuffix(got, `: boom\x1b]0;pwned\x07\x0aline\u202e`+"\n") {
		t.Errorf("got %q", got)
	}
}

// A model response's cost is in its JSON line and its -v line.
func TestModelResponseCost(t *testing.T) {
	var jsonl, human bytes.Buffer
	usd := 0.0123
	trace.Emit(trace.Multi{trace.NewJSONL(&jsonl), trace.NewHuman(&human)}, trace.Event{Kind: trace.ModelResponse, Input: 10, Output: 2, CostUSD: &usd})
	if !strings.Contains(jsonl.String(), `"cost_usd":0.0123`) || !strings.Contains(human.String(), "tokens=10+2 cost=$0.012300") {
		t.Errorf("jsonl %s\nhuman %s", jsonl.String(), human.String())
	}
}
