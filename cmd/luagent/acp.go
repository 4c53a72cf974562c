package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/luagent/luagent/luabind/chatlua"
	"github.com/luagent/luagent/luabind/host"
	"github.com/luagent/luagent/runtime/acp"
	ragent "github.com/luagent/luagent/runtime/agent"
	"github.com/luagent/luagent/runtime/approval"
	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/chat"
	"github.com/luagent/luagent/runtime/cmdfile"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/hub"
	"github.com/luagent/luagent/runtime/llm"
	"github.com/luagent/luagent/runtime/memory"
	"github.com/luagent/luagent/runtime/permission"
	"github.com/luagent/luagent/runtime/project"
	"github.com/luagent/luagent/runtime/secret"
	"github.com/luagent/luagent/runtime/session"
	"github.com/luagent/luagent/runtime/sessionid"
	"github.com/luagent/luagent/runtime/visible"
)

// `luagent acp`: luagent's agent for editors, over the Agent Client
// Protocol on stdio (runtime/acp has the protocol; this file the agent
// behind it). Each ACP session is an agent built as ask builds it, saved
// as a luagent session (luagent sessions list), asking the editor
// (session/request_permission) about what its policy would ask about.

// acpOptions are `luagent acp`'s.
type acpOptions struct {
	model string
	agent string
}

func acpCmd(o *options, code *int, stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	a := &acpOptions{}
	c := &cobra.Command{
		Use:   "acp [--agent FILE] [--model M]",
		Short: "serve the agent to an editor over the Agent Client Protocol (stdio)",
		Long: `Runs luagent as an Agent Client Protocol (ACP) agent on stdin and stdout,
for editors that speak it (Zed, Neovim's codecompanion.nvim and avante.nvim,
JetBrains). Each session is the agent ask and chat build (--agent FILE's, or
the default agent over the catalog's servers) with the MCP servers the
editor passes beside them. Tool calls the policy would ask about become the
editor's permission questions; "always allow" saves an allow rule in
~/.luagent/config.json. Sessions are saved and can be loaded again
(luagent sessions list). Notes go to stderr; stdout is the protocol's
(stdlib/doc/acp.md).`,
		Example: `  luagent acp
  luagent acp --model anthropic:claude-sonnet-4-5
  luagent acp --agent examples/agent.lua`,
		Annotations: map[string]string{
			"usage": "usage: luagent [options] acp [--agent FILE] [--model M]\n",
			"env":   agentEnv,
		},
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("acp takes no arguments, not %q: an editor starts luagent acp and talks to it on stdin", args[0])
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			o.acp = a
			*code = runHost(*o, stdin, stdout, stderr)
			return nil
		},
	}
	later(o, c, func() {
		d := flagDecl{fs: c.Flags()}
		d.str(&a.model, "model", "M", `the model: mock, openai:MODEL, anthropic:MODEL, ollama:MODEL or a configured name (default: $LUAGENT_MODEL, else config.json's "model", else mock)`,
			"--model needs a value: luagent acp --model openai:gpt-4.1-mini")
		d.str(&a.agent, "agent", "FILE", "the agent FILE returns (return agent.new{...}); --model overrides its model",
			"--agent needs a value: luagent acp --agent examples/agent.lua")
	})
	return c
}

// The approval modes a session may be in (session/set_mode).
const (
	acpModeDefault = "default"
	acpModeEdits   = "acceptEdits"
	acpModeBypass  = "bypassPermissions"
)

var acpModes = []acp.SessionMode{
	{ID: acpModeDefault, Name: "Ask", Description: "read-only tools run; the rest ask you first"},
	{ID: acpModeEdits, Name: "Accept edits", Description: "file edits run unasked; the rest ask you first"},
	{ID: acpModeBypass, Name: "Allow all", Description: "every call the policy would ask about runs unasked (deny rules and the policy's denials still hold)"},
}

// acpAuthMethod is the one way to authenticate: the provider's key in
// the agent's environment.
var acpAuthMethod = acp.AuthMethod{ID: "env-api-key", Name: "API key in the environment",
	Description: "Set OPENAI_API_KEY or ANTHROPIC_API_KEY (as the model needs) in the agent server's env, then restart it"}

