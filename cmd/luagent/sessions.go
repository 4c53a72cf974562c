package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/luagent/luagent/luabind/host"
	ragent "github.com/luagent/luagent/runtime/agent"
	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/cost"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/llm"
	"github.com/luagent/luagent/runtime/render"
	"github.com/luagent/luagent/runtime/secret"
	"github.com/luagent/luagent/runtime/session"
	"github.com/luagent/luagent/runtime/visible"
)

// Sessions: every ask and chat is one, saved under ~/.luagent/sessions/
// (runtime/session). This file is ask's side of it (-c, --resume,
// --fork) and `luagent sessions list|show|rm`.

// sessionFlags are ask's -c, --resume ID and --fork.
type sessionFlags struct {
	cont   bool
	resume string
	fork   bool
}

// check says what is wrong with the flags together (a usage error).
func (f sessionFlags) check() error {
	switch {
	case f.cont && f.resume != "":
		return usagef("--continue and --resume name the session twice: give one (luagent sessions list shows them)")
	case f.fork && !f.cont && f.resume == "":
		return usagef("--fork copies a session: give it with -c or --resume ID (luagent ask --fork -c PROMPT)")
	}
	return nil
}

// sessionStore is home's sessions folder, writing with every secret
// luagent knows of masked: the providers' keys, the environment's
// secret-named variables, the catalog's env values, headers and tokens.
func sessionStore(cfg *catalog.Config, warn func(string)) *session.Store {
	return &session.Store{Dir: session.Dir(host.Home()), Mask: secret.NewMasker(sessionSecrets(cfg)), Warn: warn}
}

// sessionSecrets are the values a session file never holds.
func sessionSecrets(cfg *catalog.Config) []string {
	vals := append(secrets(), session.EnvSecrets(os.Environ())...)
	if cfg != nil {
		for _, s := range cfg.Servers {
			vals = append(vals, catalog.SecretsIn(s)...)
		}
	}
	return vals
}

// priorSession is the saved session -c or --resume names (nil: none).
func priorSession(st *session.Store, f sessionFlags) (*session.Session, error) {
	switch {
	case f.resume != "":
		return st.Load(f.resume)
	case f.cont:
		cwd, _ := os.Getwd()
		latest, err := st.Latest(cwd)
		if err != nil {
			return nil, err
		}
		return st.Load(latest.ID)
	}
	return nil, nil
}

// sessionHeader is a new session's header.
func sessionHeader(command, agentFile string, ag *ragent.Agent) session.Header {
	cwd, _ := os.Getwd()
	h := session.Header{Cwd: cwd, AgentFile: agentFile, LuagentVersion: version, Command: command}
	if m := ag.Model(); m != nil {
		h.Model = m.Name()
	}
	return h
}

// recordSession starts the session the agent's turns are saved in: a
// new one, prior itself, or prior's fork; the agent gets prior's
// conversation. The writer's ID is the run's session id.
func recordSession(st *session.Store, prior *session.Session, fork bool, h session.Header, ag *ragent.Agent) (*session.Writer, error) {
	if own, ok := ag.Recorder().(*session.Writer); ok && own != nil {
		// The agent file's agent has a session of its own (agent.resume,
		// agent.new{session = true}): the run goes on in it, unless -c or
		// --resume names another.
		if prior == nil {
			return own, nil
		}
		own.Close()
		if s, err := st.Load(own.ID()); err == nil && len(s.Entries) == 0 && s.Turns() == 0 {
			st.Remove(own.ID())
		}
	}
	w, msgs, err := st.Begin(prior, fork, h)
	if err != nil {
		return nil, err
	}
	if len(msgs) > 0 {
		ag.Seed(seedOf(msgs))
	}
	ag.SetRecorder(w)
	return w, nil
}

func seedOf(msgs []ragent.Message) []llm.Message {
	out := make([]llm.Message, len(msgs))
	for i, m := range msgs {
		out[i] = m.LLM()
	}
	return out
}

