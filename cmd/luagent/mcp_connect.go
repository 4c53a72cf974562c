package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/luagent/luagent/luabind/host"
	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/hub"
	"github.com/luagent/luagent/runtime/oauth/store"
	"github.com/luagent/luagent/runtime/trace"
	"github.com/luagent/luagent/runtime/visible"
)

// The verbs that connect to one saved server once, through the hub, and
// exit: mcp tools NAME and mcp call NAME TOOL.

// connectFlags are the options both verbs take besides their own.
type connectFlags struct {
	params  catalog.Params
	trace   string
	verbose bool
}

// connectOne starts the saved server name (enabled or not) in a hub of its
// own and waits for it. The caller closes the hub.
func connectOne(name string, f connectFlags, stderr io.Writer) (*hub.Hub, func(), error) {
	cfg, err := catalog.Load(catalogPath())
	if err != nil {
		return nil, nil, err
	}
	entry := cfg.Server(name)
	if entry == nil {
		return nil, nil, notFound(name)
	}
	one := *entry
	one.Enabled = true // asked for by name: a disabled entry is checked too
	var sinks trace.Multi
	cleanup := func() {}
	if f.trace != "" {
		file, err := os.OpenFile(f.trace, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, nil, fmt.Errorf("cannot open the trace file: %v", err)
		}
		cleanup = func() { file.Close() }
		sinks = append(sinks, trace.NewJSONL(file))
	}
	if f.verbose {
		sinks = append(sinks, trace.NewHuman(stderr))
	}
	st := store.Default(host.Home())
	st.Warn = stderr
	o := hub.Options{Params: f.params, Store: st}
	if len(sinks) > 0 {
		o.Trace = sinks
	}
	h := hub.New([]*catalog.Server{&one}, o)
	done := func() { h.Close(); cleanup() }
	h.Start()
	h.Wait(context.Background()) // bounded by the entry's startup timeout
	s := h.Status()[0]
	if s.Status != hub.Ready {
		done()
		if s.Err == nil {
			return nil, nil, fmt.Errorf("server %s is %s", name, s.Status)
		}
		return nil, nil, s.Err
	}
	return h, done, nil
}

