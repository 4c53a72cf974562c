package cachestub

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// OpenAI is the stand-in for OpenAI's Chat Completions (POST
// /v1/chat/completions), whose prompt caching is automatic, as OpenAI
// documents it: no markers; a prompt of MinTokens (1024) or more has its
// longest cached prefix read, counted in steps of 128 tokens from 1024,
// and reported as usage.prompt_tokens_details.cached_tokens (a part of
// prompt_tokens); every prefix ending at a message or tool is cached for
// TTL after its last use. The prompt is the tools, then the messages, in
// canonical JSON; it shares the Stub's clock, options and Usages (where
// InputTokens is the uncached part, CacheReadInputTokens the cached).
func (s *Stub) OpenAI() http.Handler {
	return http.HandlerFunc(s.serveOpenAI)
}

// openAIStep is the granularity of OpenAI's cache hits.
const openAIStep = 128

type oaWire struct {
	Model         string `json:"model"`
	Stream        bool   `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Tools    []json.RawMessage `json:"tools"`
	Messages []json.RawMessage `json:"messages"`
}

func (s *Stub) serveOpenAI(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		oaError(w, http.StatusNotFound, "not found")
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		oaError(w, http.StatusBadRequest, err.Error())
		return
	}
	var req oaWire
	if err := json.Unmarshal(body, &req); err != nil || req.Model == "" || len(req.Messages) == 0 {
		oaError(w, http.StatusBadRequest, "model and messages are required, in a JSON object")
		return
	}
	seen := &Request{Model: req.Model}
	var blocks [][]byte
	for i, t := range req.Tools {
		m, err := object(t)
		if err != nil {
			oaError(w, http.StatusBadRequest, fmt.Sprintf("tools.%d: %v", i, err))
			return
		}
		if f, ok := m["function"].(map[string]any); ok {
			name, _ := f["name"].(string)
			seen.Tools = append(seen.Tools, name)
		}
		b, _ := json.Marshal(m)
		blocks = append(blocks, b)
	}
	for i, raw := range req.Messages {
		m, err := object(raw)
		if err != nil {
			oaError(w, http.StatusBadRequest, fmt.Sprintf("messages.%d: %v", i, err))
			return
		}
		b, _ := json.Marshal(m)
		blocks = append(blocks, b)
		role, _ := m["role"].(string)
		msg := Message{Role: role}
		switch role {
		case "tool":
			msg.Role = "user"
			msg.Blocks = []map[string]any{{"type": "tool_result", "tool_use_id": m["tool_call_id"], "content": m["content"]}}
		default:
			if c, ok := m["content"].(string); ok {
				msg.Blocks = append(msg.Blocks, map[string]any{"type": "text", "text": c})
			}
			if calls, ok := m["tool_calls"].([]any); ok {
				for _, c := range calls {
					msg.Blocks = append(msg.Blocks, map[string]any{"type": "tool_use", "call": c})
				}
			}
		}
		seen.Messages = append(seen.Messages, msg)
	}
	u := s.accountAuto(blocks)
	reply := s.o.Reply(seen)
	u.OutputTokens = 1 + len(reply.Text)/4
	for _, c := range reply.Calls {
		u.OutputTokens += 1 + (len(c.Name)+len(c.Input))/4
	}
	s.mu.Lock()
	s.log = append(s.log, u)
	s.mu.Unlock()
	usage := map[string]any{"prompt_tokens": u.Prompt(), "completion_tokens": u.OutputTokens, "total_tokens": u.Prompt() + u.OutputTokens,
		"prompt_tokens_details": map[string]any{"cached_tokens": u.CacheReadInputTokens}}
	var calls []map[string]any
	for _, c := range reply.Calls {
		in := string(c.Input)
		if in == "" {
			in = "{}"
		}
		calls = append(calls, map[string]any{"id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": in}})
	}
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
	}
	if !req.Stream {
		msg := map[string]any{"role": "assistant", "content": reply.Text}
		if len(calls) > 0 {
			msg["tool_calls"] = calls
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": "chatcmpl-stub", "object": "chat.completion", "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(choices []any, usage any) {
		c := map[string]any{"id": "chatcmpl-stub", "object": "chat.completion.chunk", "model": req.Model, "choices": choices}
		if usage != nil {
			c["usage"] = usage
		}
		b, _ := json.Marshal(c)
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	delta := map[string]any{"role": "assistant", "content": reply.Text}
	if len(calls) > 0 {
		for i, c := range calls {
			c["index"] = i
		}
		delta["tool_calls"] = calls
	}
	chunk([]any{map[string]any{"index": 0, "delta": delta, "finish_reason": nil}}, nil)
	chunk([]any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": finish}}, nil)
	if req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
		chunk([]any{}, usage)
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// accountAuto is OpenAI's automatic caching: the longest live cached
// prefix is read (in 128-token steps from MinTokens), and every prefix
// of MinTokens or more is cached.
func (s *Stub) accountAuto(blocks [][]byte) Usage {
	hash := make([][32]byte, len(blocks))
	size := make([]int, len(blocks))
	var h [32]byte
	total := 0
	for i, b := range blocks {
		h = sha256.Sum256(append(h[:], b...))
		hash[i] = h
		total += len(b)
		size[i] = total
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.o.Now()
	read := 0
	for i := len(blocks) - 1; i >= 0; i-- {
		if exp, ok := s.cache[hash[i]]; ok && now.Before(exp) {
			s.cache[hash[i]] = now.Add(s.o.TTL)
			if n := Tokens(size[i]); n >= s.o.MinTokens {
				read = s.o.MinTokens + (n-s.o.MinTokens)/openAIStep*openAIStep
			}
			break
		}
	}
	for i := range blocks {
		if Tokens(size[i]) >= s.o.MinTokens {
			s.cache[hash[i]] = now.Add(s.o.TTL)
		}
	}
	return Usage{InputTokens: Tokens(total) - read, CacheReadInputTokens: read}
}

func oaError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "code": nil}})
}
