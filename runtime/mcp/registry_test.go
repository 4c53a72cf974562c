package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/mcp"
	"github.com/luagent/luagent/runtime/transport/httpserver"
)

// registryServer serves a registry server over Streamable HTTP; connect
// to it with dial.
func registryServer(t *testing.T, opts mcp.ServerOptions) (*mcp.Server, string) {
	t.Helper()
	srv := mcp.NewServer(opts)
	h := httpserver.NewHandler(srv, httpserver.Options{})
	web := httptest.NewServer(h)
	t.Cleanup(func() { web.Close(); h.Close(); srv.Close() })
	return srv, web.URL
}

func dial(t *testing.T, url, era string, o mcp.Options) *mcp.Client {
	t.Helper()
	o.URL, o.Protocol, o.Timeout = url, era, 10*time.Second
	c, err := mcp.Connect(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// call sends tools/call as is (the client would check the arguments
// itself) and returns the result.
func call(t *testing.T, c *mcp.Client, name, args string) *mcp.CallToolResult {
	t.Helper()
	raw, err := c.Request(context.Background(), "tools/call", json.RawMessage(`{"name":"`+name+`","arguments":`+args+`}`))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var r mcp.CallToolResult
	json.Unmarshal(raw, &r)
	r.Raw = raw
	return &r
}

func names(t *testing.T, items []json.RawMessage, key string) []string {
	t.Helper()
	var out []string
	for _, it := range items {
		var m map[string]any
		json.Unmarshal(it, &m)
		out = append(out, m[key].(string))
	}
	return out
}

func eras(t *testing.T, f func(t *testing.T, era string)) {
	for _, era := range []string{"modern", "legacy"} {
		t.Run(era, func(t *testing.T) { f(t, era) })
	}
}

func TestRegistryTools(t *testing.T) {
	srv, url := registryServer(t, mcp.ServerOptions{})
	text := func(s string) mcp.ToolHandler {
		return func(c *mcp.ToolCall) { go c.ReturnText(s + " " + string(c.Arguments)) }
	}
	must(t, srv.AddTool(mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`)}, text("first")))
	must(t, mcp.AddToolFunc(srv, mcp.Tool{Name: "add"}, func(ctx context.Context, in struct{ A, B int }) (*mcp.CallToolResult, error) {
		if _, ok := mcp.ToolCallOf(ctx); !ok {
			return nil, errors.New("no call in the context")
		}
		return mcp.TextResult(strings.Repeat("+", in.A+in.B)), nil
	}))
	out := json.RawMessage(`{"type":"object","properties":{"n":{"type":"number"}},"required":["n"]}`)
	must(t, srv.AddTool(mcp.Tool{Name: "structured", OutputSchema: out}, func(c *mcp.ToolCall) {
		c.Return(&mcp.CallToolResult{StructuredContent: json.RawMessage(`{"n":1}`)}, nil)
	}))
	must(t, srv.AddTool(mcp.Tool{Raw: json.RawMessage(`{"name": "bad_output", "outputSchema": {"type":"object","properties":{"n":{"type":"number"}}}, "icons": []}`)}, func(c *mcp.ToolCall) {
		c.Return(&mcp.CallToolResult{Raw: json.RawMessage(`{"content":[],"structuredContent":{"n":"one"}}`)}, nil)
	}))
	must(t, srv.AddTool(mcp.Tool{Name: "fails"}, func(c *mcp.ToolCall) { c.Return(nil, errors.New("it broke")) }))
	// Adding a name again replaces the tool where it stands.
	must(t, srv.AddTool(mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`)}, text("second")))

	eras(t, func(t *testing.T, era string) {
		c := dial(t, url, era, mcp.Options{})
		tools, err := c.Tools(context.Background())
		must(t, err)
		var got []string
		for _, tl := range tools {
			got = append(got, tl.Name)
		}
		if want := []string{"echo", "add", "structured", "bad_output", "fails"}; !reflect.DeepEqual(got, want) {
			t.Errorf("tools %v, want %v", got, want)
		}
		if !strings.Contains(string(tools[1].InputSchema), `"A"`) || !strings.Contains(string(tools[3].Raw), `"icons":[]`) {
			t.Errorf("inferred schema %s, raw definition %s", tools[1].InputSchema, tools[3].Raw)
		}
		for _, tc := range []struct {
			name, args, text string
			isError          bool
		}{
			{"echo", `{"message":"hi"}`, `second {"message":"hi"}`, false},
			{"echo", `{"message":5}`, "invalid arguments for tool echo: argument message is an integer, want a string", true},
			{"echo", `null`, "invalid arguments for tool echo: argument message is missing", true},
			{"add", `{"A":1,"B":2}`, "+++", false},
			{"add", `{"A":"x","B":1}`, "invalid arguments for tool add: argument A is a string, want an integer", true},
			{"structured", `{}`, `{"n":1}`, false},
			{"bad_output", `{}`, "the tool's result does not match its output schema: field n is a string, want a number", true},
			{"fails", `{}`, "it broke", true},
		} {
			r := call(t, c, tc.name, tc.args)
			if r.Text() != tc.text || r.IsError != tc.isError {
				t.Errorf("%s(%s) = %q (isError %v), want %q (%v)", tc.name, tc.args, r.Text(), r.IsError, tc.text, tc.isError)
			}
		}
		if r := call(t, c, "structured", `{}`); string(r.StructuredContent) != `{"n":1}` {
			t.Errorf("structured content %s", r.StructuredContent)
		}
		_, err = c.Request(context.Background(), "tools/call", json.RawMessage(`{"name":"nope"}`))
		if je, ok := mcp.ServerError(err); !ok || je.Code != -32602 || je.Message != "Unknown tool: nope" {
			t.Errorf("unknown tool: %v", err)
		}
	})
	if n := srv.RemoveTools("add", "nope"); n != 1 {
		t.Errorf("RemoveTools removed %d", n)
	}
	if o := srv.Offered(); o.Tools != 4 {
		t.Errorf("offered %+v", o)
	}
}