func mcpTools(name string, asJSON bool, f connectFlags, stdout, stderr io.Writer) int {
	h, done, err := connectOne(name, f, stderr)
	if err != nil {
		return fail(stderr, err)
	}
	defer done()
	tools, _ := h.Tools()
	if n := h.FilteredOut(name); n > 0 && !asJSON {
		defer fmt.Fprintf(stderr, "(%d of its tools filtered out by %s's enabledTools/disabledTools in config.json)\n", n, name)
	}
	if asJSON {
		list := make([]json.RawMessage, 0, len(tools))
		for _, t := range tools {
			list = append(list, t.Def.Raw)
		}
		writeJSON(stdout, list)
		return host.ExitOK
	}
	if len(tools) == 0 {
		fmt.Fprintf(stdout, "%s lists no tools\n", name)
		return host.ExitOK
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	for _, t := range tools {
		fmt.Fprintf(tw, "%s\t%s\n", visible.Line(t.Def.Name), summary(t.Def.Description))
	}
	tw.Flush()
	return host.ExitOK
}

// summary is a description's first line, cut to 100 characters, its
// control characters visible.
func summary(d string) string {
	d, _, _ = strings.Cut(strings.TrimSpace(d), "\n")
	if r := []rune(d); len(r) > 100 {
		d = string(r[:99]) + "…"
	}
	return visible.Line(d)
}

// callOptions are mcp call's own flags.
type callOptions struct {
	args     string // --args '{...}' (or --json '{...}', the older form)
	haveArgs bool
	json     bool // --json: print the whole result as JSON
}

// mcpCall calls one tool: pos is NAME TOOL, kv the k=v arguments.
func mcpCall(pos, kv []string, co callOptions, f connectFlags, stdout, stderr io.Writer) int {
	jsonArgs, haveJSON := co.args, co.haveArgs
	if len(pos) < 2 {
		return usageErr(stderr, "mcp call needs a server and a tool: luagent mcp call NAME TOOL [k=v ...] (luagent mcp tools NAME lists the tools)")
	}
	if haveJSON && len(kv) > 0 {
		return usageErr(stderr, "give the arguments as k=v or as --args '{...}', not both")
	}
	for _, a := range kv {
		if k, _, found := strings.Cut(a, "="); !found || k == "" {
			return usageErr(stderr, "arguments are k=v, not %q (or give them all as --args '{...}')", a)
		}
	}
	if haveJSON {
		var obj map[string]any
		if json.Unmarshal([]byte(jsonArgs), &obj) != nil {
			return usageErr(stderr, "--args takes the arguments as one JSON object, such as '{\"message\":\"hi\"}'")
		}
	}
	name, toolName := pos[0], pos[1]
	h, done, err := connectOne(name, f, stderr)
	if err != nil {
		return fail(stderr, err)
	}
	defer done()
	var tool *hub.Tool
	tools, _ := h.Tools()
	for i := range tools {
		if tools[i].Def.Name == toolName || tools[i].Name == toolName {
			tool = &tools[i]
		}
	}
	if tool == nil {
		if err := h.ToolFiltered(name, toolName); err != nil {
			return fail(stderr, err)
		}
		var names []string
		for _, t := range tools {
			names = append(names, t.Def.Name)
		}
		return fail(stderr, fmt.Errorf("%s has no tool %s (it has: %s)", name, toolName, strings.Join(names, ", ")))
	}
	raw := json.RawMessage(jsonArgs)
	if !haveJSON {
		if raw, err = kvArgs(kv, tool.Def.InputSchema); err != nil {
			return fail(stderr, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute) // the entry's request timeout applies within
	defer cancel()
	r, err := h.Call(ctx, tool.Name, raw, hub.CallOptions{})
	if err != nil {
		return fail(stderr, err)
	}
	if co.json {
		// The whole result, the server's own members (_meta) included; a
		// tool error is in it (isError), and the exit code says so too.
		whole := map[string]any{}
		json.Unmarshal(r.Raw, &whole)
		whole["content"] = r.Content
		whole["isError"] = r.IsError
		if len(r.StructuredContent) > 0 {
			whole["structuredContent"] = r.StructuredContent
		}
		var b strings.Builder
		writeJSON(&b, whole)
		fmt.Fprint(stdout, visible.Text(b.String()))
	} else {
		out := stdout
		if r.IsError {
			out = stderr
		}
		printResult(out, r.Content, r.StructuredContent)
	}
	if r.IsError {
		return host.ExitError
	}
	return host.ExitOK
}

// printResult prints text blocks as text and any other block as a JSON
// line; structured content when there is no text. All of it is the
// server's: its control characters show (visible.Text), its lines and
// tabs stay.
func printResult(w io.Writer, content []json.RawMessage, structured json.RawMessage) {
	text := false
	for _, c := range content {
		var b struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(c, &b) == nil && b.Type == "text" {
			fmt.Fprintln(w, visible.Text(strings.TrimRight(b.Text, "\n")))
			text = true
			continue
		}
		fmt.Fprintln(w, visible.Text(string(c)))
	}
	if !text && len(structured) > 0 {
		fmt.Fprintln(w, visible.Text(string(structured)))
	}
}

// kvArgs builds the arguments object from k=v pairs: a value becomes a
// number, boolean, object or array when the input schema gives that
// property such a type, and stays a string otherwise.
func kvArgs(kv []string, schema json.RawMessage) (json.RawMessage, error) {
	var s struct {
		Properties map[string]struct {
			Type json.RawMessage `json:"type"`
		} `json:"properties"`
	}
	json.Unmarshal(schema, &s)
	obj := map[string]any{}
	for _, a := range kv {
		k, v, _ := strings.Cut(a, "=")
		var types []string
		if p, ok := s.Properties[k]; ok {
			var one string
			if json.Unmarshal(p.Type, &one) == nil {
				types = []string{one}
			} else {
				json.Unmarshal(p.Type, &types)
			}
		}
		val, err := typedValue(k, v, types)
		if err != nil {
			return nil, err
		}
		obj[k] = val
	}
	return json.Marshal(obj)
}

func typedValue(k, v string, types []string) (any, error) {
	has := func(t string) bool {
		for _, x := range types {
			if x == t {
				return true
			}
		}
		return false
	}
	switch {
	case len(types) == 0 || has("string"):
		return v, nil
	case has("integer") || has("number"):
		if n, err := strconv.ParseFloat(v, 64); err == nil {
			return json.Number(strconv.FormatFloat(n, 'f', -1, 64)), nil
		}
		if has("boolean") || has("null") {
			break
		}
		return nil, fmt.Errorf("argument %s=%s: the tool wants a number", k, v)
	}
	if has("boolean") {
		if b, err := strconv.ParseBool(v); err == nil {
			return b, nil
		}
	}
	if has("null") && v == "null" {
		return nil, nil
	}
	var x any
	if (has("object") || has("array")) && json.Unmarshal([]byte(v), &x) == nil {
		return json.RawMessage(v), nil
	}
	return nil, fmt.Errorf("argument %s=%s: the tool wants %s; give it as JSON (or all arguments with --json '{...}')", k, v, strings.Join(types, " or "))
}