func sessionsCmd(o *options, code *int, stdout, stderr io.Writer) *cobra.Command {
	c := &cobra.Command{
		Use:   "sessions VERB [ARGS...]",
		Short: "the saved sessions of ask and chat: list, show ID, rm ID",
		Long: `Every luagent ask and luagent chat is a session, saved under
~/.luagent/sessions/ as one file per session (ID.jsonl, stdlib/doc/sessions.md).
luagent ask -c continues the latest one of the current folder, --resume ID
a given one; luagent chat --resume ID|latest.`,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("sessions needs a verb (list, show, rm): luagent sessions list")
			}
			if args[0] == "help" {
				return c.Help()
			}
			return usagef("unknown sessions verb %s (luagent sessions takes list, show, rm)", args[0])
		},
	}
	later(o, c, func() {
		var asJSON bool
		list := &cobra.Command{Use: "list [--json]", Short: "the sessions, the most recent first: id, folder, start, turns, model, first prompt",
			RunE: func(*cobra.Command, []string) error {
				*code = sessionsList(asJSON, stdout, stderr)
				return nil
			},
			Args: func(c *cobra.Command, args []string) error {
				if len(args) > 0 {
					return usagef("sessions list takes only --json: luagent sessions list [--json]")
				}
				return nil
			}}
		flagDecl{fs: list.Flags()}.boolean(&asJSON, "json", "a JSON array; each element is {id, cwd, start, updated, turns, first_prompt, model, agent_file, command, forked_from, size, path}")
		oneID := func(verb string) cobra.PositionalArgs {
			return func(c *cobra.Command, args []string) error {
				if len(args) != 1 {
					return usagef("sessions %s takes one session id: luagent sessions %s ID (luagent sessions list shows them)", verb, verb)
				}
				return nil
			}
		}
		show := &cobra.Command{Use: "show ID", Short: "the conversation of a session, readable (tool calls and their full results)", Args: oneID("show"),
			RunE: func(c *cobra.Command, args []string) error {
				*code = sessionsShow(args[0], stdout, stderr)
				return nil
			}}
		rm := &cobra.Command{Use: "rm ID", Short: "delete a session's file", Args: oneID("rm"),
			RunE: func(c *cobra.Command, args []string) error {
				*code = sessionsRm(args[0], stdout, stderr)
				return nil
			}}
		list.Example = "  luagent sessions list\n  luagent sessions list --json"
		// complete offers the saved sessions' ids.
		complete := func(c *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			all, _ := sessionStore(nil, nil).List()
			var ids []cobra.Completion
			for _, i := range all {
				ids = append(ids, cobra.CompletionWithDesc(i.ID, render.OneLine(i.FirstPrompt, 40)))
			}
			return ids, cobra.ShellCompDirectiveNoFileComp
		}
		show.ValidArgsFunction, rm.ValidArgsFunction = complete, complete
		c.AddCommand(list, show, rm)
		setDefaults(c)
	})
	return c
}

// sessionMsg is a session error's message without its op.
func sessionMsg(err error) string {
	if e, ok := err.(*errs.Error); ok && e.Op == "session" {
		return e.Msg
	}
	return err.Error()
}

func sessionFailed(stderr io.Writer, err error) int {
	msg := sessionMsg(err)
	fmt.Fprintf(stderr, "luagent: %s: %s\n", errs.KindOf(err), visible.Line(render.OneLine(msg, 400)))
	return host.ExitError
}

func sessionsList(asJSON bool, stdout, stderr io.Writer) int {
	all, err := sessionStore(nil, nil).List()
	if err != nil {
		return sessionFailed(stderr, err)
	}
	if asJSON {
		e := json.NewEncoder(stdout)
		e.SetEscapeHTML(false)
		e.SetIndent("", "  ")
		if all == nil {
			all = []session.Info{}
		}
		e.Encode(all)
		return host.ExitOK
	}
	if len(all) == 0 {
		fmt.Fprintln(stdout, "no sessions yet (luagent ask and luagent chat save them in "+session.Dir(host.Home())+")")
		return host.ExitOK
	}
	home, _ := os.UserHomeDir()
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tFOLDER\tSTARTED\tTURNS\tMODEL\tFIRST PROMPT")
	for _, i := range all {
		cwd := i.Cwd
		if home != "" && strings.HasPrefix(cwd, home) {
			cwd = "~" + strings.TrimPrefix(cwd, home)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", i.ID, visible.Line(cwd), i.Start.Local().Format("2006-01-02 15:04"),
			i.Turns, visible.Line(i.Model), visible.Line(render.OneLine(i.FirstPrompt, 60)))
	}
	tw.Flush()
	return host.ExitOK
}

