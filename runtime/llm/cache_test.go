package llm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/luagent/luagent/runtime/llm"
)

// rawServer records each request's body as sent, byte for byte.
type rawServer struct {
	*httptest.Server
	mu     sync.Mutex
	bodies [][]byte
}

func newRawServer(t *testing.T, reply http.HandlerFunc) *rawServer {
	s := &rawServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.bodies = append(s.bodies, b)
		s.mu.Unlock()
		reply(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *rawServer) body(i int) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bodies[i]
}

// Anthropic's usage counts input_tokens after the last breakpoint only:
// llm.Usage's InputTokens is the whole prompt, the cache's parts beside.
func TestAnthropicCacheUsage(t *testing.T) {
	start := ev("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-test","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":30,"cache_creation_input_tokens":200,"cache_read_input_tokens":1800,"output_tokens":1}}}`)
	for _, tc := range []struct {
		name   string
		reply  http.HandlerFunc
		stream bool
	}{
		{"stream", sse(start, anTextStart, anText1, anStop0, anDeltaEnd, anMsgStop), true},
		// message_delta may repeat the (cumulative) input counts.
		{"stream-delta-usage", sse(start, anTextStart, anText1, anStop0,
			ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"input_tokens":30,"cache_creation_input_tokens":200,"cache_read_input_tokens":1800,"output_tokens":2}}`), anMsgStop), true},
		{"whole", jsonReply(200, `{"id":"msg_1","type":"message","role":"assistant","model":"claude-test","content":[{"type":"text","text":"ok"}],
			"stop_reason":"end_turn","usage":{"input_tokens":30,"cache_creation_input_tokens":200,"cache_read_input_tokens":1800,"output_tokens":2}}`), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, tc.reply)
			var on func(llm.Event)
			if tc.stream {
				on = func(llm.Event) {}
			}
			resp, err := anthropicModel(t, f, llm.Config{}).Stream(context.Background(), conversation(), on)
			if err != nil {
				t.Fatal(err)
			}
			want := llm.Usage{InputTokens: 2030, OutputTokens: 2, CacheReadTokens: 1800, CacheWriteTokens: 200}
			if resp.Usage != want {
				t.Fatalf("usage %+v, want %+v", resp.Usage, want)
			}
		})
	}
}

func TestOpenAICachedTokens(t *testing.T) {
	usage := `"usage":{"prompt_tokens":2048,"completion_tokens":7,"total_tokens":2055,"prompt_tokens_details":{"cached_tokens":1920,"audio_tokens":0}}`
	for _, tc := range []struct {
		name   string
		reply  http.HandlerFunc
		stream bool
	}{
		{"stream", sse(oaText, oaFinishS, `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-test","choices":[],`+usage+`}`, oaDone), true},
		{"whole", jsonReply(200, `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-test",
			"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"ok"}}],`+usage+`}`), false},
		// Servers without the details (Ollama, llama.cpp) cache nothing.
		{"none", sse(oaText, oaFinishS, oaUsage, oaDone), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, tc.reply)
			var on func(llm.Event)
			if tc.stream {
				on = func(llm.Event) {}
			}
			resp, err := openaiModel(t, f, llm.Config{}).Stream(context.Background(), conversation(), on)
			if err != nil {
				t.Fatal(err)
			}
			want := llm.Usage{InputTokens: 2048, OutputTokens: 7, CacheReadTokens: 1920}
			if tc.name == "none" {
				want = llm.Usage{InputTokens: 12, OutputTokens: 7}
			}
			if resp.Usage != want {
				t.Fatalf("usage %+v, want %+v", resp.Usage, want)
			}
		})
	}
}

