package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/jsonscan"
	"github.com/luagent/luagent/runtime/trace"
)

// listCache keeps the pages of list results. Legacy lists stay valid until
// a list_changed notification or a reconnect; modern ones also expire after
// the result's ttlMs (absent means stale at once, as the spec says).
type listCache struct {
	mu sync.Mutex
	m  map[string]*listEntry
}

type listEntry struct {
	items   []json.RawMessage
	expires time.Time // zero: until dropped
	tools   []Tool
	headers map[string]map[string]string // tool → x-mcp-header name → argument
}

// paramHeaders is the x-mcp-header map of a listed tool (for the HTTP
// stream's Mcp-Param-* headers).
func (c *Client) paramHeaders(tool string) map[string]string {
	c.lists.mu.Lock()
	defer c.lists.mu.Unlock()
	if e := c.lists.m["tools/list"]; e != nil {
		return e.headers[tool]
	}
	return nil
}

func (lc *listCache) get(method string, fresh bool) *listEntry {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	e := lc.m[method]
	if e == nil || (fresh && !e.expires.IsZero() && time.Now().After(e.expires)) {
		return nil
	}
	return e
}

func (lc *listCache) put(method string, e *listEntry) {
	lc.mu.Lock()
	if lc.m == nil {
		lc.m = make(map[string]*listEntry)
	}
	lc.m[method] = e
	lc.mu.Unlock()
}

func (lc *listCache) drop(method string) {
	lc.mu.Lock()
	delete(lc.m, method)
	lc.mu.Unlock()
}

func (lc *listCache) invalidate() {
	lc.mu.Lock()
	lc.m = nil
	lc.mu.Unlock()
}

// maxPages bounds pagination against a server whose cursors never end.
const maxPages = 1000

// list fetches every page of a list method and returns the items of the
// member key, using the cache when it is fresh.
func (c *Client) list(ctx context.Context, method, key string) (*listEntry, error) {
	if e := c.lists.get(method, true); e != nil {
		return e, nil
	}
	var items []json.RawMessage
	var minTTL int64 = -1
	cursor := ""
	seen := map[string]bool{}
	for page := 0; ; page++ {
		if page >= maxPages {
			return nil, errs.Errorf(errs.Protocol, method, "server %q kept paginating past %d pages", c.opts.Name, maxPages)
		}
		var params json.RawMessage
		if page > 0 {
			params = json.RawMessage(`{"cursor":` + jsonscan.Quote(cursor) + `}`)
		}
		res, err := c.request(ctx, method, params, reqOpts{})
		if err != nil {
			return nil, err
		}
		var pageRes map[string]json.RawMessage
		if err := json.Unmarshal(res, &pageRes); err != nil {
			return nil, errs.Errorf(errs.Protocol, method, "server %q sent a malformed %s result: %v", c.opts.Name, method, err)
		}
		var pageItems []json.RawMessage
		if raw, ok := pageRes[key]; ok {
			if err := json.Unmarshal(raw, &pageItems); err != nil {
				return nil, errs.Errorf(errs.Protocol, method, "server %q sent a malformed %s list: %v", c.opts.Name, key, err)
			}
		}
		items = append(items, pageItems...)
		if raw, ok := pageRes["ttlMs"]; ok {
			var ttl int64
			if json.Unmarshal(raw, &ttl) == nil && (minTTL < 0 || ttl < minTTL) {
				minTTL = max(ttl, 0)
			}
		} else if c.Info().Era == EraModern {
			minTTL = 0
		}
		next, ok := pageRes["nextCursor"]
		if !ok || string(next) == "null" {
			break
		}
		if err := json.Unmarshal(next, &cursor); err != nil {
			return nil, errs.Errorf(errs.Protocol, method, "server %q sent a non-string nextCursor", c.opts.Name)
		}
		if seen[cursor] {
			return nil, errs.Errorf(errs.Protocol, method, "server %q repeated the cursor %q", c.opts.Name, cursor)
		}
		seen[cursor] = true
	}
	e := &listEntry{items: items}
	if minTTL >= 0 {
		e.expires = time.Now().Add(time.Duration(minTTL) * time.Millisecond)
	}
	if method == "tools/list" {
		e.tools = make([]Tool, 0, len(items))
		e.headers = map[string]map[string]string{}
		for _, raw := range items {
			var t Tool
			if json.Unmarshal(raw, &t) == nil && t.Name != "" {
				t.Raw = raw
				if c.opts.URL != "" {
					// Over HTTP a tool's x-mcp-header annotations must be
					// valid, or the tool is left out (2026-07-28).
					h, err := ParamHeaders(t.InputSchema)
					if err != nil {
						trace.Emit(c.opts.Trace, trace.Event{Kind: trace.ToolDropped, Server: c.opts.Name, Method: t.Name, Message: err.Error()})
						continue
					}
					if h != nil {
						e.headers[t.Name] = h
					}
				}
				e.tools = append(e.tools, t)
			}
		}
		trace.Emit(c.opts.Trace, trace.Event{Kind: trace.ToolsRefreshed, Server: c.opts.Name, Count: len(e.tools)})
	}
	c.lists.put(method, e)
	return e, nil
}

