package llm_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/llm"
)

const anKey = "sk-ant-test-SECRET-9876543210"

func ev(typ, data string) string { return "event: " + typ + "\ndata: " + data }

var (
	anStart     = ev("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-test","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"output_tokens":1}}}`)
	anTextStart = ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
	anPing      = ev("ping", `{"type": "ping"}`)
	anText1     = ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Let me "}}`)
	anText2     = ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"look."}}`)
	anStop0     = ev("content_block_stop", `{"type":"content_block_stop","index":0}`)
	anTool1     = ev("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_a","name":"read","input":{}}}`)
	anTool1a    = ev("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}`)
	anTool1b    = ev("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"pa"}}`)
	anTool1c    = ev("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"th\": \"a.txt\"}"}}`)
	anStop1     = ev("content_block_stop", `{"type":"content_block_stop","index":1}`)
	anTool2     = ev("content_block_start", `{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_b","name":"stat","input":{}}}`)
	anTool2a    = ev("content_block_delta", `{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"path\":\"b\"}"}}`)
	anStop2     = ev("content_block_stop", `{"type":"content_block_stop","index":2}`)
	anDeltaTool = ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":42}}`)
	anDeltaEnd  = ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":2}}`)
	anMsgStop   = ev("message_stop", `{"type":"message_stop"}`)
)

func anthropicModel(t *testing.T, f *fakeServer, cfg llm.Config) llm.Model {
	t.Helper()
	if cfg.Lookup == nil {
		cfg.Lookup = env("ANTHROPIC_API_KEY", anKey, "ANTHROPIC_BASE_URL", f.URL)
	}
	m, err := llm.New("anthropic:claude-test", cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestAnthropicStreamParallelToolCalls(t *testing.T) {
	f := newFake(t, sse(anStart, anTextStart, anPing, anText1, anText2, anStop0, anTool1, anTool1a, anTool1b, anTool1c, anStop1, anTool2, anTool2a, anStop2, anDeltaTool, anMsgStop))
	var c collect
	resp, err := anthropicModel(t, f, llm.Config{}).Stream(context.Background(), conversation(), c.on)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.order, ","); got != "text,call:read,call:stat" {
		t.Fatalf("event order %s", got)
	}
	if c.text.String() != "Let me look." || resp.Message.Parts[0].Text != "Let me look." {
		t.Fatalf("text %q", c.text.String())
	}
	want := `[{"ID":"toolu_a","Name":"read","Arguments":{"path":"a.txt"}},{"ID":"toolu_b","Name":"stat","Arguments":{"path":"b"}}]`
	if got := mustJSON(t, resp.Message.ToolCalls); got != want || mustJSON(t, c.calls) != want {
		t.Fatalf("calls\n got %s\nwant %s", got, want)
	}
	if resp.StopReason != llm.StopToolCalls || resp.Usage != (llm.Usage{InputTokens: 25, OutputTokens: 42}) {
		t.Fatalf("stop %q usage %+v", resp.StopReason, resp.Usage)
	}

	r := f.requests()[0]
	if r.Path != "/v1/messages" || r.Header.Get("x-api-key") != anKey || r.Header.Get("anthropic-version") == "" || r.Header.Get("Authorization") != "" {
		t.Fatalf("request %s x-api-key %q anthropic-version %q authorization %q", r.Path, r.Header.Get("x-api-key"), r.Header.Get("anthropic-version"), r.Header.Get("Authorization"))
	}
	b := r.Body
	if b["model"] != "claude-test" || b["stream"] != true || b["max_tokens"] != 100.0 || b["temperature"] != 0.5 || mustJSON(t, b["stop_sequences"]) != `["END"]` {
		t.Fatalf("body: %v", b)
	}
	if got := mustJSON(t, b["system"]); got != `[{"cache_control":{"type":"ephemeral"},"text":"be brief","type":"text"}]` {
		t.Fatalf("system %s", got)
	}
	// Cache breakpoints: the last tool, the system prompt, the last
	// message and the one two before it (the previous request's end).
	wantMsgs := `[{"content":[{"text":"look","type":"text"},{"cache_control":{"type":"ephemeral"},"source":{"data":"iVBORw==","media_type":"image/png","type":"base64"},"type":"image"}],"role":"user"},` +
		`{"content":[{"text":"checking","type":"text"},{"id":"c1","input":{"path":"a"},"name":"read","type":"tool_use"},{"id":"c2","input":{"path":"b"},"name":"stat","type":"tool_use"}],"role":"assistant"},` +
		`{"content":[{"content":[{"text":"contents","type":"text"}],"tool_use_id":"c1","type":"tool_result"},{"cache_control":{"type":"ephemeral"},"content":[{"text":"no such file","type":"text"}],"is_error":true,"tool_use_id":"c2","type":"tool_result"}],"role":"user"}]`
	if got := mustJSON(t, b["messages"]); got != wantMsgs {
		t.Fatalf("messages\n got %s\nwant %s", got, wantMsgs)
	}
	wantTools := `[{"cache_control":{"type":"ephemeral"},"description":"Read a file","input_schema":{"properties":{"path":{"type":"string"}},"required":["path"],"type":"object"},"name":"read"}]`
	if got := mustJSON(t, b["tools"]); got != wantTools {
		t.Fatalf("tools\n got %s\nwant %s", got, wantTools)
	}
}

func TestAnthropicNotStreamingDefaultMaxTokens(t *testing.T) {
	f := newFake(t, jsonReply(200, `{"id":"msg_1","type":"message","role":"assistant","model":"claude-test",
	  "content":[{"type":"text","text":"Sure."},{"type":"tool_use","id":"toolu_x","name":"read","input":{"path":"x"}}],
	  "stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":9,"output_tokens":4}}`))
	resp, err := anthropicModel(t, f, llm.Config{}).Stream(context.Background(), &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{llm.Text("hi")}}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StopReason != llm.StopToolCalls || resp.Message.Parts[0].Text != "Sure." || mustJSON(t, resp.Message.ToolCalls) != `[{"ID":"toolu_x","Name":"read","Arguments":{"path":"x"}}]` || resp.Usage.InputTokens != 9 {
		t.Fatalf("%+v", resp)
	}
	if b := f.requests()[0].Body; b["max_tokens"] != float64(llm.DefaultAnthropicMaxTokens) || b["stream"] != nil {
		t.Fatalf("body %v", b)
	}
}

func TestAnthropicStopReasons(t *testing.T) {
	for stop, want := range map[string]string{"end_turn": llm.StopEnd, "max_tokens": llm.StopMaxTokens, "stop_sequence": llm.StopStop, "refusal": llm.StopRefusal} {
		f := newFake(t, sse(anStart, anTextStart, anText1, anStop0,
			ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"`+stop+`","stop_sequence":null},"usage":{"output_tokens":2}}`), anMsgStop))
		resp, err := anthropicModel(t, f, llm.Config{}).Stream(context.Background(), &llm.Request{}, func(llm.Event) {})
		if err != nil || resp.StopReason != want {
			t.Fatalf("%s: %v %v", stop, resp, err)
		}
	}
}

func TestAnthropicRateLimitThenSuccess(t *testing.T) {
	f := newFake(t,
		jsonReply(429, `{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}`, "retry-after", "0"),
		jsonReply(529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "retry-after-ms", "30"),
		sse(anStart, anTextStart, anText1, anStop0, anDeltaEnd, anMsgStop))
	start := time.Now()
	resp, err := anthropicModel(t, f, llm.Config{}).Stream(context.Background(), &llm.Request{}, func(llm.Event) {})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Parts[0].Text != "Let me " || len(f.requests()) != 3 {
		t.Fatalf("%+v after %d requests", resp, len(f.requests()))
	}
	if d := time.Since(start); d < 30*time.Millisecond {
		t.Fatalf("retried after %v, before retry-after-ms", d)
	}
}

func TestAnthropicErrorsTyped(t *testing.T) {
	body := func(typ, msg string) string {
		return `{"type":"error","error":{"type":"` + typ + `","message":"` + msg + `"},"request_id":"req_1"}`
	}
	tests := []errorCase{
		{"401", []http.HandlerFunc{jsonReply(401, body("authentication_error", "invalid x-api-key"))}, errs.Auth, "401 Unauthorized: invalid x-api-key (check ANTHROPIC_API_KEY)", 1},
		{"403", []http.HandlerFunc{jsonReply(403, body("permission_error", "no access"))}, errs.Auth, "no access", 1},
		{"400", []http.HandlerFunc{jsonReply(400, body("invalid_request_error", "messages: roles must alternate"))}, errs.BadRequest, "400 Bad Request: messages: roles must alternate", 1},
		{"404", []http.HandlerFunc{jsonReply(404, body("not_found_error", "model: claude-x"))}, errs.BadRequest, "model: claude-x", 1},
		{"529 after retries", []http.HandlerFunc{jsonReply(529, body("overloaded_error", "Overloaded"), "retry-after-ms", "1")}, errs.Server, "529: Overloaded (after 4 retries)", 5},
		{"429 after retries", []http.HandlerFunc{jsonReply(429, body("rate_limit_error", "slow down"), "retry-after-ms", "1")}, errs.RateLimit, "429 Too Many Requests: slow down (after 4 retries)", 5},
		{"429 wait too long", []http.HandlerFunc{jsonReply(429, body("rate_limit_error", "slow down"), "retry-after", "600")}, errs.RateLimit, "asked to wait 10m0s", 1},
		// After output began: incomplete, never sent again.
		{"error event after text", []http.HandlerFunc{sse(anStart, anTextStart, anText1, ev("error", body("overloaded_error", "Overloaded")))}, errs.Incomplete, "the answer broke off after it began (Overloaded): what came is kept, and the request was not sent again", 1},
		{"stream cut after text", []http.HandlerFunc{cut(anStart, anTextStart, anText1, anTool1, anTool1b)}, errs.Incomplete, "the answer broke off after it began (the answer broke off: unexpected EOF)", 1},
		{"no message_stop after a call", []http.HandlerFunc{sse(anStart, anTool1, anTool1b, anTool1c, anStop1, anDeltaTool)}, errs.Incomplete, "before message_stop", 1},
		// Before output: retried as a 529 or 429 is.
		{"rate limit event", []http.HandlerFunc{sse(anStart, ev("error", body("rate_limit_error", "too fast")))}, errs.RateLimit, "too fast (after 4 retries)", 5},
		{"overloaded event", []http.HandlerFunc{sse(anStart, anPing, ev("error", body("overloaded_error", "Overloaded")))}, errs.Server, "Overloaded (after 4 retries)", 5},
		{"stream cut before text", []http.HandlerFunc{cut(anStart, anTextStart)}, errs.Server, "the answer broke off: unexpected EOF (after 4 retries)", 5},
		// Longer than the window: never retried (a fallback may take it).
		{"prompt too long", []http.HandlerFunc{jsonReply(400, body("invalid_request_error", "prompt is too long: 208310 tokens > 200000 maximum"))}, errs.ContextLength, "400 Bad Request: prompt is too long: 208310 tokens > 200000 maximum (the conversation is longer than anthropic:claude-test's context window)", 1},
	}
	runErrorCases(t, "anthropic:claude-test: ", anKey, func(f *fakeServer) llm.Model { return anthropicModel(t, f, llm.Config{Sleep: noSleep}) }, tests)
}

func TestAnthropicCancelMidStream(t *testing.T) {
	testCancelMidStream(t, func(f *fakeServer) llm.Model { return anthropicModel(t, f, llm.Config{}) }, anStart, anTextStart, anText1)
}

func TestAnthropicKeys(t *testing.T) {
	_, err := llm.New("anthropic:claude-sonnet-4-5", llm.Config{Lookup: env("OPENAI_API_KEY", "x")})
	if !errs.Is(err, errs.Auth) || !strings.Contains(err.Error(), "set ANTHROPIC_API_KEY") {
		t.Fatalf("missing key: %v", err)
	}
	for _, status := range []int{400, 401, 500} {
		f := newFake(t, func(w http.ResponseWriter, r *http.Request) {
			jsonReply(status, `{"type":"error","error":{"type":"x","message":"you sent `+r.Header.Get("x-api-key")+`"}}`)(w, r)
		})
		_, err := anthropicModel(t, f, llm.Config{MaxRetries: -1}).Stream(context.Background(), &llm.Request{}, nil)
		if err == nil || strings.Contains(fmt.Sprintf("%v %+v %#v", err, err, err), anKey) {
			t.Fatalf("%d: %v", status, err)
		}
	}
}
