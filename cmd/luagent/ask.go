package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/luagent/luagent/runtime/sessionid"
	"io"
	"os"
	"strings"
	"sync"

	ragent "github.com/luagent/luagent/runtime/agent"

	"github.com/luagent/luagent/luabind/chatlua"
	"github.com/luagent/luagent/luabind/host"
	"github.com/luagent/luagent/runtime/approval"
	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/chat"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/render"
	"github.com/luagent/luagent/runtime/secret"
	"github.com/luagent/luagent/runtime/visible"
)

// askOptions are `luagent ask`'s.
type askOptions struct {
	model     string
	fallbacks []string // --fallback-model M...
	agent     string   // --agent FILE
	servers   []string // --server NAME...
	yes       bool
	json      bool
	code      bool         // --code-mode
	window    int          // --context-window
	sess      sessionFlags // -c, --resume ID, --fork (sessions.go)
	prompt    []string
	// allow and deny are --allow's and --deny's patterns.
	allow, deny []string
	// noMemory is --no-memory: no AGENTS.md in the system prompt.
	noMemory bool
	// grants are a command file's allowed-tools, allow rules for this
	// run; grantSource is the file (commands.go).
	grants      []string
	grantSource string

	// maxTurns and maxCost are --max-turns and --max-cost (0: the
	// agent's own).
	maxTurns int
	maxCost  float64

	// --output-format and --input-format (ask_headless.go): "" is text.
	outputFormat, inputFormat string
}

// askModel is the one place that decides which model `luagent ask` uses:
// --model, else LUAGENT_MODEL, else the catalog's "model", else the
// offline mock with a note saying so.
func askModel(flag string, getenv func(string) string, cfg *catalog.Config) (spec, note string) {
	if flag != "" {
		return flag, ""
	}
	if m := getenv("LUAGENT_MODEL"); m != "" {
		return m, ""
	}
	if cfg.DefaultModel != "" {
		return cfg.DefaultModel, ""
	}
	return "mock", "luagent: no model configured (--model, LUAGENT_MODEL or \"model\" in config.json); answering with the offline mock model, which calls the best-matching tool with the prompt's key=value words (stdlib/doc/mock-model.md)"
}

// runAsk is `luagent ask`: the agent built as chat builds it
// (stdlib/chat.lua, through luabind/chatlua), its turn shown by
// runtime/render: the answer on stdout, tool activity on stderr.
func runAsk(o options, h *host.Host, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	a := o.ask
	// sid is the run's one session id (hooks' and stream-json's
	// session_id, the session file's): a new one, or the resumed
	// session's once it is known.
	sid := sessionid.New()
	hl := newAskHeadless(a, stdout, stderr, sid) // nil: text
	if hl != nil {
		stderr = hl.stderr
		defer func() { code = hl.end(code) }()
	}
	prompt := strings.Join(a.prompt, " ")
	if prompt == "" && !hl.streamInput() {
		b, err := io.ReadAll(stdin)
		if err != nil {
			fmt.Fprintf(stderr, "luagent: cannot read the prompt from stdin: %v\n", err)
			return host.ExitError
		}
		prompt = strings.TrimSpace(string(b))
	}
	if prompt == "" && !hl.streamInput() {
		fmt.Fprintln(stderr, "luagent: ask needs a prompt: luagent ask \"what is in README.md?\" (or on stdin)")
		return host.ExitUsage
	}
	if !hl.streamInput() { // "/NAME args": a command file's prompt (commands.go)
		p, code, ok := askSlash(a, prompt, stderr)
		if !ok {
			return code
		}
		prompt = p
	}
	// One read of the catalog for the checks here (the hub reads it again
	// when it starts: that is the Lua side's own load).
	cfg, err := catalog.Load(catalog.Path(host.Home()))
	if err != nil {
		fmt.Fprintf(stderr, "luagent: %v\n", err)
		return host.ExitError
	}
	if code, ok := checkServers(cfg, a.servers, a.agent, stderr); !ok {
		return code
	}
	perms, code, ok := permissionSetup(cfg, a.allow, a.deny, stderr, false)
	if !ok {
		return code
	}
	rules, _ := perms.Rules() // checked by permissionSetup
	// A command file's allowed-tools (commands.go).
	for _, g := range a.grants {
		if err := rules.Add(approval.Allow, g, a.grantSource); err != nil {
			fmt.Fprintf(stderr, "luagent: %s: allowed-tools %s\n", visible.Text(a.grantSource), visible.Text(err.Error()))
			return host.ExitError
		}
	}
	mask := secret.NewMasker(secrets())
	shown := func(s string) string { return visible.Text(mask.String(s)) }
	store := sessionStore(cfg, func(msg string) { fmt.Fprintln(stderr, "luagent: "+shown(msg)) })
	prior, err := priorSession(store, a.sess) // -c, --resume: the session to go on with
	if err != nil {
		return askFailed(context.Background(), stderr, shown, err, "session")
	}
	if prior != nil && !a.sess.fork {
		sid = prior.ID
		hl.setSessionID(sid)
	}
	bo := chat.BuildOptions{Name: "ask", AgentFile: a.agent, Model: a.model, FallbackModels: a.fallbacks, Servers: a.servers, Yes: a.yes, CodeMode: a.code,
		ContextWindow: a.window, OwnHub: true, Warn: func(msg string) { fmt.Fprintln(stderr, "luagent: "+shown(msg)) }}
	if a.agent == "" {
		spec, note := askModel(a.model, os.Getenv, cfg)
		if prior != nil && a.model == "" && prior.LastModel() != "" {
			spec, note = prior.LastModel(), "" // a resumed session goes on with its model
		}
		if note != "" {
			fmt.Fprintln(stderr, note)
		}
		bo.Model = spec
	}
	mem := projectMemory(cfg, a.noMemory)
	for _, n := range mem.Notes() {
		fmt.Fprintln(stderr, "luagent: "+n)
	}
	bo.Memory = mem.Prompt()
	bo.Subagents = fileAgents(stderr, shown) // commands.go
	return h.RunGo(context.Background(), func(ctx context.Context) int {
		lu := chatlua.NewLua(h.Loop, h.LoadAgentFile)
		if a.agent != "" {
			if err := lu.LoadAgent(a.agent); err != nil {
				fmt.Fprintf(stderr, "luagent: %s\n", visible.Text(err.Error()))
				return host.ExitError
			}
		}
		r := render.New(render.Options{Text: stdout, Tools: stderr, Shown: shown, Quiet: a.json})
		ag, err := lu.Build(ctx, bo)
		if err != nil {
			return askFailed(ctx, stderr, shown, err, "ask")
		}
		ag.Agent().SetRules(rules)
		ag.Agent().SetLimits(a.maxTurns, a.maxCost)
		// sess is the run's session: sess.ID() is THE session id of this
		// ask (hooks' session_id, stream-json's), sess.Path() its file.
		h := sessionHeader("ask", a.agent, ag.Agent())
		h.ID = sid
		sess, err := recordSession(store, prior, a.sess.fork, h, ag.Agent())
		if err != nil && prior != nil {
			return askFailed(ctx, stderr, shown, err, "session")
		}
		path := ""
		if err != nil { // a new session that cannot be saved: the ask runs unsaved
			fmt.Fprintln(stderr, "luagent: this ask is not saved: "+shown(sessionMsg(err)))
		} else {
			sid, path = sess.ID(), sess.Path() // an agent file's own session, if it has one
			hl.setSessionID(sid)
		}
		defer sess.Close()
		ag.Agent().SetSession(sid, path)
		defer endSession(ag.Agent(), stderr, shown)
		if hl != nil {
			return hl.run(ctx, ag, prompt, stdin, shown)
		}
		var mu sync.Mutex // events come from the turn's goroutines
		_, tr, err := ag.Ask(ctx, prompt, func(e ragent.Event) {
			mu.Lock()
			defer mu.Unlock()
			r.Event(e)
		})
		mu.Lock()
		defer mu.Unlock()
		if a.json && tr != nil && ctx.Err() == nil { // interrupted: nothing more, as a script
			printTranscript(stdout, stderr, mask, tr)
		}
		if !a.json {
			r.Finish()
		}
		if err != nil {
			return askFailed(ctx, stderr, shown, err, "")
		}
		return host.ExitOK
	})
}

