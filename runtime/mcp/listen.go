package mcp

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/luagent/luagent/runtime/jsonrpc"
)

// Modern servers send change notifications only on a subscriptions/listen
// request the client keeps open, opting in to each kind. luagent opens one
// per session for every kind the server can send (so cached lists stay
// fresh) plus the resources the caller subscribed to, and replaces it when
// that set changes.

type listenState struct {
	mu    sync.Mutex
	call  *jsonrpc.Call
	acked chan struct{}
	ended bool
}

type subscriptionFilter struct {
	ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
	PromptsListChanged    bool     `json:"promptsListChanged,omitempty"`
	ResourcesListChanged  bool     `json:"resourcesListChanged,omitempty"`
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
}

func (c *Client) filter(s *session) subscriptionFilter {
	caps := s.info.Capabilities
	var f subscriptionFilter
	f.ToolsListChanged = caps.Tools != nil && caps.Tools.ListChanged
	f.PromptsListChanged = caps.Prompts != nil && caps.Prompts.ListChanged
	if caps.Resources != nil {
		f.ResourcesListChanged = caps.Resources.ListChanged
		if caps.Resources.Subscribe {
			f.ResourceSubscriptions = c.subscriptions()
		}
	}
	return f
}

// relisten (re)opens the session's listen stream with the current filter.
func (c *Client) relisten(s *session) error {
	f := c.filter(s)
	s.listenMu.Lock()
	defer s.listenMu.Unlock()
	if old := s.listen; old != nil {
		old.mu.Lock()
		old.ended = true
		call := old.call
		old.mu.Unlock()
		call.Abandon()
		c.cancelRequest(s, call.ID, "subscriptions/listen", "replaced by a new subscription filter")
		s.listen = nil
	}
	if !f.ToolsListChanged && !f.PromptsListChanged && !f.ResourcesListChanged && len(f.ResourceSubscriptions) == 0 {
		return nil
	}
	fb, _ := json.Marshal(f)
	params := c.params(s, json.RawMessage(`{"notifications":`+string(fb)+`}`), "", false)
	call, err := s.conn.Call("subscriptions/listen", params)
	if err != nil {
		return c.transportError("subscriptions/listen", err)
	}
	ls := &listenState{call: call, acked: make(chan struct{})}
	s.listen = ls
	go func() {
		select {
		case <-call.Done():
		case <-s.conn.Done():
			return
		}
		// The server ended the stream (it may do so at any time). Listen
		// again after a pause unless this stream was replaced or failed.
		ls.mu.Lock()
		ended := ls.ended
		ls.ended = true
		ls.mu.Unlock()
		if resp, err := call.Result(); ended || err != nil || (resp != nil && resp.Error != nil) {
			return
		}
		time.Sleep(time.Second)
		if s.alive() {
			s.listenMu.Lock()
			current := s.listen == ls
			s.listenMu.Unlock()
			if current {
				c.relisten(s)
			}
		}
	}()
	return nil
}

// listenEnded handles a server's notifications/cancelled for the listen
// request (the other way a server may end it).
func (c *Client) listenEnded(s *session, id string) {
	s.listenMu.Lock()
	ls := s.listen
	s.listenMu.Unlock()
	if ls == nil || ls.call.ID.String() != id {
		return
	}
	ls.call.Abandon()
	ls.mu.Lock()
	ls.ended = true
	ls.mu.Unlock()
}

func (c *Client) listenAcknowledged(s *session, params json.RawMessage) {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	s.listenMu.Lock()
	ls := s.listen
	s.listenMu.Unlock()
	if ls == nil || string(p.Meta[MetaSubscriptionID]) != ls.call.ID.String() {
		return
	}
	ls.mu.Lock()
	select {
	case <-ls.acked:
	default:
		close(ls.acked)
	}
	ls.mu.Unlock()
}
