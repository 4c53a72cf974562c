package main

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/luagent/luagent/runtime/chat"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// `luagent ask` and `luagent chat`: an agent over the catalog's servers,
// once or as a conversation. Their bodies are runAsk and runChat.

const agentEnv = `  LUAGENT_MODEL    the default model
  LUAGENT_HOME     replaces ~/.luagent (config.json, chat_history, sessions/)
  OPENAI_API_KEY, OPENAI_BASE_URL, ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL
                   the providers' keys and endpoints (never printed)`

// modelFlags are the flags ask and chat share.
func modelFlags(fs *pflag.FlagSet, verb string, model, agent *string, fallbacks *[]string, yes, code *bool) {
	d := flagDecl{fs: fs}
	d.str(model, "model", "M", `the model: mock, openai:MODEL, anthropic:MODEL, ollama:MODEL or a configured name (default: $LUAGENT_MODEL, else config.json's "model", else mock, with a note)`,
		"--model needs a value: luagent "+verb+" --model openai:gpt-4.1-mini"+map[string]string{"ask": " PROMPT"}[verb])
	d.list(fallbacks, "fallback-model", "M", `a model that answers when the model cannot: its retries spent on 429/5xx/overloaded, its endpoint down, or the conversation too long for it (repeatable, tried in order; replaces config.json's "fallbackModels")`,
		"--fallback-model needs a value: luagent "+verb+" --fallback-model anthropic:claude-haiku-4-5"+map[string]string{"ask": " PROMPT"}[verb])
	d.str(agent, "agent", "FILE", "the agent FILE returns (return agent.new{...}), or the one an agents-exe JSON agent file describes; --model, --server and --yes override its own settings",
		"--agent needs a value: luagent "+verb+" --agent examples/agent.lua"+map[string]string{"ask": " PROMPT"}[verb])
	d.boolean(yes, "yes,y", "allow every tool call the policy would ask about"+map[string]string{"ask": "; without it nobody is asked, so such calls are denied", "chat": ", unasked"}[verb])
	d.boolean(code, "code-mode", `offer the model run_lua instead of the tools: a Lua snippet that calls them as functions in a sandbox (README "Code mode")`)
}

// runLimitFlags are --max-turns and --max-cost (--max-budget-usd, Claude
// Code's name), ask's and chat's: they win over an agent file's own.
func runLimitFlags(d flagDecl, verb string, maxTurns *int, maxCost *float64) {
	example := map[string]string{"ask": " PROMPT"}[verb]
	d.fn("max-turns", "N", "model requests per prompt before the run stops with a limit error (default: the agent's max_turns, 20)",
		"--max-turns needs a number: luagent "+verb+" --max-turns 10"+example, func(v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return fmt.Errorf("--max-turns must be a whole number of 1 or more, not %q", v)
			}
			*maxTurns = n
			return nil
		})
	setCost := func(v string) error {
		f, err := strconv.ParseFloat(strings.TrimPrefix(v, "$"), 64)
		if err != nil || !(f > 0) || math.IsInf(f, 0) {
			return fmt.Errorf("--max-cost must be an amount of USD above 0 (0.50), not %q", v)
		}
		*maxCost = f
		return nil
	}
	d.fn("max-cost", "USD", `stop once the model requests have cost this much (by the models' prices: config.json's models.NAME.price or luagent's list prices), after the response that reaches it; a limit error, the work so far kept`,
		"--max-cost needs an amount: luagent "+verb+" --max-cost 0.50"+example, setCost)
	d.fn("max-budget-usd", "USD", "the same as --max-cost (Claude Code's name)",
		"--max-budget-usd needs an amount: luagent "+verb+" --max-budget-usd 0.50"+example, setCost)
}