// Tools returns every tool the server lists (all pages).
func (c *Client) Tools(ctx context.Context) ([]Tool, error) {
	e, err := c.list(ctx, "tools/list", "tools")
	if err != nil {
		return nil, err
	}
	return e.tools, nil
}

// Resources returns every resource object the server lists.
func (c *Client) Resources(ctx context.Context) ([]json.RawMessage, error) {
	e, err := c.list(ctx, "resources/list", "resources")
	if err != nil {
		return nil, err
	}
	return e.items, nil
}

// Templates returns every resource template object.
func (c *Client) Templates(ctx context.Context) ([]json.RawMessage, error) {
	e, err := c.list(ctx, "resources/templates/list", "resourceTemplates")
	if err != nil {
		return nil, err
	}
	return e.items, nil
}

// Prompts returns every prompt object.
func (c *Client) Prompts(ctx context.Context) ([]json.RawMessage, error) {
	e, err := c.list(ctx, "prompts/list", "prompts")
	if err != nil {
		return nil, err
	}
	return e.items, nil
}

// CallOptions tune one tool call.
type CallOptions struct {
	// Progress receives progress notifications (and task status updates),
	// one call at a time and in order of arrival (on the client's goroutines
	// or the caller's: it must not block for long).
	Progress func(Progress)
	// Timeout overrides Options.Timeout for this call.
	Timeout time.Duration
	// Task asks to run the call as a task when the server and tool offer
	// it (legacy experimental tasks; a modern server decides itself).
	Task bool
	// Args is the arguments already decoded, when the caller has them
	// (saves decoding them again to validate).
	Args any
	// NoValidate skips checking the arguments against the input schema.
	NoValidate bool
}

// tool returns the listed tool name, refreshing the list once if it is not
// there; the cached list is used even when stale, since it serves only to
// validate.
func (c *Client) tool(ctx context.Context, name string) (*Tool, error) {
	var e *listEntry
	for attempt := 0; attempt < 2; attempt++ {
		if attempt == 1 {
			c.lists.drop("tools/list")
		}
		if e = c.lists.get("tools/list", false); e == nil {
			var err error
			if e, err = c.list(ctx, "tools/list", "tools"); err != nil {
				return nil, err
			}
		}
		for i := range e.tools {
			if e.tools[i].Name == name {
				return &e.tools[i], nil
			}
		}
	}
	names := []string{}
	for _, t := range e.tools {
		names = append(names, t.Name)
	}
	slices.Sort(names)
	return nil, errs.Errorf(errs.NotFound, "tools/call", "server %q has no tool %q (it has: %s)", c.opts.Name, name, joinNames(names, 12))
}

func joinNames(names []string, n int) string {
	if len(names) == 0 {
		return "none"
	}
	out := ""
	for i, s := range names {
		if i == n {
			return out + fmt.Sprintf(", and %d more", len(names)-n)
		}
		if i > 0 {
			out += ", "
		}
		out += s
	}
	return out
}

// oneAtATime serializes a progress callback: notifications arrive on the
// reader goroutine while a task's polls report on the caller's.
func oneAtATime(fn func(Progress)) func(Progress) {
	if fn == nil {
		return nil
	}
	var mu sync.Mutex
	return func(p Progress) {
		mu.Lock()
		defer mu.Unlock()
		fn(p)
	}
}

