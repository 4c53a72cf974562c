package mcp

import (
	"encoding/json"

	"github.com/luagent/luagent/runtime/jsonrpc"
	"github.com/luagent/luagent/runtime/jsonscan"
)

// Change notifications. Legacy sessions get list_changed whenever a list
// changes and resources/updated for the URIs they subscribed to. Modern
// clients get only what they opted in to on a subscriptions/listen request,
// which stays open; each notification carries the listen request's id as
// _meta subscriptionId, and an acknowledgement comes first.

type listenStream struct {
	id                        jsonrpc.ID
	tools, prompts, resources bool
	uris                      map[string]bool
	tasks                     map[string]bool // the tasks extension's notifications/tasks
}

type listenFilter struct {
	ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
	PromptsListChanged    bool     `json:"promptsListChanged,omitempty"`
	ResourcesListChanged  bool     `json:"resourcesListChanged,omitempty"`
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
	TaskIDs               []string `json:"taskIds,omitempty"`
}

func (sc *serverConn) listen(m *jsonrpc.Message) {
	var p struct {
		Notifications *listenFilter `json:"notifications"`
	}
	if json.Unmarshal(m.Params, &p) != nil || p.Notifications == nil {
		sc.conn.Reply(m.ID, nil, rpcError(jsonrpc.CodeInvalidParams, "subscriptions/listen needs params.notifications", nil))
		return
	}
	hc := sc.srv.handler.Capabilities()
	f := *p.Notifications
	honored := listenFilter{
		ToolsListChanged:     f.ToolsListChanged && hc.Tools,
		PromptsListChanged:   f.PromptsListChanged && hc.Prompts,
		ResourcesListChanged: f.ResourcesListChanged && hc.Resources,
	}
	ls := &listenStream{id: m.ID, tools: honored.ToolsListChanged, prompts: honored.PromptsListChanged,
		resources: honored.ResourcesListChanged, uris: map[string]bool{}}
	if hc.Resources && hc.Subscribe {
		honored.ResourceSubscriptions = f.ResourceSubscriptions
		for _, u := range f.ResourceSubscriptions {
			ls.uris[u] = true
		}
	}
	if len(f.TaskIDs) > 0 {
		caps := parseClientCaps(jsonscan.Member(jsonscan.Member(m.Params, "_meta"), MetaClientCapabilities))
		if _, ok := caps.Extensions[TasksExtension]; !ok {
			sc.conn.Reply(m.ID, nil, errTasksNotDeclared)
			return
		}
		// Only the tasks there are: an id is the bearer of its task.
		ls.tasks = map[string]bool{}
		for _, id := range f.TaskIDs {
			if sc.findTask(id, EraModern) != nil && !ls.tasks[id] {
				ls.tasks[id] = true
				honored.TaskIDs = append(honored.TaskIDs, id)
			}
		}
	}
	sc.mu.Lock()
	sc.listens[m.ID.String()] = ls
	sc.mu.Unlock()
	ack, _ := json.Marshal(map[string]any{
		"_meta":         map[string]json.RawMessage{MetaSubscriptionID: m.ID.Raw()},
		"notifications": honored,
	})
	sc.conn.Notify("notifications/subscriptions/acknowledged", ack)
}

func (ls *listenStream) close() {}

func (ls *listenStream) notify(sc *serverConn, method string, fields map[string]any) {
	p := map[string]any{"_meta": map[string]json.RawMessage{MetaSubscriptionID: ls.id.Raw()}}
	for k, v := range fields {
		p[k] = v
	}
	b, _ := json.Marshal(p)
	sc.conn.Notify(method, b)
}

// ListChanged tells every client that a list changed: kind is "tools",
// "prompts" or "resources". The registry says so itself when what it holds
// changes; this is for a list that changed otherwise (its cached encoding
// is dropped too).
func (s *Server) ListChanged(kind string) {
	if s.reg != nil {
		s.reg.dropLists(kind)
	}
	s.notifyListChanged(kind)
}

func (s *Server) notifyListChanged(kind string) {
	method := "notifications/" + kind + "/list_changed"
	for _, sc := range s.connections() {
		sc.mu.Lock()
		legacy := sc.initialized
		var ls []*listenStream
		for _, l := range sc.listens {
			if (kind == "tools" && l.tools) || (kind == "prompts" && l.prompts) || (kind == "resources" && l.resources) {
				ls = append(ls, l)
			}
		}
		sc.mu.Unlock()
		if legacy {
			sc.conn.Notify(method, nil)
		}
		for _, l := range ls {
			l.notify(sc, method, nil)
		}
	}
}

// ResourceUpdated tells the clients that subscribed to uri that it changed.
func (s *Server) ResourceUpdated(uri string) {
	for _, sc := range s.connections() {
		sc.mu.Lock()
		legacy := sc.initialized && sc.subs[uri]
		var ls []*listenStream
		for _, l := range sc.listens {
			if l.uris[uri] {
				ls = append(ls, l)
			}
		}
		sc.mu.Unlock()
		if legacy {
			b, _ := json.Marshal(map[string]string{"uri": uri})
			sc.conn.Notify("notifications/resources/updated", b)
		}
		for _, l := range ls {
			l.notify(sc, "notifications/resources/updated", map[string]any{"uri": uri})
		}
	}
}

// notifyTask sends notifications/tasks (the task as tasks/get gives it) on
// the listen streams that asked for it.
func (s *Server) notifyTask(t *serverTask) {
	var detail map[string]json.RawMessage
	for _, sc := range s.connections() {
		sc.mu.Lock()
		var ls []*listenStream
		for _, l := range sc.listens {
			if l.tasks[t.id] {
				ls = append(ls, l)
			}
		}
		sc.mu.Unlock()
		for _, l := range ls {
			if detail == nil {
				json.Unmarshal(t.encode(false, true), &detail)
			}
			p := map[string]any{"_meta": map[string]json.RawMessage{MetaSubscriptionID: l.id.Raw()}}
			for k, v := range detail {
				p[k] = v
			}
			b, _ := json.Marshal(p)
			sc.conn.Notify("notifications/tasks", b)
		}
	}
}

func (s *Server) connections() []*serverConn {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*serverConn, 0, len(s.conns))
	for sc := range s.conns {
		out = append(out, sc)
	}
	return out
}
