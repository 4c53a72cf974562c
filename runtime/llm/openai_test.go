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

const oaKey = "sk-test-SECRET-0123456789"

func chunk(choice string) string {
	return `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-test","choices":[` + choice + `]}`
}

func delta(d string) string { return chunk(`{"index":0,"delta":` + d + `,"finish_reason":null}`) }

var (
	oaText    = delta(`{"role":"assistant","content":"Let me "}`)
	oaText2   = delta(`{"content":"look."}`)
	oaCall0a  = delta(`{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"read","arguments":""}}]}`)
	oaCall0b  = delta(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"pa"}}]}`)
	oaCall0c  = delta(`{"tool_calls":[{"index":0,"function":{"arguments":"th\": \"a.txt\"}"}}]}`)
	oaCall1a  = delta(`{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"stat","arguments":"{\"path\":"}}]}`)
	oaCall1b  = delta(`{"tool_calls":[{"index":1,"function":{"arguments":"\"b\"}"}}]}`)
	oaFinishT = chunk(`{"index":0,"delta":{},"finish_reason":"tool_calls"}`)
	oaFinishS = chunk(`{"index":0,"delta":{},"finish_reason":"stop"}`)
	oaUsage   = `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-test","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":7,"total_tokens":19}}`
	oaDone    = `data: [DONE]`
)

func openaiModel(t *testing.T, f *fakeServer, cfg llm.Config) llm.Model {
	t.Helper()
	if cfg.Lookup == nil {
		cfg.Lookup = env("OPENAI_API_KEY", oaKey, "OPENAI_BASE_URL", f.URL+"/v1")
	}
	m, err := llm.New("openai:gpt-test", cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Text deltas, then two parallel calls whose arguments arrive in pieces,
// each call sent once whole, usage from the last chunk; the request maps
// every message kind.
func TestOpenAIStreamParallelToolCalls(t *testing.T) {
	f := newFake(t, sse(oaText, oaText2, oaCall0a, oaCall0b, oaCall0c, oaCall1a, oaCall1b, oaFinishT, oaUsage, oaDone))
	var c collect
	resp, err := openaiModel(t, f, llm.Config{}).Stream(context.Background(), conversation(), c.on)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.order, ","); got != "text,call:read,call:stat" {
		t.Fatalf("event order %s", got)
	}
	if c.text.String() != "Let me look." || resp.Message.Parts[0].Text != "Let me look." {
		t.Fatalf("text %q / %+v", c.text.String(), resp.Message.Parts)
	}
	if resp.StopReason != llm.StopToolCalls || resp.Usage != (llm.Usage{InputTokens: 12, OutputTokens: 7}) {
		t.Fatalf("stop %q usage %+v", resp.StopReason, resp.Usage)
	}
	want := `[{"ID":"call_a","Name":"read","Arguments":{"path":"a.txt"}},{"ID":"call_b","Name":"stat","Arguments":{"path":"b"}}]`
	if got := mustJSON(t, resp.Message.ToolCalls); got != want {
		t.Fatalf("calls\n got %s\nwant %s", got, want)
	}
	if mustJSON(t, c.calls) != want {
		t.Fatalf("streamed calls %s", mustJSON(t, c.calls))
	}

	r := f.requests()[0]
	if r.Method != "POST" || r.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer "+oaKey {
		t.Fatalf("request %s %s auth %q", r.Method, r.Path, r.Header.Get("Authorization"))
	}
	b := r.Body
	if b["model"] != "gpt-test" || b["stream"] != true || mustJSON(t, b["stream_options"]) != `{"include_usage":true}` {
		t.Fatalf("model/stream: %v %v %v", b["model"], b["stream"], b["stream_options"])
	}
	// A compatible base URL gets max_tokens (OpenAI's own gets max_completion_tokens).
	if b["max_tokens"] != 100.0 || b["temperature"] != 0.5 || mustJSON(t, b["stop"]) != `["END"]` {
		t.Fatalf("max_tokens/temperature/stop: %v %v %v", b["max_tokens"], b["temperature"], b["stop"])
	}
	wantMsgs := `[{"content":"be brief","role":"system"},` +
		`{"content":[{"text":"look","type":"text"},{"image_url":{"url":"data:image/png;base64,iVBORw=="},"type":"image_url"}],"role":"user"},` +
		`{"content":"checking","role":"assistant","tool_calls":[{"function":{"arguments":"{\"path\":\"a\"}","name":"read"},"id":"c1","type":"function"},{"function":{"arguments":"{\"path\":\"b\"}","name":"stat"},"id":"c2","type":"function"}]},` +
		`{"content":"contents","role":"tool","tool_call_id":"c1"},` +
		`{"content":"error: no such file","role":"tool","tool_call_id":"c2"}]`
	if got := mustJSON(t, b["messages"]); got != wantMsgs {
		t.Fatalf("messages\n got %s\nwant %s", got, wantMsgs)
	}
	wantTools := `[{"function":{"description":"Read a file","name":"read","parameters":{"properties":{"path":{"type":"string"}},"required":["path"],"type":"object"}},"type":"function"}]`
	if got := mustJSON(t, b["tools"]); got != wantTools {
		t.Fatalf("tools\n got %s\nwant %s", got, wantTools)
	}
}

