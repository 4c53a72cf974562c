package mcp

import (
	"bytes"
	"encoding/json"
	"sync"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/jsonrpc"
)

// The registry is what a Server offers when it is made without a Handler:
// tools, resources, resource templates, prompts and completions added with
// Go handlers (AddTool, AddResource, ...). It lists them (each list encoded
// once and kept until the set changes), checks what a request names and
// its arguments, encodes results, and tells clients when a list changes.
// Handlers are called on the goroutine that delivered the request and must
// not block: each answers once, from any goroutine (see ToolHandler).

type registry struct {
	srv      *Server
	declared HandlerCapabilities // ServerOptions.Capabilities: offered even while empty

	mu          sync.RWMutex
	tools       entries[*serverTool]
	resources   entries[*serverResource]
	templates   entries[*serverTemplate]
	prompts     entries[*serverPrompt]
	skills      entries[*serverSkill]
	completions map[CompletionRef]CompletionHandler
	lists       map[string]json.RawMessage // method -> encoded result, dropped on change
}

// entries is a list in registration order whose keys are unique: adding a
// key again replaces its entry where it stands.
type entries[T any] struct {
	order []string
	m     map[string]T
}

func (e *entries[T]) put(key string, v T) {
	if e.m == nil {
		e.m = map[string]T{}
	}
	if _, ok := e.m[key]; !ok {
		e.order = append(e.order, key)
	}
	e.m[key] = v
}

// remove deletes keys and reports how many were there.
func (e *entries[T]) remove(keys ...string) int {
	n := 0
	for _, k := range keys {
		if _, ok := e.m[k]; !ok {
			continue
		}
		delete(e.m, k)
		n++
		for i, o := range e.order {
			if o == k {
				e.order = append(e.order[:i], e.order[i+1:]...)
				break
			}
		}
	}
	return n
}

func (e *entries[T]) get(key string) T { return e.m[key] }

func (e *entries[T]) len() int { return len(e.m) }

// each calls f on the entries in order until it returns false.
func (e *entries[T]) each(f func(T) bool) {
	for _, k := range e.order {
		if !f(e.m[k]) {
			return
		}
	}
}

// listKinds maps each list method to the result's member and the kind its
// change notification names.
var listKinds = map[string]struct{ member, kind string }{
	"tools/list":               {"tools", "tools"},
	"resources/list":           {"resources", "resources"},
	"resources/templates/list": {"resourceTemplates", "resources"},
	"prompts/list":             {"prompts", "prompts"},
}

// errCustomHandler is what the registry's methods report on a server made
// with its own Handler, which offers its features itself.
var errCustomHandler = errs.New(errs.Invalid, "", "the server was made with its own Handler, which offers its features itself")

// change runs f under the lock, drops the cached lists and, when f reports
// a change, tells clients the list of kind changed.
func (reg *registry) change(kind string, f func() bool) {
	reg.mu.Lock()
	changed := f()
	if changed {
		reg.lists = nil
	}
	reg.mu.Unlock()
	if changed {
		reg.srv.notifyListChanged(kind)
	}
}

// add puts v under key in the entries of kind (list picks them), first
// dropping key's completions of type ref ("" for none), and notifies.
func add[T any](s *Server, kind string, list func(*registry) *entries[T], ref, key string, v T) error {
	reg := s.reg
	if reg == nil {
		return errCustomHandler
	}
	reg.change(kind, func() bool {
		list(reg).put(key, v)
		reg.dropCompletions(ref, key)
		return true
	})
	return nil
}

// remove takes keys (and their completions of type ref) out of the
// entries of kind and says how many were there.
func remove[T any](s *Server, kind string, list func(*registry) *entries[T], ref string, keys []string) int {
	reg := s.reg
	if reg == nil {
		return 0
	}
	n := 0
	reg.change(kind, func() bool {
		n = list(reg).remove(keys...)
		for _, k := range keys {
			reg.dropCompletions(ref, k)
		}
		return n > 0
	})
	return n
}

