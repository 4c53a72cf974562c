package headless

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	ragent "github.com/luagent/luagent/runtime/agent"
)

// Claude Code's usage shape: input_tokens is the part of the prompt not
// read from or written to the cache; luagent's InputTokens counts all.
func TestUsageCacheShape(t *testing.T) {
	u := ragent.Usage{InputTokens: 2030, OutputTokens: 9, CacheReadTokens: 1800, CacheWriteTokens: 200}
	var out bytes.Buffer
	s := New(Options{Out: &out, Format: StreamJSON, SessionID: "sid", NewID: func() string { return "u" }})
	s.Event(ragent.Event{Type: ragent.EventResponse, Response: &ragent.Message{Role: "assistant", Parts: []ragent.Part{{Type: "text", Text: "ok"}}},
		Usage: u, StopReason: "end"})
	tr := &ragent.Transcript{Model: "anthropic:claude-test", End: ragent.EndAnswer, Turns: []ragent.Turn{{Usage: u}}, Usage: u}
	s.Result(ResultOf(tr, "ok", nil, time.Second, "sid", "u"))

	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("lines: %s", out.String())
	}
	var msg struct {
		Message struct {
			Usage UsageJSON `json:"usage"`
		} `json:"message"`
	}
	var res ResultMessage
	if err := json.Unmarshal([]byte(lines[0]), &msg); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(lines[1]), &res); err != nil {
		t.Fatal(err)
	}
	for _, got := range []UsageJSON{msg.Message.Usage, res.Usage} {
		if got.InputTokens != 30 || got.CacheReadInputTokens != 1800 || got.CacheCreationInputTokens != 200 ||
			got.CacheCreation.Ephemeral5m != 200 || got.OutputTokens != 9 {
			t.Errorf("usage %+v", got)
		}
	}
	mu := res.ModelUsage["anthropic:claude-test"]
	if mu.InputTokens != 30 || mu.CacheReadInputTokens != 1800 || mu.CacheCreationInputTokens != 200 || mu.OutputTokens != 9 {
		t.Errorf("modelUsage %+v", mu)
	}
}
