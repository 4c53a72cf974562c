// Package cachestub is a stand-in for Anthropic's Messages API (POST
// /v1/messages, whole or streamed) whose prompt cache behaves as
// Anthropic's prompt-caching documentation describes, so that tests and
// benchmarks can measure what luagent's cache breakpoints save:
//
//   - The prompt is the tools, then the system blocks, then the
//     messages' content blocks, in that order. A block marked
//     cache_control {"type": "ephemeral"} is a breakpoint; at most 4 are
//     allowed (more is a 400 invalid_request_error, as the API answers).
//   - At a breakpoint whose prefix (everything up to and including the
//     block) is at least MinTokens long, the prefix is written to the
//     cache, unless it is already there; it lives TTL (5 minutes) after
//     its last write or read.
//   - A request reads the longest cached prefix that ends at a block
//     boundary at or up to Lookback (20) blocks before one of its
//     breakpoints. A cached prefix matches only the exact same bytes:
//     every block up to it, compared as canonical JSON without its
//     cache_control marker (moving a breakpoint changes no prefix).
//   - Usage: cache_read_input_tokens is the prefix read,
//     cache_creation_input_tokens what was written beyond it, and
//     input_tokens the rest of the prompt (after the last breakpoint),
//     so the prompt is the sum of the three.
//
// Stub.OpenAI is the same for OpenAI's Chat Completions, whose caching is
// automatic (openai.go).
//
// Tokens are counted as bytes/4 of the canonical blocks: not a real
// tokenizer, but the same count for the same bytes, which is what a
// cache measurement needs. What the model answers is the Reply function's
// (a test's script). Time is Options.Now, so a test can expire the cache
// without sleeping.
package cachestub

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// Defaults of Options, as Anthropic documents them (MinTokens is the
// minimum cacheable prompt of most Claude models).
const (
	DefaultMinTokens = 1024
	DefaultTTL       = 5 * time.Minute
	DefaultLookback  = 20
	MaxBreakpoints   = 4
)

// Options configure a Stub.
type Options struct {
	// Reply is the model's answer to a request (nil: "ok").
	Reply func(r *Request) Reply
	// Now is the clock (nil: time.Now).
	Now       func() time.Time
	MinTokens int           // 0: DefaultMinTokens
	TTL       time.Duration // 0: DefaultTTL
	Lookback  int           // 0: DefaultLookback
}

// Request is what Reply sees of a request.
type Request struct {
	Model    string
	Messages []Message
	// Tools are the tools' names, in the request's order.
	Tools []string
}

// Message is one message of a Request.
type Message struct {
	Role   string
	Blocks []map[string]any
}

// Reply is the model's answer: text, and tool calls.
type Reply struct {
	Text  string
	Calls []Call
}

// Call is one tool_use block of a Reply.
type Call struct {
	ID, Name string
	Input    json.RawMessage
}