// CallToolRaw calls a tool and returns the result object as the server sent
// it (after input_required rounds and tasks are followed).
func (c *Client) CallToolRaw(ctx context.Context, name string, args json.RawMessage, o CallOptions) (json.RawMessage, error) {
	o.Progress = oneAtATime(o.Progress)
	if _, err := c.session(ctx); err != nil {
		return nil, err
	}
	t, err := c.tool(ctx, name)
	if err != nil {
		return nil, err
	}
	params, err := c.callParams(t, args, o)
	if err != nil {
		return nil, err
	}
	start := c.startToolCall(ctx, name)
	var res json.RawMessage
	if c.useLegacyTask(t, o) {
		res, err = c.callLegacyTask(ctx, params, o)
	} else {
		res, err = c.request(ctx, "tools/call", params, reqOpts{progress: o.Progress, timeout: o.Timeout, mrtr: true, tasks: true})
	}
	res, err = c.toolResult(res, err)
	c.endToolCall(name, start, err)
	return res, err
}

// toolResult passes on a tools/call answer that is an object (a
// CallToolResult). Anything else (5, [], null) is the server breaking the
// protocol: said here, once, rather than left for each caller to trip on.
func (c *Client) toolResult(res json.RawMessage, err error) (json.RawMessage, error) {
	if err != nil {
		return nil, err
	}
	if i := jsonscan.SkipSpace(res, 0); i < len(res) && res[i] == '{' {
		return res, nil
	}
	shown := string(res)
	if len(shown) > 40 {
		shown = strings.ToValidUTF8(shown[:40], "") + "..."
	}
	return nil, c.protocolError("tools/call", "sent a tools/call result that is not an object: "+shown)
}

// callParams checks the arguments against the tool's input schema and
// builds the tools/call params.
func (c *Client) callParams(t *Tool, args json.RawMessage, o CallOptions) (json.RawMessage, error) {
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	if !o.NoValidate {
		v := o.Args
		if v == nil {
			if err := json.Unmarshal(args, &v); err != nil {
				return nil, errs.Errorf(errs.Invalid, "tools/call", "arguments for tool %q are not JSON: %v", t.Name, err)
			}
		}
		if err := validateArgs(c.schemas.compile(t.InputSchema), t.Name, v); err != nil {
			return nil, err
		}
	}
	params := make([]byte, 0, len(t.Name)+len(args)+32)
	params = append(params, `{"name":`...)
	params = jsonscan.AppendString(params, t.Name)
	params = append(params, `,"arguments":`...)
	params = append(params, args...)
	return append(params, '}'), nil
}

// CallTool calls a tool and decodes its result.
func (c *Client) CallTool(ctx context.Context, name string, args json.RawMessage, o CallOptions) (*CallToolResult, error) {
	raw, err := c.CallToolRaw(ctx, name, args, o)
	if err != nil {
		return nil, err
	}
	r := &CallToolResult{Raw: raw}
	if err := json.Unmarshal(raw, r); err != nil {
		return nil, errs.Errorf(errs.Protocol, "tools/call", "server %q sent a malformed tool result: %v", c.opts.Name, err)
	}
	return r, nil
}

// ReadResource reads uri and returns the result object ({contents: [...]}).
func (c *Client) ReadResource(ctx context.Context, uri string) (json.RawMessage, error) {
	return c.request(ctx, "resources/read", json.RawMessage(`{"uri":`+jsonscan.Quote(uri)+`}`), reqOpts{mrtr: true})
}

// GetPrompt gets a prompt with its arguments (string values).
func (c *Client) GetPrompt(ctx context.Context, name string, args map[string]string) (json.RawMessage, error) {
	fields := map[string]any{"name": name}
	if len(args) > 0 {
		fields["arguments"] = args
	}
	b, _ := json.Marshal(fields)
	return c.request(ctx, "prompts/get", b, reqOpts{mrtr: true})
}

// Complete asks for completions of an argument: ref is {"type":"ref/prompt",
// "name":...} or {"type":"ref/resource","uri":...}; context carries the
// other arguments already given (may be nil).
func (c *Client) Complete(ctx context.Context, ref json.RawMessage, argName, value string, context map[string]string) (json.RawMessage, error) {
	fields := map[string]any{"ref": ref, "argument": map[string]string{"name": argName, "value": value}}
	if len(context) > 0 {
		fields["context"] = map[string]any{"arguments": context}
	}
	b, _ := json.Marshal(fields)
	return c.request(ctx, "completion/complete", b, reqOpts{})
}