func TestOpenAINotStreaming(t *testing.T) {
	f := newFake(t, jsonReply(200, `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-test",
	  "choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,
	    "tool_calls":[{"id":"call_x","type":"function","function":{"name":"read","arguments":"{\"path\":\"x\"}"}}]}}],
	  "usage":{"prompt_tokens":5,"completion_tokens":3,"total_tokens":8}}`))
	resp, err := openaiModel(t, f, llm.Config{}).Stream(context.Background(), &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{llm.Text("hi")}}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StopReason != llm.StopToolCalls || mustJSON(t, resp.Message.ToolCalls) != `[{"ID":"call_x","Name":"read","Arguments":{"path":"x"}}]` || resp.Usage.InputTokens != 5 || resp.Usage.OutputTokens != 3 {
		t.Fatalf("%+v", resp)
	}
	if b := f.requests()[0].Body; b["stream"] != nil || mustJSON(t, b["messages"]) != `[{"content":"hi","role":"user"}]` {
		t.Fatalf("body %v", b)
	}
}

// A 429 with retry-after-ms is retried after that wait, then succeeds.
func TestOpenAIRateLimitThenSuccess(t *testing.T) {
	f := newFake(t,
		jsonReply(429, `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`, "retry-after-ms", "40"),
		sse(delta(`{"content":"ok"}`), oaFinishS, oaDone))
	start := time.Now()
	resp, err := openaiModel(t, f, llm.Config{}).Stream(context.Background(), &llm.Request{}, func(llm.Event) {})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Parts[0].Text != "ok" || resp.StopReason != llm.StopEnd || len(f.requests()) != 2 {
		t.Fatalf("%+v after %d requests", resp, len(f.requests()))
	}
	if d := time.Since(start); d < 40*time.Millisecond {
		t.Fatalf("retried after %v, before retry-after-ms", d)
	}
}