// Usage is one request's usage, as the API reports it.
type Usage struct {
	InputTokens              int `json:"input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	OutputTokens             int `json:"output_tokens"`
}

// Prompt is the whole prompt's tokens: the three input counts.
func (u Usage) Prompt() int {
	return u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens
}

// Stub is the stand-in, an http.Handler.
type Stub struct {
	o     Options
	mu    sync.Mutex
	cache map[[32]byte]time.Time // a prefix's hash: when it expires
	log   []Usage
}

// New is a Stub with an empty cache.
func New(o Options) *Stub {
	if o.Reply == nil {
		o.Reply = func(*Request) Reply { return Reply{Text: "ok"} }
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MinTokens == 0 {
		o.MinTokens = DefaultMinTokens
	}
	if o.TTL == 0 {
		o.TTL = DefaultTTL
	}
	if o.Lookback == 0 {
		o.Lookback = DefaultLookback
	}
	return &Stub{o: o, cache: map[[32]byte]time.Time{}}
}

// Usages are the usages of the requests answered so far, in order.
func (s *Stub) Usages() []Usage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Usage(nil), s.log...)
}

// wire is a request as sent.
type wire struct {
	Model     string            `json:"model"`
	MaxTokens int               `json:"max_tokens"`
	Stream    bool              `json:"stream"`
	System    json.RawMessage   `json:"system"`
	Tools     []json.RawMessage `json:"tools"`
	Messages  []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

// block is one block of the prompt, as the cache sees it.
type block struct {
	bytes      []byte // canonical, without cache_control
	breakpoint bool
}

func (s *Stub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		apiError(w, http.StatusNotFound, "not_found_error", "Not found")
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	var req wire
	if err := json.Unmarshal(body, &req); err != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "The request body is not valid JSON: "+err.Error())
		return
	}
	if req.Model == "" || req.MaxTokens <= 0 || len(req.Messages) == 0 {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "model, max_tokens and messages are required")
		return
	}
	blocks, seen, err := prompt(&req)
	if err != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	marks := 0
	for _, b := range blocks {
		if b.breakpoint {
			marks++
		}
	}
	if marks > MaxBreakpoints {
		apiError(w, http.StatusBadRequest, "invalid_request_error", fmt.Sprintf("A maximum of %d blocks with cache_control may be provided. Found %d.", MaxBreakpoints, marks))
		return
	}
	u := s.account(blocks)
	reply := s.o.Reply(seen)
	u.OutputTokens = 1 + len(reply.Text)/4
	for _, c := range reply.Calls {
		u.OutputTokens += 1 + (len(c.Name)+len(c.Input))/4
	}
	s.mu.Lock()
	s.log = append(s.log, u)
	s.mu.Unlock()
	if req.Stream {
		stream(w, req.Model, reply, u)
	} else {
		whole(w, req.Model, reply, u)
	}
}

// prompt is the request's blocks in the cache's order, and what Reply
// sees of it.
func prompt(req *wire) ([]block, *Request, error) {
	seen := &Request{Model: req.Model}
	var out []block
	add := func(prefix string, raw map[string]any) error {
		_, mark := raw["cache_control"]
		delete(raw, "cache_control")
		b, err := json.Marshal(raw) // map keys sorted: canonical
		if err != nil {
			return err
		}
		out = append(out, block{bytes: append([]byte(prefix), b...), breakpoint: mark})
		return nil
	}
	for _, t := range req.Tools {
		m, err := object(t)
		if err != nil {
			return nil, nil, fmt.Errorf("tools: %v", err)
		}
		name, _ := m["name"].(string)
		seen.Tools = append(seen.Tools, name)
		if err := add("tool:", m); err != nil {
			return nil, nil, err
		}
	}
	sys, err := blocks(req.System)
	if err != nil {
		return nil, nil, fmt.Errorf("system: %v", err)
	}
	for _, b := range sys {
		if err := add("system:", b); err != nil {
			return nil, nil, err
		}
	}
	for i, m := range req.Messages {
		if m.Role != "user" && m.Role != "assistant" {
			return nil, nil, fmt.Errorf("messages.%d.role: %q (user or assistant)", i, m.Role)
		}
		bs, err := blocks(m.Content)
		if err != nil {
			return nil, nil, fmt.Errorf("messages.%d.content: %v", i, err)
		}
		msg := Message{Role: m.Role}
		for j, b := range bs {
			c := map[string]any{}
			for k, v := range b {
				c[k] = v
			}
			msg.Blocks = append(msg.Blocks, c)
			prefix := "+"
			if j == 0 {
				prefix = m.Role + ":" // a new message starts
			}
			if err := add(prefix, b); err != nil {
				return nil, nil, err
			}
		}
		seen.Messages = append(seen.Messages, msg)
	}
	return out, seen, nil
}

// blocks reads content: a string (one text block) or a list of blocks.
func blocks(raw json.RawMessage) ([]map[string]any, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		return []map[string]any{{"type": "text", "text": s}}, nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("a string or a list of blocks: %v", err)
	}
	out := make([]map[string]any, 0, len(list))
	for _, b := range list {
		m, err := object(b)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

func object(raw json.RawMessage) (map[string]any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil || m == nil {
		return nil, fmt.Errorf("a block is not a JSON object")
	}
	return m, nil
}

// Tokens counts a prompt's bytes as tokens (4 bytes a token).
func Tokens(n int) int { return n / 4 }

// account looks the request's prefixes up in the cache, writes the new
// ones, and counts the usage.
func (s *Stub) account(blocks []block) Usage {
	n := len(blocks)
	hash := make([][32]byte, n)
	size := make([]int, n) // the prefix's bytes through block i
	var h [32]byte
	total := 0
	for i, b := range blocks {
		h = sha256.Sum256(append(h[:], b.bytes...))
		hash[i] = h
		total += len(b.bytes)
		size[i] = total
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.o.Now()
	alive := func(i int) bool {
		exp, ok := s.cache[hash[i]]
		return ok && now.Before(exp)
	}
	hit := -1
	for i, b := range blocks {
		if !b.breakpoint {
			continue
		}
		for j := i; j >= 0 && j > i-s.o.Lookback && j > hit; j-- {
			if alive(j) {
				hit = j
				break
			}
		}
	}
	read := 0
	if hit >= 0 {
		read = Tokens(size[hit])
		s.cache[hash[hit]] = now.Add(s.o.TTL) // a read refreshes it
	}
	written := -1
	for i, b := range blocks {
		if b.breakpoint && i > hit && Tokens(size[i]) >= s.o.MinTokens {
			s.cache[hash[i]] = now.Add(s.o.TTL)
			written = i
		}
	}
	u := Usage{CacheReadInputTokens: read}
	if written >= 0 {
		u.CacheCreationInputTokens = Tokens(size[written]) - read
	}
	u.InputTokens = Tokens(total) - u.CacheReadInputTokens - u.CacheCreationInputTokens
	return u
}

func apiError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
}

func content(reply Reply) []map[string]any {
	out := []map[string]any{}
	if reply.Text != "" {
		out = append(out, map[string]any{"type": "text", "text": reply.Text})
	}
	for _, c := range reply.Calls {
		in := c.Input
		if len(in) == 0 {
			in = json.RawMessage(`{}`)
		}
		out = append(out, map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": in})
	}
	return out
}

func stopReason(reply Reply) string {
	if len(reply.Calls) > 0 {
		return "tool_use"
	}
	return "end_turn"
}

func whole(w http.ResponseWriter, model string, reply Reply, u Usage) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"id": "msg_stub", "type": "message", "role": "assistant", "model": model,
		"content": content(reply), "stop_reason": stopReason(reply), "stop_sequence": nil, "usage": u})
}

// stream sends the answer as the API's events: message_start (with the
// input usage), a block's start, delta and stop each, message_delta (the
// output tokens), message_stop.
func stream(w http.ResponseWriter, model string, reply Reply, u Usage) {
	w.Header().Set("Content-Type", "text/event-stream")
	send := func(typ string, data map[string]any) {
		data["type"] = typ
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, b)
	}
	start := u
	start.OutputTokens = 1
	send("message_start", map[string]any{"message": map[string]any{"id": "msg_stub", "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": start}})
	for i, b := range content(reply) {
		switch b["type"] {
		case "text":
			send("content_block_start", map[string]any{"index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			send("content_block_delta", map[string]any{"index": i, "delta": map[string]any{"type": "text_delta", "text": b["text"]}})
		case "tool_use":
			send("content_block_start", map[string]any{"index": i, "content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			send("content_block_delta", map[string]any{"index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(b["input"].(json.RawMessage))}})
		}
		send("content_block_stop", map[string]any{"index": i})
	}
	send("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stopReason(reply), "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": u.OutputTokens}})
	send("message_stop", map[string]any{})
}