// askFailed prints why the ask failed, in one line with its kind, and
// returns the exit code. A failure the builder raised is its message
// alone (op is the builder's name).
func askFailed(ctx context.Context, stderr io.Writer, shown func(string) string, err error, op string) int {
	if ctx.Err() != nil {
		return host.ExitError // interrupted: RunGo says so
	}
	kind := errs.KindOf(err)
	if kind == errs.Unknown {
		kind = errs.Runtime
	}
	msg := err.Error()
	if e, ok := err.(*errs.Error); ok && op != "" && e.Op == op {
		msg = e.Msg
	}
	fmt.Fprintf(stderr, "luagent: %s: %s\n", kind, shown(render.OneLine(msg, 400)))
	return host.ExitError
}

// printTranscript is ask --json's output: the transcript, keys sorted,
// the providers' keys masked.
func printTranscript(stdout, stderr io.Writer, mask *secret.Masker, tr *ragent.Transcript) {
	raw, err := json.Marshal(tr)
	var v any
	if err == nil {
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		err = d.Decode(&v)
	}
	var b bytes.Buffer
	if err == nil {
		e := json.NewEncoder(&b)
		e.SetEscapeHTML(false) // a result's "<secret>" reads as itself
		e.SetIndent("", "  ")
		err = e.Encode(v)
	}
	if err != nil {
		fmt.Fprintf(stderr, "luagent: the transcript: %v\n", err)
		return
	}
	io.WriteString(stdout, mask.String(b.String()))
}

// checkServers is --server's check, ask's and chat's: without --agent
// (whose file may name servers of its own), each name is a catalog
// server's, else a usage error naming it.
func checkServers(cfg *catalog.Config, names []string, agentFile string, stderr io.Writer) (int, bool) {
	if agentFile != "" {
		return 0, true
	}
	for _, name := range names {
		if !hasServer(cfg, name) {
			fmt.Fprintf(stderr, "luagent: no server %q in the catalog (luagent mcp list shows them)\n", name)
			return host.ExitUsage, false
		}
	}
	return 0, true
}

func hasServer(cfg *catalog.Config, name string) bool {
	for _, s := range cfg.Servers {
		if s.Name == name {
			return true
		}
	}
	return false
}

// secrets are the values never to print: the providers' keys.
func secrets() []string {
	var out []string
	for _, k := range []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY"} {
		if v := os.Getenv(k); len(v) >= 4 {
			out = append(out, v)
		}
	}
	return out
}