func toolEntries(r *registry) *entries[*serverTool]         { return &r.tools }
func resourceEntries(r *registry) *entries[*serverResource] { return &r.resources }
func templateEntries(r *registry) *entries[*serverTemplate] { return &r.templates }
func promptEntries(r *registry) *entries[*serverPrompt]     { return &r.prompts }

// dropLists forgets the encoded lists of kind ("" for all).
func (reg *registry) dropLists(kind string) {
	reg.mu.Lock()
	for m, k := range listKinds {
		if kind == "" || k.kind == kind {
			delete(reg.lists, m)
		}
	}
	reg.mu.Unlock()
}

// Capabilities implements ServerHandler: what is registered, or declared.
func (reg *registry) Capabilities() HandlerCapabilities {
	reg.mu.RLock()
	defer reg.mu.RUnlock()
	d := reg.declared
	_, fallback := reg.completions[CompletionRef{}]
	return HandlerCapabilities{
		Tools:       d.Tools || reg.tools.len() > 0,
		Resources:   d.Resources || reg.resources.len() > 0 || reg.templates.len() > 0,
		Prompts:     d.Prompts || reg.prompts.len() > 0,
		Completions: d.Completions || fallback || reg.templates.len() > 0 || reg.prompts.len() > 0,
		Subscribe:   true,
	}
}

// Handle implements ServerHandler.
func (reg *registry) Handle(r *Request) {
	switch r.Method {
	case "tools/list", "resources/list", "resources/templates/list", "prompts/list":
		r.Reply(reg.list(r.Method))
	case "tools/call":
		reg.callTool(r)
	case "resources/read":
		reg.readResource(r)
	case "prompts/get":
		reg.getPrompt(r)
	case "completion/complete":
		reg.complete(r)
	case "skills/list":
		reg.listSkills(r)
	case "skills/get":
		reg.getSkill(r)
	case "resources/directory/read":
		reg.readSkillDir(r)
	default:
		r.Fail(&jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "Method not found: " + r.Method})
	}
}

// list returns the encoded result of a list method, encoding it on the
// first ask after a change.
func (reg *registry) list(method string) json.RawMessage {
	reg.mu.RLock()
	b, ok := reg.lists[method]
	reg.mu.RUnlock()
	if ok {
		return b
	}
	reg.mu.Lock()
	defer reg.mu.Unlock()
	var items []json.RawMessage
	add := func(def json.RawMessage) bool { items = append(items, def); return true }
	switch method {
	case "tools/list":
		reg.tools.each(func(t *serverTool) bool { return add(t.def) })
	case "resources/list":
		reg.resources.each(func(r *serverResource) bool { return add(r.def) })
	case "resources/templates/list":
		reg.templates.each(func(t *serverTemplate) bool { return add(t.def) })
	case "prompts/list":
		reg.prompts.each(func(p *serverPrompt) bool { return add(p.def) })
	}
	// The definitions are compact JSON already: joining them is what
	// marshalling {member: items} gives, without building encoders for it.
	b = append(append(append(make([]byte, 0, 64), `{"`...), listKinds[method].member...), `":[`...)
	for i, item := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, item...)
	}
	b = append(b, "]}"...)
	if reg.lists == nil {
		reg.lists = map[string]json.RawMessage{}
	}
	reg.lists[method] = b
	return b
}

// definition is the list entry of a feature: raw when given (compacted,
// so that lists stay compact), else v encoded.
func definition(raw json.RawMessage, v any) (json.RawMessage, error) {
	if raw == nil {
		return json.Marshal(v)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return nil, errs.Errorf(errs.Invalid, "", "the definition is not valid JSON: %v", err)
	}
	return b.Bytes(), nil
}

// Offered counts what a server's registry holds (nothing for a server made
// with its own Handler).
type Offered struct {
	Tools, Resources, ResourceTemplates, Prompts int
}

// Offered counts the registered tools, resources, templates and prompts.
func (s *Server) Offered() Offered {
	reg := s.reg
	if reg == nil {
		return Offered{}
	}
	reg.mu.RLock()
	defer reg.mu.RUnlock()
	return Offered{Tools: reg.tools.len(), Resources: reg.resources.len(), ResourceTemplates: reg.templates.len(), Prompts: reg.prompts.len()}
}
