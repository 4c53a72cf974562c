package llm

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Prompt caching. The providers cache a request's prefix: Anthropic up to
// the blocks marked with cache_control (tools, then system, then
// messages, in that order), OpenAI and most compatible servers on their
// own. Either way a cache holds only while the prefix is the same bytes,
// so the tools go out sorted by name with their schemas in canonical JSON,
// whatever order the hub listed them in.

// maxBreakpoints is the Messages API's limit of cache_control blocks in
// one request.
const maxBreakpoints = 4

var ephemeral = &anCacheControl{Type: "ephemeral"}

// stableTools is tools sorted by name (a copy).
func stableTools(tools []Tool) []Tool {
	out := slices.Clone(tools)
	slices.SortStableFunc(out, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// canonicalJSON is raw with object keys sorted at every level and no
// insignificant space; numbers keep their text. raw that is not JSON is
// returned as it is.
func canonicalJSON(raw json.RawMessage) json.RawMessage {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return raw
	}
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return raw
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// markCache sets the Messages API's cache breakpoints, at most
// maxBreakpoints: the last tool (the tools are the prefix's start), the
// system prompt's last block, the last message's last block (this
// request's whole prefix, written for the next), and the last block of
// the message two before it, where the previous request of the same
// conversation ended (user, then the assistant's answer, then this user
// turn), so that request's cache is read even when more than the API's
// 20-block lookback came between.
func markCache(p *anRequest) {
	n := 0
	if len(p.Tools) > 0 {
		p.Tools[len(p.Tools)-1].CacheControl = ephemeral
		n++
	}
	if len(p.System) > 0 {
		p.System[len(p.System)-1].CacheControl = ephemeral
		n++
	}
	for _, i := range []int{len(p.Messages) - 1, len(p.Messages) - 3} {
		if i < 0 || n >= maxBreakpoints {
			break
		}
		if c := p.Messages[i].Content; len(c) > 0 {
			c[len(c)-1].CacheControl = ephemeral
			n++
		}
	}
}

// schemaMemo keeps tool schemas already made canonical, by their bytes as
// the hub gave them: the same tools go out with every request, and
// canonicalising one is a decode and an encode each time. A bounded
// number is kept (a server that changes its schemas at every listing
// costs the work again, not memory).
type schemaMemo struct {
	m sync.Map // string(schema) -> json.RawMessage
	n atomic.Int32
}

const maxMemoSchemas = 4096

func (s *schemaMemo) of(raw json.RawMessage, build func() (json.RawMessage, error)) (json.RawMessage, error) {
	if v, ok := s.m.Load(string(raw)); ok {
		return v.(json.RawMessage), nil
	}
	out, err := build()
	if err == nil && s.n.Load() < maxMemoSchemas {
		if _, had := s.m.LoadOrStore(string(raw), out); !had {
			s.n.Add(1)
		}
	}
	return out, err
}

var anthropicSchemas, openaiSchemas schemaMemo