func sessionsRm(id string, stdout, stderr io.Writer) int {
	st := sessionStore(nil, nil)
	sess, err := st.Load(id)
	if err != nil {
		return sessionFailed(stderr, err)
	}
	if err := st.Remove(sess.ID); err != nil {
		return sessionFailed(stderr, err)
	}
	fmt.Fprintf(stdout, "removed session %s\n", sess.ID)
	return host.ExitOK
}

// sessionsShow prints a session for a person: the header, then each
// message (control characters visible), tool calls with their results in
// full as saved.
func sessionsShow(id string, stdout, stderr io.Writer) int {
	sess, err := sessionStore(nil, nil).Load(id)
	if err != nil {
		return sessionFailed(stderr, err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "session %s\n", sess.ID)
	fmt.Fprintf(&b, "folder  %s\nstarted %s\nmodel   %s\n", sess.Cwd, sess.Start.Local().Format(time.DateTime), sess.LastModel())
	if sess.AgentFile != "" {
		fmt.Fprintf(&b, "agent   %s\n", sess.AgentFile)
	}
	if sess.ForkedFrom != "" {
		fmt.Fprintf(&b, "forked from %s\n", sess.ForkedFrom)
	}
	fmt.Fprintf(&b, "file    %s\n", sess.Path)
	if sess.Turns() > 0 {
		usd, unknown := sess.Cost()
		c := cost.Format(usd, true)
		switch {
		case unknown && usd == 0:
			c = "unknown (no price known for its model)"
		case unknown:
			c += " and unknown (a model had no known price)"
		}
		fmt.Fprintf(&b, "cost    %s\n", c)
	}
	ends := map[int]session.Line{}
	for _, e := range sess.Ends {
		ends[e.Turn] = e
	}
	turn := 0
	flushEnd := func() {
		if e, ok := ends[turn]; ok && (e.End != string(ragent.EndAnswer) || e.Error != "") {
			fmt.Fprintf(&b, "  (the turn ended: %s %s)\n", e.End, e.Error)
		}
	}
	for _, e := range sess.Entries {
		if e.Turn != turn {
			flushEnd()
			turn = e.Turn
			fmt.Fprintf(&b, "\n── turn %d\n", turn)
		}
		m := e.Message
		switch m.Role {
		case "user":
			fmt.Fprintf(&b, "> %s\n", partsText(m))
		case "assistant":
			if t := partsText(m); t != "" {
				fmt.Fprintf(&b, "%s\n", t)
			}
			for _, tc := range m.ToolCalls {
				fmt.Fprintf(&b, "→ %s %s\n", tc.Name, string(tc.Arguments))
			}
		case "tool":
			mark := "←"
			if m.IsError {
				mark = "← error:"
			}
			body := partsText(m)
			if e.Call != nil && e.Call.Result != nil {
				body = resultText(*e.Call.Result) // the full result, as the tool gave it
			}
			if e.Call != nil && e.Call.Decision != "" && e.Call.Decision != ragent.Allow {
				fmt.Fprintf(&b, "  (%s: %s)\n", e.Call.Decision, e.Call.Reason)
			}
			fmt.Fprintf(&b, "%s %s\n", mark, body)
		default:
			fmt.Fprintf(&b, "[%s] %s\n", m.Role, partsText(m))
		}
		if e.Cut {
			b.WriteString("  (cut in the file: over the line cap)\n")
		}
	}
	flushEnd()
	if sess.Dropped > 0 {
		fmt.Fprintf(&b, "\n(%s of a turn that did not finish not shown: the run ended mid-turn)\n", plural(sess.Dropped, "message"))
	}
	if sess.Capped {
		b.WriteString("\n(the file reached its size cap: later turns were not saved)\n")
	}
	io.WriteString(stdout, visible.Text(b.String()))
	return host.ExitOK
}

func partsText(m ragent.Message) string {
	var out []string
	for _, p := range m.Parts {
		switch p.Type {
		case "text":
			out = append(out, p.Text)
		default:
			out = append(out, fmt.Sprintf("[%s %s, %d bytes]", p.Type, p.MIME, len(p.Data)))
		}
	}
	return strings.Join(out, "\n")
}

func resultText(r ragent.Result) string {
	var out []string
	for _, c := range r.Content {
		var blk struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(c, &blk) == nil && blk.Type == "text" {
			out = append(out, blk.Text)
			continue
		}
		out = append(out, string(c))
	}
	if len(out) == 0 && len(r.StructuredContent) > 0 {
		out = append(out, string(r.StructuredContent))
	}
	return strings.Join(out, "\n")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