// runACP is `luagent acp`: the ACP server on stdin and stdout until stdin
// ends.
func runACP(o options, h *host.Host, stdin io.Reader, stdout, stderr io.Writer) int {
	a := o.acp
	cfg, err := catalog.Load(catalog.Path(host.Home()))
	if err != nil {
		fmt.Fprintf(stderr, "luagent: %v\n", err)
		return host.ExitError
	}
	perms, code, ok := permissionSetup(cfg, nil, nil, stderr, true)
	if !ok {
		return code
	}
	mask := secret.NewMasker(secrets())
	shown := func(s string) string { return visible.Text(mask.String(s)) }
	warn := func(msg string) { fmt.Fprintln(stderr, "luagent: "+shown(msg)) }
	store := sessionStore(cfg, warn)
	spec := a.model
	if a.agent == "" {
		s, note := askModel(a.model, os.Getenv, cfg)
		if note != "" {
			warn(strings.TrimPrefix(note, "luagent: "))
		}
		spec = s
	}
	return h.RunGo(context.Background(), func(ctx context.Context) int {
		lu := chatlua.NewLua(h.Loop, h.LoadAgentFile)
		if a.agent != "" {
			if err := lu.LoadAgent(a.agent); err != nil {
				fmt.Fprintf(stderr, "luagent: %s\n", visible.Text(err.Error()))
				return host.ExitError
			}
		}
		ag := &acpAgent{opts: a, cfg: cfg, lu: lu, spec: spec, store: store, perms: perms, warn: warn, shown: shown}
		ag.srv = acp.NewServer(ag, acp.Options{
			Info: acp.Implementation{Name: "luagent", Title: "luagent", Version: version},
			Capabilities: acp.AgentCapabilities{LoadSession: true,
				PromptCapabilities: acp.PromptCapabilities{EmbeddedContext: true},
				MCPCapabilities:    acp.MCPCapabilities{HTTP: true}},
			AuthMethods: []acp.AuthMethod{acpAuthMethod},
			Log:         func(msg string) { warn("acp: " + msg) },
		})
		if err := ag.srv.Serve(ctx, stdin, stdout); err != nil {
			warn("acp: " + err.Error())
			return host.ExitError
		}
		return host.ExitOK
	})
}

// acpAgent is the acp.Handler: it makes sessions.
type acpAgent struct {
	opts  *acpOptions
	lu    *chatlua.Lua
	spec  string // the model ("" : the agent file's)
	store *session.Store
	cfg   *catalog.Config
	perms *project.Setup // the user's config.json, where "always allow" is saved
	warn  func(string)
	shown func(string) string
	srv   *acp.Server

	// allowed are the "always allow" answers of this run, for every
	// session (permission.Rules is not changed once handed out: each
	// answer makes a new set).
	allowed   atomic.Pointer[permission.Rules]
	allowedMu sync.Mutex
	buildMu   sync.Mutex // one agent built at a time (one Lua)
}

// Match makes a session its agent's approval.Rules: the user's rules and
// those of the project the session's folder is in, and this run's
// "always allow" answers.
func (s *acpSession) Match(c approval.Call) (approval.Rule, bool) {
	return permission.Join(s.rules, s.a.allowed.Load()).Match(c)
}

// allowAlways adds and saves an allow rule for c's tool.
func (a *acpAgent) allowAlways(ctx context.Context, c ragent.Call) {
	pattern := permission.ForTool(c)
	add := &permission.Rules{}
	if err := add.Add(approval.Allow, pattern, "acp"); err != nil {
		a.warn("cannot make an allow rule for " + pattern + ": " + err.Error())
		return
	}
	a.allowedMu.Lock()
	a.allowed.Store(permission.Join(a.allowed.Load(), add))
	a.allowedMu.Unlock()
	file, note, err := a.perms.SaveAllow(ctx, project.SaveUser, pattern)
	if err != nil {
		a.warn("allow " + pattern + " holds for this run, but it could not be saved: " + err.Error())
		return
	}
	a.warn("saved allow " + pattern + " in " + file)
	if note != "" {
		a.warn(note)
	}
}

// Authenticate checks that the model's key is in the environment: the
// one method is the environment, which only a restart changes.
func (a *acpAgent) Authenticate(ctx context.Context, methodID string) error {
	return a.keyProblem("authenticate")
}

// keyProblem is the auth error (op's) the model would meet at its first
// request, resolved as the providers resolve it (the catalog's models
// with their apiKeyEnv and baseUrl, the provider's own variables), saying
// where the key goes; nil when it has its key, needs none, or is the
// agent file's.
func (a *acpAgent) keyProblem(op string) error {
	if err := keyProblem(a.spec, os.LookupEnv); err != nil {
		return errs.Errorf(errs.Auth, op, "%s in the agent server's env (the editor's settings), then restart the agent", a.shown(err.Error()))
	}
	return nil
}