func askCmd(o *options, code *int, stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	a := &askOptions{}
	c := &cobra.Command{
		Use:   "ask [--model M] [--agent FILE] [--server NAME]... [--yes] [--json] [--output-format F] PROMPT...",
		Short: "ask an agent over the catalog's servers (prompt on stdin when none)",
		Long: `Asks an agent once and exits. The agent has the catalog's servers
(~/.luagent/config.json; luagent mcp list), waits for them to start, streams
its answer to stdout and its tool activity (server › tool args, progress,
time and a one-line result) to stderr. The prompt is the arguments joined
by spaces, or stdin when there are none. Exit 0 on an answer, 1 with the
error's kind on one line (auth, rate_limit, limit, timeout, ...), 2 for usage.
The system prompt has the project memory: AGENTS.md here and up to the
repository's root, and ~/.luagent/AGENTS.md (--no-memory leaves it out).
A prompt "/NAME args" is a command file's (.luagent/commands/NAME.md or
~/.luagent/commands/; "//" sends a leading /); agent files
(.luagent/agents/) are the agent's tools (stdlib/doc/commands.md).

--output-format json or stream-json prints Claude Code's headless JSON
instead, and nothing else, on stdout (README "Automation"); --json is
the transcript, as before.`,
		Example: `  luagent ask "what tools do you have?"
  OPENAI_API_KEY=... luagent ask --model openai:gpt-4.1-mini "summarise README.md"
  echo "write a note" | luagent ask --agent examples/agent.lua --yes
  luagent ask --output-format stream-json "what tools do you have?"`,
		Annotations: map[string]string{
			"usage": "usage: luagent [options] ask [--model M] [--agent FILE] [--server NAME]... [--yes] [--allow PATTERN]... [--deny PATTERN]... [-c | --resume ID] [--fork] [--json] [--output-format text|json|stream-json] [--input-format text|stream-json] [--code-mode] [--no-memory] [--fallback-model M]... [--max-turns N] [--max-cost USD] [--context-window TOKENS] PROMPT...\n",
			"env":   agentEnv,
		},
		RunE: func(c *cobra.Command, args []string) error {
			if err := a.sess.check(); err != nil {
				return err
			}
			a.prompt = args
			if err := a.checkFormats(); err != nil {
				return err
			}
			o.ask = a
			*code = runHost(*o, stdin, stdout, stderr)
			return nil
		},
	}
	later(o, c, func() {
		modelFlags(c.Flags(), "ask", &a.model, &a.agent, &a.fallbacks, &a.yes, &a.code)
		d := flagDecl{fs: c.Flags()}
		contextWindowFlag(d, "ask", &a.window)
		d.list(&a.servers, "server", "NAME", "offer only this catalog server's tools (repeatable)",
			"--server needs a value: luagent ask --server fs PROMPT")
		d.boolean(&a.json, "json", "print the transcript as JSON to stdout instead of the answer")
		permFlags(c.Flags(), "ask", &a.allow, &a.deny)
		d.boolean(&a.noMemory, "no-memory", `leave the project memory (AGENTS.md, README "Project memory") out of the system prompt`)
		askFormatFlags(d, a)
		runLimitFlags(d, "ask", &a.maxTurns, &a.maxCost)
		d.boolean(&a.sess.cont, "continue,c", "continue the latest session of this folder (luagent sessions list)")
		d.str(&a.sess.resume, "resume", "ID", "continue the saved session ID, with its model unless --model says otherwise",
			"--resume needs a session id: luagent ask --resume ID PROMPT (luagent sessions list shows them)")
		d.boolean(&a.sess.fork, "fork", "with -c or --resume: go on in a new session (a new id) holding the old one's history")
	})
	return c
}