// The request's prefix is the same bytes whatever order the tools come
// in and however their schemas' keys are ordered: the providers cache a
// prefix only while it is byte-identical.
func TestRequestPrefixByteStable(t *testing.T) {
	toolsA := []llm.Tool{
		{Name: "read", Description: "Read a file", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"the file"},"limit":{"type":"integer","minimum":1}},"required":["path"]}`)},
		{Name: "grep", Description: "Search", Schema: json.RawMessage(`{"properties":{"q":{"type":"string"}},"type":"object"}`)},
		{Name: "now", Description: "No arguments"},
	}
	toolsB := []llm.Tool{toolsA[2], toolsA[0], toolsA[1]}
	toolsB[1].Schema = json.RawMessage(`{"required":["path"],"properties":{"limit":{"minimum":1,"type":"integer"},"path":{"description":"the file","type":"string"}},"type":"object"}`)
	toolsB[2].Schema = json.RawMessage(` { "type" : "object", "properties" : { "q" : { "type" : "string" } } } `)
	for _, p := range []struct {
		name  string
		model func(*testing.T, *fakeServer, llm.Config) llm.Model
		reply http.HandlerFunc
		tools string // where the tools start and end in the body
	}{
		{"anthropic", anthropicModel, jsonReply(200, `{"content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`), `"tools":`},
		{"openai", openaiModel, jsonReply(200, `{"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"ok"}}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`), `"tools":`},
	} {
		t.Run(p.name, func(t *testing.T) {
			s := newRawServer(t, p.reply)
			m := p.model(t, &fakeServer{Server: s.Server}, llm.Config{})
			for _, tools := range [][]llm.Tool{toolsA, toolsB} {
				req := conversation()
				req.Tools = tools
				if _, err := m.Stream(context.Background(), req, nil); err != nil {
					t.Fatal(err)
				}
			}
			a, b := s.body(0), s.body(1)
			if !bytes.Equal(a, b) {
				t.Fatalf("the two requests differ:\n%s\n%s", a, b)
			}
			var names []string
			var body struct {
				Tools []struct {
					Name     string `json:"name"`
					Function struct {
						Name string `json:"name"`
					} `json:"function"`
				} `json:"tools"`
			}
			if err := json.Unmarshal(a, &body); err != nil {
				t.Fatal(err)
			}
			for _, t := range body.Tools {
				names = append(names, t.Name+t.Function.Name)
			}
			if strings.Join(names, ",") != "grep,now,read" {
				t.Fatalf("tools in order %v, want by name", names)
			}
		})
	}
}

// A long conversation still has at most 4 breakpoints, the API's limit.
func TestAnthropicBreakpoints(t *testing.T) {
	user := func(s string) llm.Message { return llm.Message{Role: llm.RoleUser, Parts: []llm.Part{llm.Text(s)}} }
	answer := func(s string) llm.Message {
		return llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{llm.Text(s)}}
	}
	for _, tc := range []struct {
		name   string
		req    llm.Request
		want   int
		marked []string // the texts of the marked message blocks
	}{
		{"first turn", llm.Request{System: "s", Tools: []llm.Tool{{Name: "a"}, {Name: "b"}}, Messages: []llm.Message{user("q1")}}, 3, []string{"q1"}},
		{"no tools or system", llm.Request{Messages: []llm.Message{user("q1"), answer("a1"), user("q2")}}, 2, []string{"q1", "q2"}},
		{"long", llm.Request{System: "s", Tools: []llm.Tool{{Name: "a"}}, Messages: []llm.Message{user("q1"), answer("a1"), user("q2"), answer("a2"), user("q3"), answer("a3"), user("q4")}}, 4, []string{"q3", "q4"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, jsonReply(200, `{"content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`))
			if _, err := anthropicModel(t, f, llm.Config{}).Stream(context.Background(), &tc.req, nil); err != nil {
				t.Fatal(err)
			}
			raw := mustJSON(t, f.requests()[0].Body)
			if n := strings.Count(raw, `"cache_control":{"type":"ephemeral"}`); n != tc.want {
				t.Fatalf("%d breakpoints, want %d: %s", n, tc.want, raw)
			}
			var body struct {
				Tools    []map[string]any `json:"tools"`
				Messages []struct {
					Content []struct {
						Text         string          `json:"text"`
						CacheControl json.RawMessage `json:"cache_control"`
					} `json:"content"`
				} `json:"messages"`
			}
			json.Unmarshal([]byte(raw), &body)
			if n := len(body.Tools); n > 0 && body.Tools[n-1]["cache_control"] == nil {
				t.Fatalf("the last tool is not marked: %s", raw)
			}
			var marked []string
			for _, m := range body.Messages {
				for _, b := range m.Content {
					if b.CacheControl != nil {
						marked = append(marked, b.Text)
					}
				}
			}
			if strings.Join(marked, ",") != strings.Join(tc.marked, ",") {
				t.Fatalf("marked %v, want %v", marked, tc.marked)
			}
		})
	}
}

// DISABLE_PROMPT_CACHING (Claude Code's variable) sends no breakpoints.
func TestAnthropicDisablePromptCaching(t *testing.T) {
	for _, tc := range []struct {
		value string
		marks bool
	}{{"1", false}, {"true", false}, {"0", true}, {"", true}} {
		f := newFake(t, jsonReply(200, `{"content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`))
		lookup := env("ANTHROPIC_API_KEY", anKey, "ANTHROPIC_BASE_URL", f.URL, "DISABLE_PROMPT_CACHING", tc.value)
		if _, err := anthropicModel(t, f, llm.Config{Lookup: lookup}).Stream(context.Background(), conversation(), nil); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(mustJSON(t, f.requests()[0].Body), "cache_control"); got != tc.marks {
			t.Errorf("DISABLE_PROMPT_CACHING=%q: breakpoints %v, want %v", tc.value, got, tc.marks)
		}
	}
}