// Request sends any method with params (a JSON object or nil) and returns
// the result, with the era's envelope added.
func (c *Client) Request(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	return c.request(ctx, method, params, reqOpts{})
}

// SetLogLevel asks the server for log messages at level and above: legacy
// logging/setLevel; modern, the level rides on every later request.
// "" stops asking (modern) or is rejected (legacy has no off).
func (c *Client) SetLogLevel(ctx context.Context, level string) error {
	if level != "" && !slices.Contains(LogLevels, level) {
		return errs.Errorf(errs.Invalid, "logging/setLevel", "unknown log level %q (one of %v)", level, LogLevels)
	}
	c.mu.Lock()
	c.logLevel = level
	c.mu.Unlock()
	s, err := c.session(ctx)
	if err != nil {
		return err
	}
	if s.info.Era == EraLegacy && level != "" {
		err = c.sendLevel(ctx, s)
	}
	return err
}

// sendLevel sends the client's log level to a legacy session unless the
// session already has it: SetLogLevel and the restore after a (re)connect
// both come here, so one connection is asked once. The level is read
// under the session's lock, so the last one set is the one that stays.
func (c *Client) sendLevel(ctx context.Context, s *session) error {
	s.levelMu.Lock()
	defer s.levelMu.Unlock()
	lvl := c.currentLogLevel()
	if lvl == "" || lvl == s.level {
		return nil
	}
	_, err := c.follow(ctx, s, "logging/setLevel", json.RawMessage(`{"level":`+jsonscan.Quote(lvl)+`}`), reqOpts{}, 0, nil, nil)
	if err == nil {
		s.level = lvl
	}
	return err
}

func (c *Client) currentLogLevel() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.logLevel
}

// WantLogs makes modern requests ask for log messages (debug and above)
// while no level is set. A legacy server sends logs unasked until the
// client sets a level; modern ones send none unless each request asks, so
// without this a script's log handler heard nothing from modern servers.
func (c *Client) WantLogs() {
	c.mu.Lock()
	c.wantLogs = true
	c.mu.Unlock()
}

// requestLogLevel is the level a modern request carries ("" for none).
func (c *Client) requestLogLevel() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.logLevel == "" && c.wantLogs {
		return "debug"
	}
	return c.logLevel
}

// Subscribe asks for notifications/resources/updated about uri: legacy
// resources/subscribe; modern, the uri joins the listen stream's filter.
func (c *Client) Subscribe(ctx context.Context, uri string) error {
	c.mu.Lock()
	c.subs[uri] = true
	c.mu.Unlock()
	s, err := c.session(ctx)
	if err != nil {
		return err
	}
	if s.info.Era == EraLegacy {
		_, err = c.request(ctx, "resources/subscribe", json.RawMessage(`{"uri":`+jsonscan.Quote(uri)+`}`), reqOpts{})
		return err
	}
	return c.relisten(s)
}

// Unsubscribe undoes Subscribe.
func (c *Client) Unsubscribe(ctx context.Context, uri string) error {
	c.mu.Lock()
	delete(c.subs, uri)
	c.mu.Unlock()
	s, err := c.session(ctx)
	if err != nil {
		return err
	}
	if s.info.Era == EraLegacy {
		_, err = c.request(ctx, "resources/unsubscribe", json.RawMessage(`{"uri":`+jsonscan.Quote(uri)+`}`), reqOpts{})
		return err
	}
	return c.relisten(s)
}

func (c *Client) subscriptions() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, 0, len(c.subs))
	for u := range c.subs {
		out = append(out, u)
	}
	slices.Sort(out)
	return out
}

// afterConnect restores what the client had asked of an earlier session:
// the log level and resource subscriptions (legacy), the listen stream
// (modern).
func (c *Client) afterConnect(s *session) {
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), c.opts.Timeout)
		defer cancel()
		if s.info.Era == EraModern {
			c.relisten(s)
			return
		}
		if s.info.Capabilities.Logging != nil {
			c.sendLevel(ctx, s)
		}
		for _, uri := range c.subscriptions() {
			c.request(ctx, "resources/subscribe", json.RawMessage(`{"uri":`+jsonscan.Quote(uri)+`}`), reqOpts{})
		}
	}()
}