func TestOpenAIErrorsTyped(t *testing.T) {
	runErrorCases(t, "openai:gpt-test: ", oaKey, func(f *fakeServer) llm.Model { return openaiModel(t, f, llm.Config{Sleep: noSleep}) }, []errorCase{
		{"401", []http.HandlerFunc{jsonReply(401, `{"error":{"message":"Incorrect API key provided: sk-test-***6789.","type":"invalid_request_error","code":"invalid_api_key"}}`)}, errs.Auth, "401 Unauthorized: Incorrect API key provided", 1},
		{"400", []http.HandlerFunc{jsonReply(400, `{"error":{"message":"Invalid 'messages[0].role': 'robot'.","type":"invalid_request_error","param":"messages[0].role","code":null}}`)}, errs.BadRequest, "400 Bad Request: Invalid 'messages[0].role': 'robot'.", 1},
		{"404 model", []http.HandlerFunc{jsonReply(404, `{"error":{"message":"The model 'gpt-x' does not exist","type":"invalid_request_error"}}`)}, errs.BadRequest, "does not exist", 1},
		{"422 string error", []http.HandlerFunc{jsonReply(422, `{"error":"unknown field"}`)}, errs.BadRequest, "422 Unprocessable Entity: unknown field", 1},
		{"500 after retries", []http.HandlerFunc{jsonReply(500, `{"error":{"message":"The server had an error","type":"server_error"}}`, "retry-after-ms", "1")}, errs.Server, "500 Internal Server Error: The server had an error (after 4 retries)", 5},
		{"502 html", []http.HandlerFunc{jsonReply(502, "<html>bad gateway</html>\n<p>", "retry-after-ms", "1")}, errs.Server, "502 Bad Gateway: <html>bad gateway</html>", 5},
		{"429 after retries", []http.HandlerFunc{jsonReply(429, `{"error":{"message":"Rate limit reached","type":"requests"}}`, "retry-after-ms", "1")}, errs.RateLimit, "429 Too Many Requests: Rate limit reached (after 4 retries)", 5},
		{"429 wait too long", []http.HandlerFunc{jsonReply(429, `{"error":{"message":"Quota","type":"requests"}}`, "retry-after", "3600")}, errs.RateLimit, "asked to wait 1h0m0s", 1},
		{"stream error event after text", []http.HandlerFunc{sse(oaText, `data: {"error":{"message":"The server is overloaded","type":"server_error"}}`)}, errs.Incomplete, "(The server is overloaded): what came is kept", 1},
		{"stream cut after text", []http.HandlerFunc{cut(oaText, oaCall0a, oaCall0b)}, errs.Incomplete, "the answer broke off after it began (the answer broke off: unexpected EOF)", 1},
		{"stream ends early after text", []http.HandlerFunc{sse(oaText, oaCall0a)}, errs.Incomplete, "the stream ended before its finish_reason", 1},
		{"stream error event before text", []http.HandlerFunc{sse(`data: {"error":{"message":"The server is overloaded","type":"server_error"}}`)}, errs.Server, "The server is overloaded (after 4 retries)", 5},
		{"context length", []http.HandlerFunc{jsonReply(400, `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`)}, errs.ContextLength, "400 Bad Request: This model's maximum context length is 128000 tokens", 1},
	})
}

func TestOpenAICancelMidStream(t *testing.T) {
	testCancelMidStream(t, func(f *fakeServer) llm.Model { return openaiModel(t, f, llm.Config{}) }, oaText)
}

func TestOpenAIDeadline(t *testing.T) {
	f := newFake(t, hold())
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := openaiModel(t, f, llm.Config{}).Stream(ctx, &llm.Request{}, func(llm.Event) {})
	if !errs.Is(err, errs.Timeout) {
		t.Fatalf("got %v", err)
	}
}

