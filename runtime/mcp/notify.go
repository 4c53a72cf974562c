package mcp

import (
	"context"
	"encoding/json"

	"github.com/luagent/luagent/runtime/jsonrpc"
)

// notification routes a server notification; it runs on the reader
// goroutine and must not block.
func (c *Client) notification(s *session, m *jsonrpc.Message) {
	switch m.Method {
	case "notifications/progress":
		var p struct {
			Token json.RawMessage `json:"progressToken"`
			Progress
		}
		if json.Unmarshal(m.Params, &p) == nil {
			if h, ok := c.progress.Load(string(p.Token)); ok {
				h.(func(Progress))(p.Progress)
			}
		}
		return
	case "notifications/cancelled":
		var p struct {
			RequestID jsonrpc.ID `json:"requestId"`
		}
		if json.Unmarshal(m.Params, &p) == nil {
			if cancel, ok := s.serverReqs.Load(p.RequestID.String()); ok {
				cancel.(context.CancelFunc)()
			}
			c.listenEnded(s, p.RequestID.String())
		}
		return
	case "notifications/subscriptions/acknowledged":
		c.listenAcknowledged(s, m.Params)
		return
	case "notifications/tasks/status", "notifications/tasks":
		var p struct {
			TaskID string `json:"taskId"`
			Task   *struct {
				TaskID string `json:"taskId"`
			} `json:"task"`
		}
		if json.Unmarshal(m.Params, &p) == nil {
			id := p.TaskID
			if id == "" && p.Task != nil {
				id = p.Task.TaskID
			}
			if h, ok := c.taskSubs.Load(id); ok {
				h.(func(json.RawMessage))(m.Params)
			}
		}
		return
	case "notifications/tools/list_changed":
		c.lists.drop("tools/list")
	case "notifications/prompts/list_changed":
		c.lists.drop("prompts/list")
	case "notifications/resources/list_changed":
		c.lists.drop("resources/list")
		c.lists.drop("resources/templates/list")
	}
	if c.opts.OnNotification != nil {
		c.opts.OnNotification(m.Method, m.Params)
	}
}