func keyProblem(spec string, lookup func(string) (string, bool)) error {
	if spec == "" {
		return nil
	}
	models, _, err := host.CatalogModels(host.Home())
	if err != nil {
		return nil // the catalog's own error is told where it is read
	}
	if _, err := llm.New(spec, llm.Config{Models: models, Lookup: lookup}); errs.KindOf(err) == errs.Auth {
		return err
	}
	return nil
}

func (a *acpAgent) NewSession(ctx context.Context, req acp.NewSessionRequest) (acp.Session, error) {
	s, err := a.open(ctx, nil, req.Cwd, req.MCPServers)
	if err != nil {
		return nil, a.masked(err)
	}
	return s, nil
}

// masked is err as the client is shown it: its kind kept, the
// providers' keys masked, control characters made visible.
func (a *acpAgent) masked(err error) error {
	return &errs.Error{Kind: errs.KindOf(err), Msg: a.shown(err.Error())}
}

func (a *acpAgent) LoadSession(ctx context.Context, req acp.LoadSessionRequest, replay func(acp.Update)) (acp.Session, error) {
	prior, err := a.store.Load(req.SessionID)
	if err != nil {
		return nil, errs.Errorf(errs.NotFound, "session/load", "unknown session %q: %s", req.SessionID, sessionMsg(err))
	}
	s, err := a.open(ctx, prior, req.Cwd, req.MCPServers)
	if err != nil {
		return nil, a.masked(err)
	}
	acp.Replay(prior.Messages(), req.Cwd, &s.ids, replay)
	return s, nil
}

// open makes a session's agent: new, or going on with prior.
func (a *acpAgent) open(ctx context.Context, prior *session.Session, cwd string, servers []acp.MCPServer) (*acpSession, error) {
	if err := a.keyProblem("session"); err != nil {
		return nil, err
	}
	s := &acpSession{a: a, cwd: cwd}
	s.mode.Store(acpModeDefault)
	// The session's folder, not luagent's, decides the project: its
	// rules (allow rules in a trusted folder only), its memory, and where
	// the catalog's servers run.
	setup, err := project.NewSetup(host.Home(), cwd, a.cfg, nil, nil)
	if err != nil {
		return nil, err
	}
	if s.rules, err = setup.Rules(); err != nil {
		return nil, err
	}
	if line := setup.Ignored(); line != "" {
		a.warn(line)
	}
	mem := memory.Load(memory.Options{Dir: cwd, Home: host.Home(), Names: a.cfg.MemoryFiles})
	for _, n := range mem.Notes() {
		a.warn(n)
	}
	bo := chat.BuildOptions{Name: "acp", AgentFile: a.opts.agent, Model: a.spec, OwnHub: true, Dir: cwd, Warn: a.warn,
		Memory: mem.Prompt(), Elicit: s.elicit}
	if prior != nil && a.opts.model == "" && prior.LastModel() != "" && a.opts.agent == "" {
		bo.Model = prior.LastModel()
	}
	s.files = fileOptionsIn(cwd)
	bo.Subagents = fileAgentsFrom(s.files, a.warn)
	a.buildMu.Lock()
	ag, err := a.lu.Build(ctx, bo)
	a.buildMu.Unlock()
	if err != nil {
		return nil, err
	}
	ra := ag.Agent()
	ra.SetRules(s)
	ra.SetAsk(s.ask)
	ra.AddTools(s.clientTools()...)
	if len(servers) > 0 {
		if hb := ra.Hub(); hb != nil {
			added := acpCatalogServers(servers)
			hb.Add(added...)
			for _, c := range added { // an agent file's servers list takes them too
				ra.AddServers(c.Name)
			}
			wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			hb.Wait(wctx)
			cancel()
			for _, st := range hb.Status() { // the editor's servers that did not start say why
				for _, c := range added {
					if st.Name == c.Name && st.Status == hub.Failed {
						a.warn(fmt.Sprintf("the editor's MCP server %s did not start: %v", c.Name, st.Err))
					}
				}
			}
		} else {
			a.warn("the agent has no hub: the editor's MCP servers are not connected")
		}
	}
	h := sessionHeader("acp", a.opts.agent, ra)
	h.Cwd = cwd
	w, err := recordSession(a.store, prior, false, h, ra)
	if err != nil {
		if prior != nil {
			a.closeOwnHub(ra)
			return nil, err
		}
		a.warn("this session is not saved: " + sessionMsg(err))
		s.id = "unsaved-" + sessionid.New()
	} else {
		s.w, s.id = w, w.ID()
	}
	ra.SetSession(s.id, s.path())
	s.ag = ag
	return s, nil
}