func chatCmd(o *options, code *int, stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	ch := &chatOptions{}
	c := &cobra.Command{
		Use:   "chat [--model M] [--agent FILE] [--server NAME]... [--resume ID|latest] [--yes]",
		Short: "talk with an agent over the catalog's servers (/help in it)",
		Long:  chatLong + chatCommands(),
		Example: `  luagent chat
  luagent chat --agent examples/agent.lua --model openai:gpt-4.1-mini
  luagent chat --resume latest`,
		Annotations: map[string]string{
			"usage": "usage: luagent [options] chat [--model M] [--agent FILE] [--server NAME]... [--resume ID|latest] [--yes] [--allow PATTERN]... [--deny PATTERN]... [--code-mode] [--no-memory] [--fallback-model M]... [--max-turns N] [--max-cost USD] [--context-window TOKENS] [--no-notify]\n",
			"env":   agentEnv,
		},
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("chat takes no prompt on the command line, not %q: luagent chat, then type (luagent ask PROMPT asks once)", args[0])
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			o.chat = ch
			*code = runHost(*o, stdin, stdout, stderr)
			return nil
		},
	}
	later(o, c, func() {
		modelFlags(c.Flags(), "chat", &ch.model, &ch.agent, &ch.fallbacks, &ch.yes, &ch.code)
		d := flagDecl{fs: c.Flags()}
		contextWindowFlag(d, "chat", &ch.window)
		d.list(&ch.servers, "server", "NAME", "offer only this catalog server's tools (repeatable)",
			"--server needs a value: luagent chat --server fs")
		d.str(&ch.resume, "resume", "ID", "continue the saved session ID (luagent sessions list), or latest: this folder's latest; with the model it was saved with unless --model (or --agent) says otherwise. A conversation FILE saved before sessions (or by /save) goes on in a new session",
			"--resume needs a value: luagent chat --resume latest (or a session id: luagent sessions list)")
		permFlags(c.Flags(), "chat", &ch.allow, &ch.deny)
		d.boolean(&ch.noMemory, "no-memory", `leave the project memory (AGENTS.md, README "Project memory") out of the system prompt`)
		runLimitFlags(d, "chat", &ch.maxTurns, &ch.maxCost)
		d.boolean(&ch.noNotify, "no-notify", `no bell or desktop notification when an approval or a form waits or a long turn ends (config.json's "notifications": "off")`)
	})
	return c
}

const chatLong = `A conversation with an agent over the catalog's servers
(~/.luagent/config.json; luagent mcp list). It opens at once; the servers
start in the background (a line says how many are ready) and their tools
join when ready. A plain line goes to the agent; the answer streams, and
each tool call shows server › tool args, its progress, time and a
one-line result. A call the policy asks about asks you: y once, a
always (a rule saved in the project's .luagent/config.json, or yours
outside a project), u always in yours, s for the session, n [REASON] to
deny (the reason goes to the model). A
server's form (elicitation) is asked field by field and checked before it
is sent (!decline, !cancel); a URL it asks you to open is shown in full
and opened only if you say y.

End a line with \ to continue it on the next. Tab completes /commands,
server and prompt names. Ctrl-C cancels a running turn (the servers are
told) and the session goes on; at the prompt it clears the line, and a
second one leaves; so does Ctrl-D. History is kept in
~/.luagent/chat_history. The chat is a session, saved in
~/.luagent/sessions/ as it goes (its id is printed on exit); --resume ID
or --resume latest continues one (luagent sessions list shows them).
The agent's system prompt has the project memory (AGENTS.md here and up
to the repository's root, and ~/.luagent/AGENTS.md: /memory lists it,
--no-memory leaves it out). The terminal rings (bell or OSC 9) when an
approval or a form waits and when a turn over 10 s ends (--no-notify).
`

// chatCommands lists the chat's commands from the one list /help prints
// (runtime/chat.Commands).
func chatCommands() string {
	var b strings.Builder
	b.WriteString("\ncommands (in the chat):\n")
	for _, c := range chat.Commands {
		if len(c.Usage) > 28 {
			fmt.Fprintf(&b, "  %s\n  %-28s %s\n", c.Usage, "", c.Help)
			continue
		}
		fmt.Fprintf(&b, "  %-28s %s\n", c.Usage, c.Help)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
