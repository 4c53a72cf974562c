package tui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	ragent "github.com/luagent/luagent/runtime/agent"
	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/chat"
	"github.com/luagent/luagent/runtime/errs"
	rhub "github.com/luagent/luagent/runtime/hub"
	"github.com/luagent/luagent/runtime/notify"
	"github.com/luagent/luagent/runtime/render"
)

// /meta REQUEST in the chat: the catalog agent's turn (chat.MetaTurn),
// shown as a turn is — its text, each tool call on a line with a
// one-line result — except that the values it puts in env, headers or a
// client secret are masked everywhere, so its text is shown a piece at a
// time (when a tool call starts, and at the end) rather than streamed.
// Each write is asked about: the change, then "save this? [y/N]".

// metaView is a chat's side of its catalog agent.
type metaView struct {
	t *chatTerm

	r *render.Renderer // t.r's lines, the answer held (under t.mu)

	mu      sync.Mutex
	secrets []string // values to mask, longest first
}

// metaViews holds each chat's view (*chatTerm -> *metaView): the catalog
// agent, made once, keeps calling the same one.
var metaViews sync.Map

func (t *chatTerm) metaView() *metaView {
	if v, ok := metaViews.Load(t); ok {
		return v.(*metaView)
	}
	v := &metaView{t: t}
	t.mu.Lock()
	v.r = t.r.Derive(render.Options{Shown: v.shown, Hold: true, Start: metaStart})
	t.mu.Unlock()
	got, _ := metaViews.LoadOrStore(t, v)
	return got.(*metaView)
}

func (t *chatTerm) meta(ctx context.Context, request string) {
	if strings.TrimSpace(request) == "" {
		t.fail(errs.New(errs.Invalid, "chat", "/meta needs a request: /meta add the MCP server at https://example.com/mcp"))
		return
	}
	v := t.metaView()
	path := catalog.Path(t.cfg.Home)
	o := chat.MetaOptions{Path: path, Confirm: v.confirm,
		Saved: func(name, op string) string { return t.metaSaved(path, name, op) }}
	_, err := t.s.Meta(ctx, request, o, v.event)
	t.mu.Lock()
	v.r.Finish()
	t.mu.Unlock()
	if err != nil {
		if errs.KindOf(err) == errs.Cancelled {
			t.say("(cancelled; nothing more is saved)")
			return
		}
		t.fail(err)
	}
}

// shown masks the provider keys and the values the catalog agent was
// given, and shows control characters (chatTerm.shown).
func (v *metaView) shown(s string) string {
	v.mu.Lock()
	for _, x := range v.secrets {
		s = strings.ReplaceAll(s, x, "<hidden>")
	}
	v.mu.Unlock()
	return v.t.shown(s)
}

// learn keeps the secret values in a tool call's arguments: what the
// catalog hides in an entry (catalog.SecretsIn), read leniently — a
// model's arguments need not be a valid entry for its secrets to be
// masked. Values of one or two characters are not worth masking (nor
// secrets).
func (v *metaView) learn(raw json.RawMessage) {
	var a struct {
		URL     string                     `json:"url"`
		Args    []string                   `json:"args"`
		Env     map[string]json.RawMessage `json:"env"`
		Headers map[string]json.RawMessage `json:"headers"`
		OAuth   struct {
			ClientSecret string `json:"clientSecret"`
		} `json:"oauth"`
	}
	json.Unmarshal(raw, &a)
	str := func(r json.RawMessage) string { // "v" or {"value": "v"}
		var s string
		var o struct{ Value string }
		if json.Unmarshal(r, &s) != nil && json.Unmarshal(r, &o) == nil {
			s = o.Value
		}
		return s
	}
	e := &catalog.Server{URL: a.URL, Args: a.Args, OAuth: &catalog.OAuth{ClientSecret: a.OAuth.ClientSecret},
		Env: map[string]catalog.EnvValue{}, Headers: map[string]string{}}
	for k, r := range a.Env {
		e.Env[k] = catalog.EnvValue{Value: str(r)}
	}
	for k, r := range a.Headers {
		e.Headers[k] = str(r)
	}
	found := catalog.SecretsIn(e)
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, s := range found {
		if len(s) > 2 && !slices.Contains(v.secrets, s) {
			v.secrets = append(v.secrets, s)
		}
	}
	slices.SortFunc(v.secrets, func(a, b string) int { return len(b) - len(a) })
}

// flush shows the answer held so far.
func (v *metaView) flush() {
	v.t.mu.Lock()
	defer v.t.mu.Unlock()
	v.r.Flush()
}

// metaStart is a catalog tool call's line: the tool and the server it
// is about, not its arguments (they may hold secrets not yet learned).
func metaStart(c *ragent.Call) string {
	if c == nil {
		return "catalog › ?"
	}
	var a struct{ Name string }
	json.Unmarshal(c.Arguments, &a)
	line := "catalog › " + c.Name
	if a.Name != "" {
		line += " " + a.Name
	}
	return line
}

// event is the catalog agent's event sink: the secrets in a call's
// arguments are learned before anything of it is shown.
func (v *metaView) event(e ragent.Event) {
	if e.Type == ragent.EventToolStart && e.Call != nil {
		v.learn(e.Call.Arguments)
	}
	v.t.mu.Lock()
	defer v.t.mu.Unlock()
	v.r.Event(e)
}

// confirm shows a change the catalog agent would save and asks; only y
// (or yes) saves. Ctrl-C cancels the turn.
func (v *metaView) confirm(ctx context.Context, text string) bool {
	t := v.t
	release, ok := t.asking(ctx)
	defer release()
	if !ok {
		return false
	}
	v.flush()
	t.mu.Lock()
	t.endAnswerLocked()
	fmt.Fprintln(t.out, "  ? save this change to the catalog (values of env, headers and secrets show as <hidden>):")
	for _, l := range strings.Split(text, "\n") {
		fmt.Fprintf(t.out, "    %s\n", v.shown(l))
	}
	t.mu.Unlock()
	t.notify(notify.Notice{Type: notify.PermissionPrompt, Message: "save a change to the catalog?"})
	line, err := t.ask("  save this? [y/N] ")
	if errors.Is(err, ErrAborted) {
		t.s.Cancel()
		return false
	}
	if err != nil || ctx.Err() != nil {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	t.say("  not saved")
	return false
}

// metaSaved makes the session's servers follow a saved change (only the
// server it names starts, stops or restarts) and says so; the model is
// told too.
func (t *chatTerm) metaSaved(path, name, op string) string {
	if err := t.s.ApplyCatalog(path); err != nil {
		msg := "the running servers did not change: " + render.OneLine(err.Error(), 200)
		t.say("  %s: saved in %s; %s", name, path, msg)
		return msg
	}
	word := "stopped"
	for _, st := range t.s.Hub().Status() {
		if st.Name == name {
			word = "starting"
			if op == "replace" {
				word = "restarting"
			}
			if st.Status == rhub.Disabled {
				word = "disabled (not started)"
			}
		}
	}
	t.say("  %s: saved in %s; %s (the conversation goes on)", name, path, word)
	return name + " is " + word
}