// acpCatalogServers are the editor's MCP servers as catalog entries.
func acpCatalogServers(list []acp.MCPServer) []*catalog.Server {
	out := make([]*catalog.Server, 0, len(list))
	for _, m := range list {
		s := &catalog.Server{Name: m.Name, Enabled: true}
		if m.URL != "" {
			s.URL = m.URL
			s.Headers = map[string]string{}
			for _, hd := range m.Headers {
				s.Headers[hd.Name] = hd.Value
			}
		} else {
			s.Command, s.Args = m.Command, m.Args
			s.Env = map[string]catalog.EnvValue{}
			for _, e := range m.Env {
				s.Env[e.Name] = catalog.EnvValue{Value: e.Value}
			}
		}
		out = append(out, s)
	}
	return out
}

// acpSession is one ACP session: its agent and saved session.
type acpSession struct {
	a     *acpAgent
	id    string
	cwd   string
	rules *permission.Rules // the user's and the session's project's
	files cmdfile.Options   // where its command and agent files are (its project's)
	ag    chat.Agent
	w     *session.Writer
	mode  atomic.Value // string
	asks  atomic.Int64 // ids for questions without a tool call (sampling, elicitation)
	ids   acp.IDs      // the tool calls' ids, unique in the session
}

func (s *acpSession) ID() string { return s.id }

func (s *acpSession) path() string {
	if s.w == nil {
		return ""
	}
	return s.w.Path()
}

func (s *acpSession) Modes() *acp.SessionModeState {
	return &acp.SessionModeState{CurrentModeID: s.mode.Load().(string), AvailableModes: acpModes}
}

func (s *acpSession) SetMode(id string) error {
	for _, m := range acpModes {
		if m.ID == id {
			s.mode.Store(id)
			return nil
		}
	}
	return errs.Errorf(errs.Invalid, "session/set_mode", "no mode %q: %s, %s or %s", id, acpModeDefault, acpModeEdits, acpModeBypass)
}

func (s *acpSession) Prompt(ctx context.Context, prompt []acp.ContentBlock, update func(acp.Update)) (acp.StopReason, error) {
	text, err := acp.PromptText(prompt)
	if err != nil {
		return "", err
	}
	if text, err = slashPromptFrom(ctx, text, func() cmdfile.Options { return s.files }); err != nil { // a command file's (commands.go)
		return "", err
	}
	t := &acp.Turn{Cwd: s.cwd, Update: update, IDs: &s.ids}
	_, _, err = s.ag.Ask(ctx, text, t.Event)
	stop := t.StopReason()
	if err != nil && ctx.Err() == nil {
		switch stop {
		case acp.StopMaxTurnRequests, acp.StopMaxTokens:
			return stop, nil // a limit: the turn ends, what was done kept
		}
		// What the client shows: the providers' keys masked, one line.
		return "", s.a.masked(err)
	}
	return stop, nil
}

// Opened offers the command files as slash commands.
func (s *acpSession) Opened(update func(acp.Update)) {
	var list []acp.AvailableCommand
	for _, c := range cmdfile.LoadCommands(s.files).Commands {
		name := c.Name
		if c.Shadowed {
			name = c.Qualified()
		}
		ac := acp.AvailableCommand{Name: name, Description: c.Help()}
		if h := strings.TrimSpace(c.ArgumentHint); h != "" {
			ac.Input = &acp.CommandInput{Hint: h}
		}
		list = append(list, ac)
	}
	if len(list) > 0 {
		update(acp.Update{SessionUpdate: acp.UpdateCommands, Commands: list})
	}
}

func (s *acpSession) Close() {
	ra := s.ag.Agent()
	endSession(ra, io.Discard, s.a.shown)
	if s.w != nil {
		s.w.Close()
	}
	s.a.closeOwnHub(ra)
}

// closeOwnHub closes a session agent's hub when it is the session's own:
// the default agent's (OwnHub). An agent file's may be shared (the
// default hub): the host closes it at exit.
func (a *acpAgent) closeOwnHub(ra *ragent.Agent) {
	if hb := ra.Hub(); hb != nil && a.opts.agent == "" {
		hb.Close()
	}
}