// Changes after start reach the clients (legacy sessions here; modern
// listen streams in luabind/mod/mcp's server tests, both eras).
func TestRegistryNotifiesChanges(t *testing.T) {
	srv, url := registryServer(t, mcp.ServerOptions{Capabilities: mcp.HandlerCapabilities{Tools: true, Prompts: true}})
	for _, era := range []string{"legacy"} {
		got := make(chan string, 16)
		c := dial(t, url, era, mcp.Options{OnNotification: func(method string, _ json.RawMessage) { got <- method }})
		if c.Info().Capabilities.Tools == nil || c.Info().Capabilities.Resources != nil {
			t.Errorf("capabilities %s: tools are declared, resources not", c.Info().Capabilities.Raw)
		}
		for _, change := range []struct {
			do   func()
			want string
		}{
			{func() { srv.AddTool(mcp.Tool{Name: "late"}, func(c *mcp.ToolCall) { c.Return(nil, nil) }) }, "notifications/tools/list_changed"},
			{func() { srv.RemoveTools("late") }, "notifications/tools/list_changed"},
			{func() { srv.ListChanged("prompts") }, "notifications/prompts/list_changed"},
		} {
			change.do()
			select {
			case m := <-got:
				if m != change.want {
					t.Errorf("got %s, want %s", m, change.want)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("no %s", change.want)
			}
		}
	}
}

func TestRegistryResources(t *testing.T) {
	srv, url := registryServer(t, mcp.ServerOptions{})
	must(t, srv.AddResource(mcp.Resource{URI: "n://static", MIMEType: "text/plain"}, func(r *mcp.ResourceRead) {
		r.Return(&mcp.ReadResourceResult{Contents: []mcp.ResourceContents{{Text: "static"}, {Blob: []byte{0, 1}}}}, nil)
	}))
	tpl := func(word string) mcp.ResourceHandler {
		return func(r *mcp.ResourceRead) {
			if r.Vars["id"] == "missing" {
				r.Return(nil, nil)
				return
			}
			r.Return(&mcp.ReadResourceResult{Contents: []mcp.ResourceContents{{Text: word + " " + r.Vars["id"]}}}, nil)
		}
	}
	// The same uriTemplate twice: listed once, the second one serves.
	must(t, srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "n://{id}"}, tpl("first")))
	must(t, srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "n://{id}"}, tpl("second")))
	eras(t, func(t *testing.T, era string) {
		ctx := context.Background()
		c := dial(t, url, era, mcp.Options{})
		res, err := c.Resources(ctx)
		must(t, err)
		tpls, err := c.Templates(ctx)
		must(t, err)
		if got := names(t, res, "uri"); !reflect.DeepEqual(got, []string{"n://static"}) {
			t.Errorf("resources %v", got)
		}
		if got := names(t, tpls, "uriTemplate"); !reflect.DeepEqual(got, []string{"n://{id}"}) {
			t.Errorf("templates %v", got)
		}
		for _, tc := range []struct{ uri, want string }{
			{"n://static", `{"contents":[{"uri":"n://static","mimeType":"text/plain","text":"static"},{"uri":"n://static","mimeType":"text/plain","blob":"AAE="}]}`},
			{"n://42", `{"contents":[{"uri":"n://42","text":"second 42"}]}`},
		} {
			raw, err := c.ReadResource(ctx, tc.uri)
			must(t, err)
			var got, want any
			json.Unmarshal(raw, &got)
			json.Unmarshal([]byte(tc.want), &want)
			delete(got.(map[string]any), "_meta")
			for _, k := range []string{"resultType", "ttlMs", "cacheScope"} {
				delete(got.(map[string]any), k)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("read %s = %s, want %s", tc.uri, raw, tc.want)
			}
		}
		code := map[string]int{"modern": -32602, "legacy": -32002}[era]
		for _, uri := range []string{"n://missing", "x://nothing/here"} {
			_, err := c.ReadResource(ctx, uri)
			if je, ok := mcp.ServerError(err); !ok || je.Code != code || errs.KindOf(err) != errs.NotFound {
				t.Errorf("read %s: %v, want code %d", uri, err, code)
			}
		}
	})
	if n := srv.RemoveResourceTemplates("n://{id}"); n != 1 || srv.Offered() != (mcp.Offered{Resources: 1}) {
		t.Errorf("removed %d, offered %+v", n, srv.Offered())
	}
}