func TestOpenAIKeysAndEndpoints(t *testing.T) {
	// No key for OpenAI's own endpoint: auth, naming the variable.
	_, err := llm.New("openai:gpt-4.1-mini", llm.Config{Lookup: env()})
	if !errs.Is(err, errs.Auth) || !strings.Contains(err.Error(), "set OPENAI_API_KEY") {
		t.Fatalf("missing key: %v", err)
	}
	// A configured model's own variable.
	_, err = llm.New("work", llm.Config{Lookup: env("OPENAI_API_KEY", "x"), Models: map[string]llm.ModelConfig{"work": {Provider: "openai", Model: "m", APIKeyEnv: "WORK_KEY"}}})
	if !errs.Is(err, errs.Auth) || !strings.Contains(err.Error(), "set WORK_KEY") {
		t.Fatalf("missing configured key: %v", err)
	}
	if _, err := llm.New("openai:", llm.Config{Lookup: env("OPENAI_API_KEY", "x")}); !errs.Is(err, errs.Invalid) {
		t.Fatalf("no model name: %v", err)
	}
	if _, err := llm.New("gemini:x", llm.Config{}); !errs.Is(err, errs.Invalid) {
		t.Fatalf("unknown provider: %v", err)
	}

	// ollama: needs no key, sends none.
	f := newFake(t, sse(delta(`{"content":"hi"}`), oaFinishS, oaDone))
	m, err := llm.New("local", llm.Config{Lookup: env("OPENAI_API_KEY", oaKey), Models: map[string]llm.ModelConfig{"local": {Provider: "ollama", BaseURL: f.URL + "/v1", Model: "llama3.2"}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Stream(context.Background(), &llm.Request{}, func(llm.Event) {}); err != nil {
		t.Fatal(err)
	}
	r := f.requests()[0]
	if r.Header.Get("Authorization") != "" || r.Body["model"] != "llama3.2" || m.Name() != "local" {
		t.Fatalf("ollama request: auth %q model %v", r.Header.Get("Authorization"), r.Body["model"])
	}
	// A compatible server by OPENAI_BASE_URL needs no key either.
	if _, err := llm.New("openai:qwen", llm.Config{Lookup: env("OPENAI_BASE_URL", f.URL)}); err != nil {
		t.Fatalf("local compatible server without a key: %v", err)
	}
}

// However a provider words its errors — even echoing the request's
// headers — the key never reaches the error text.
func TestOpenAIKeyNeverInErrors(t *testing.T) {
	for _, status := range []int{400, 401, 403, 429, 500} {
		f := newFake(t, func(w http.ResponseWriter, r *http.Request) {
			jsonReply(status, `{"error":{"message":"bad header `+r.Header.Get("Authorization")+`","type":"x"}}`, "retry-after-ms", "1")(w, r)
		})
		_, err := openaiModel(t, f, llm.Config{MaxRetries: -1}).Stream(context.Background(), &llm.Request{}, nil)
		if err == nil || strings.Contains(err.Error(), oaKey) || strings.Contains(fmt.Sprintf("%+v %#v", err, err), oaKey) {
			t.Fatalf("%d: %v", status, err)
		}
	}
	// Nor a connection failure's.
	m, _ := llm.New("openai:x", llm.Config{Lookup: env("OPENAI_API_KEY", oaKey, "OPENAI_BASE_URL", "http://127.0.0.1:1/v1"), MaxRetries: -1})
	_, err := m.Stream(context.Background(), &llm.Request{}, nil)
	if !errs.Is(err, errs.Server) || strings.Contains(err.Error(), oaKey) {
		t.Fatalf("unreachable: %v", err)
	}
}

// A key given in the configuration (an agents-exe keys file's) is the
// bearer token, and the environment's OPENAI_API_KEY is never read for it
// (nor sent to another endpoint when the file has no key); a 401 names
// where the key came from, never the key.
func TestOpenAIKeyFromConfig(t *testing.T) {
	f := newFake(t, sse(delta(`{"content":"hi"}`), oaFinishS, oaDone), jsonReply(401, `{"error":{"message":"bad key","type":"invalid_api_key"}}`))
	lookup := env("OPENAI_API_KEY", "sk-env-must-not-be-sent")
	mc := llm.ModelConfig{Provider: "openai", BaseURL: f.URL + "/v1", Model: "kimi-k2.5", APIKey: oaKey, KeyFrom: `the key "kimi" of keys.json`}
	m, err := llm.New("openai:kimi-k2.5", llm.Config{Lookup: lookup, Models: map[string]llm.ModelConfig{"openai:kimi-k2.5": mc}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Stream(context.Background(), &llm.Request{}, func(llm.Event) {}); err != nil {
		t.Fatal(err)
	}
	r := f.requests()[0]
	if r.Header.Get("Authorization") != "Bearer "+oaKey || r.Body["model"] != "kimi-k2.5" || r.Path != "/v1/chat/completions" {
		t.Fatalf("request: auth %q model %v path %s", r.Header.Get("Authorization"), r.Body["model"], r.Path)
	}
	_, err = m.Stream(context.Background(), &llm.Request{}, func(llm.Event) {})
	if !errs.Is(err, errs.Auth) || !strings.Contains(err.Error(), `check the key "kimi" of keys.json`) || strings.Contains(err.Error(), oaKey) {
		t.Fatalf("401: %v", err)
	}
	// No key in the file: none sent, the environment's neither.
	mc.APIKey = ""
	m, err = llm.New("x", llm.Config{Lookup: lookup, Models: map[string]llm.ModelConfig{"x": mc}, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	m.Stream(context.Background(), &llm.Request{}, func(llm.Event) {})
	if got := f.requests()[2].Header.Get("Authorization"); got != "" {
		t.Fatalf("without a key in the file, sent %q", got)
	}
}

// finish_reason length and content_filter are max_tokens and refusal.
func TestOpenAIStopReasons(t *testing.T) {
	for finish, want := range map[string]string{"stop": llm.StopEnd, "length": llm.StopMaxTokens, "content_filter": llm.StopRefusal} {
		f := newFake(t, sse(oaText, chunk(`{"index":0,"delta":{},"finish_reason":"`+finish+`"}`), oaUsage, oaDone))
		resp, err := openaiModel(t, f, llm.Config{}).Stream(context.Background(), conversation(), func(llm.Event) {})
		if err != nil || resp.StopReason != want {
			t.Fatalf("%s: %+v %v", finish, resp, err)
		}
	}
}