// acpOptions of a permission question.
var acpPermissionOptions = []acp.PermissionOption{
	{OptionID: "allow_once", Name: "Allow", Kind: acp.AllowOnce},
	{OptionID: "allow_always", Name: "Always allow", Kind: acp.AllowAlways},
	{OptionID: "reject_once", Name: "Reject", Kind: acp.RejectOnce},
}

// ask is the agent's Ask: what the policy would ask a person about, the
// mode answers or the editor is asked.
func (s *acpSession) ask(ctx context.Context, c ragent.Call) (ragent.Decision, string) {
	switch s.mode.Load().(string) {
	case acpModeBypass:
		return ragent.Allow, "allowed in mode " + acpModeBypass
	case acpModeEdits:
		if acp.KindOf(c) == acp.KindEdit {
			return ragent.Allow, "allowed in mode " + acpModeEdits
		}
	}
	tc := acp.ToolCallOf(c, s.cwd, acp.StatusPending)
	tc.ToolCallID = s.ids.Of(c.ID) // the tool_call's (started before it is asked about)
	opts := acpPermissionOptions
	if c.Kind == approval.KindSampling || c.ID == "" {
		tc.ToolCallID = fmt.Sprintf("ask-%d", s.asks.Add(1))
		opts = opts[:1:1]
		opts = append(opts, acpPermissionOptions[2])
	}
	if c.Kind == approval.KindSampling {
		tc.Title = c.Server + " asks to use the model"
		tc.Kind = acp.KindOther
	}
	choice, err := s.a.srv.RequestPermission(ctx, s.id, *tc, opts)
	switch {
	case err != nil:
		return ragent.Deny, "the editor could not be asked: " + err.Error()
	case choice == "allow_once":
		return ragent.Allow, "allowed in the editor"
	case choice == "allow_always":
		s.a.allowAlways(ctx, c)
		return ragent.Allow, "always allowed in the editor"
	case choice == "reject_once":
		return ragent.Deny, "rejected in the editor"
	}
	return ragent.Deny, "the permission question was cancelled"
}

// elicit answers a server's elicitation. A client that shows
// elicitations (elicitation/create, in the request's mode) gets it as it
// is, scoped to the session; otherwise a question with nothing to fill in
// is asked as a permission question (accept or decline), and a form or a
// URL is declined, the reason noted on stderr.
func (s *acpSession) elicit(ctx context.Context, server string, params json.RawMessage) (json.RawMessage, error) {
	var p map[string]any
	if err := json.Unmarshal(params, &p); err != nil || p == nil {
		return json.RawMessage(`{"action":"decline"}`), nil
	}
	mode, _ := p["mode"].(string)
	if mode == "" {
		mode = "form"
	}
	msg, _ := p["message"].(string)
	if s.a.srv.ClientCapabilities().Offers(mode) {
		req := map[string]any{"sessionId": s.id, "mode": mode, "message": msg}
		for _, k := range []string{"requestedSchema", "url", "elicitationId"} {
			if v, ok := p[k]; ok {
				req[k] = v
			}
		}
		var res json.RawMessage
		if err := s.a.srv.Call(ctx, acp.MethodElicitationCreate, req, &res); err != nil {
			if ctx.Err() != nil {
				return json.RawMessage(`{"action":"cancel"}`), nil
			}
			return nil, err
		}
		return res, nil
	}
	schema, _ := p["requestedSchema"].(map[string]any)
	props, _ := schema["properties"].(map[string]any)
	if mode != "form" || len(props) > 0 {
		s.a.warn(fmt.Sprintf("declined %s's request for input (%s): the editor does not take elicitation/create in that mode", server, mode))
		return json.RawMessage(`{"action":"decline"}`), nil
	}
	tc := acp.ToolCall{ToolCallID: fmt.Sprintf("elicit-%d", s.asks.Add(1)), Title: server + " asks: " + msg, Kind: acp.KindOther, Status: acp.StatusPending}
	choice, err := s.a.srv.RequestPermission(ctx, s.id, tc, []acp.PermissionOption{
		{OptionID: "accept", Name: "Accept", Kind: acp.AllowOnce},
		{OptionID: "decline", Name: "Decline", Kind: acp.RejectOnce},
	})
	switch {
	case err != nil || choice == "":
		return json.RawMessage(`{"action":"cancel"}`), nil
	case choice == "accept":
		return json.RawMessage(`{"action":"accept","content":{}}`), nil
	}
	return json.RawMessage(`{"action":"decline"}`), nil
}

// abs is path in the session's folder.
func (s *acpSession) abs(path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(s.cwd, path)
}