func TestRegistryPromptsAndCompletion(t *testing.T) {
	srv, url := registryServer(t, mcp.ServerOptions{})
	greet := func(word string) mcp.PromptHandler {
		return func(g *mcp.PromptGet) {
			g.Return(&mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: "user", Content: mcp.TextContent(word + " " + g.Arguments["name"])}}}, nil)
		}
	}
	values := func(vs ...string) mcp.CompletionHandler {
		return func(c *mcp.CompleteCall) { c.Return(&mcp.CompleteResult{Values: append(vs, c.Value)}, nil) }
	}
	prompt := mcp.Prompt{Name: "greet", Arguments: []mcp.PromptArgument{{Name: "name", Required: true}, {Name: "tone"}}}
	must(t, srv.AddPrompt(prompt, greet("hello")))
	must(t, srv.SetCompletion(mcp.CompletionRef{Type: "ref/prompt", Name: "greet", Argument: "name"}, values("ada")))
	must(t, srv.SetCompletion(mcp.CompletionRef{}, values("fallback")))
	many := make([]string, 150)
	must(t, srv.SetCompletion(mcp.CompletionRef{Type: "ref/prompt", Name: "greet", Argument: "tone"}, values(many...)))
	ctx := context.Background()
	c := dial(t, url, "modern", mcp.Options{})
	raw, err := c.GetPrompt(ctx, "greet", map[string]string{"name": "Ada"})
	must(t, err)
	if !strings.Contains(string(raw), `"text":"hello Ada"`) {
		t.Errorf("prompt %s", raw)
	}
	if _, err := c.GetPrompt(ctx, "greet", nil); err == nil || !strings.Contains(err.Error(), "prompt greet needs argument name") {
		t.Errorf("missing argument: %v", err)
	}
	complete := func(arg, value string) (vals []string, hasMore bool) {
		raw, err := c.Complete(ctx, json.RawMessage(`{"type":"ref/prompt","name":"greet"}`), arg, value, nil)
		must(t, err)
		var r struct {
			Completion struct {
				Values  []string
				HasMore bool
			}
		}
		json.Unmarshal(raw, &r)
		return r.Completion.Values, r.Completion.HasMore
	}
	if v, _ := complete("name", "a"); !reflect.DeepEqual(v, []string{"ada", "a"}) {
		t.Errorf("name completes to %v", v)
	}
	if v, more := complete("tone", "x"); len(v) != 100 || !more {
		t.Errorf("150 values: %d sent, hasMore %v", len(v), more)
	}
	// Adding the prompt again drops its completions: the fallback answers.
	must(t, srv.AddPrompt(prompt, greet("hi")))
	if v, _ := complete("name", "a"); !reflect.DeepEqual(v, []string{"fallback", "a"}) {
		t.Errorf("after re-adding, name completes to %v", v)
	}
	if n := srv.RemovePrompts("greet"); n != 1 {
		t.Errorf("RemovePrompts removed %d", n)
	}
}

// Registration mistakes are reported where they are made, with kind Invalid.
func TestRegistryMistakes(t *testing.T) {
	srv := mcp.NewServer(mcp.ServerOptions{})
	defer srv.Close()
	ok := func(c *mcp.ToolCall) { c.Return(nil, nil) }
	for _, tc := range []struct {
		what string
		err  error
		want string
	}{
		{"no name", srv.AddTool(mcp.Tool{}, ok), "a tool needs a name"},
		{"no handler", srv.AddTool(mcp.Tool{Name: "x"}, nil), "needs a handler"},
		{"bad input", srv.AddTool(mcp.Tool{Name: "x", InputSchema: json.RawMessage(`{"type":"object","properties":5}`)}, ok), "input schema"},
		{"bad output", srv.AddTool(mcp.Tool{Name: "x", OutputSchema: json.RawMessage(`{"required":"x"}`)}, ok), "output schema"},
		{"bad header", srv.AddTool(mcp.Tool{Name: "x", InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"number","x-mcp-header":"N"}}}`)}, ok), "x-mcp-header is only allowed"},
		{"bad raw", srv.AddResource(mcp.Resource{Raw: json.RawMessage(`[]`)}, func(*mcp.ResourceRead) {}), "not a JSON object"},
		{"no uri", srv.AddResourceTemplate(mcp.ResourceTemplate{}, func(*mcp.ResourceRead) {}), "needs a uriTemplate"},
		{"no prompt name", srv.AddPrompt(mcp.Prompt{}, func(*mcp.PromptGet) {}), "needs a name"},
		{"custom handler", mcp.NewServer(mcp.ServerOptions{Handler: echoHandler{}}).AddTool(mcp.Tool{Name: "x"}, ok), "its own Handler"},
	} {
		if errs.KindOf(tc.err) != errs.Invalid || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: %v, want kind invalid and %q", tc.what, tc.err, tc.want)
		}
	}
	if o := srv.Offered(); o != (mcp.Offered{}) {
		t.Errorf("mistakes registered something: %+v", o)
	}
}

// The registry answers the HTTP server's x-mcp-header needs from its own
// parse of each tool's schema.
func TestRegistryParamHeaders(t *testing.T) {
	srv := mcp.NewServer(mcp.ServerOptions{})
	defer srv.Close()
	must(t, srv.AddTool(mcp.Tool{Name: "r", InputSchema: json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"q":{"type":"string"}}}`)},
		func(c *mcp.ToolCall) { c.Return(nil, nil) }))
	if got := srv.ParamHeaders("r"); !reflect.DeepEqual(got, map[string]string{"Region": "region"}) {
		t.Errorf("ParamHeaders = %v", got)
	}
	if got := srv.ParamHeaders("nope"); got != nil {
		t.Errorf("unknown tool: %v", got)
	}
}

// ParamHeaders skips decoding schemas that cannot hold the annotation; the
// answer must be what decoding gives, however the key is spelt.
func TestParamHeadersQuickCheck(t *testing.T) {
	for _, c := range []struct {
		schema string
		want   map[string]string
	}{
		{`{"type":"object","properties":{"message":{"type":"string"}}}`, nil},
		{`{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"Region"}}}`, map[string]string{"Region": "r"}},
		{`{"properties":{"r":{"type":"string","X-MCP-Header":"Region"}}}`, map[string]string{"Region": "r"}},
		{`{"properties":{"r":{"type":"string","x\u002dmcp-header":"Region"}}}`, map[string]string{"Region": "r"}},
		{`{"properties":{"r":{"description":"sets the x-mcp-header"}}}`, nil},
		{`{"properties":{"r":{"description":"a \"quote\""}}}`, nil},
		{`{"properties":[1,2]}`, nil},
		{`not json`, nil},
	} {
		if got, err := mcp.ParamHeaders(json.RawMessage(c.schema)); err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParamHeaders(%s) = %v, %v; want %v", c.schema, got, err, c.want)
		}
	}
}
