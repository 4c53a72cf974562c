package chat

import (
	"sort"
	"strings"

	"github.com/luagent/luagent/runtime/approval"
	"github.com/luagent/luagent/runtime/errs"
)

// Command is a slash command as typed: /mcp prompt srv p k=v is
// {Name: "mcp", Args: ["prompt", "srv", "p", "k=v"], Rest: "prompt srv p k=v"}.
type Command struct {
	Name string
	Args []string
	// Rest is the text after the name, as typed (for /lua CODE).
	Rest string
}

// Commands are the slash commands with a line of help each, in /help's
// order. Aliases name the command they stand for.
var Commands = []struct{ Name, Usage, Help string }{
	{"help", "/help", "this list"},
	{"mcp", "/mcp", "the servers' manager: status, inspect, add, reload config.json (r), restart, authorize, enable, disable, remove (/mcps too; a list on a pipe)"},
	{"mcp NAME", "/mcp NAME", "a server's tools (arguments, annotations), prompts, resources"},
	{"mcp restart", "/mcp restart NAME", "restart a server"},
	{"mcp enable", "/mcp enable|disable NAME", "enable or disable a server in the catalog (saved)"},
	{"mcp auth", "/mcp auth NAME", "authorize an HTTP server again (OAuth in the browser)"},
	{"mcp prompt", "/mcp prompt SERVER PROMPT [k=v ...]", "send a server's prompt as the next turn (quote a value as a shell does: k=\"a b\")"},
	{"meta", "/meta REQUEST", "ask the catalog agent to add, change or remove servers (you confirm each save)"},
	{"model", "/model [NAME]", "show the model, or switch to NAME keeping the conversation"},
	{"clear", "/clear", "start a new conversation (the current one is saved)"},
	{"save", "/save FILE", "write the conversation as JSON to FILE"},
	{"lua", "/lua CODE", "run one Lua line in the session's state"},
	{"cost", "/cost", "tokens (input, cached, output) and cost so far, per model and in total (\"unknown\" for a model with no price)"},
	{"memory", "/memory", "the project memory in the system prompt: each AGENTS.md's path, size, and whether it was cut"},
	{"compact", "/compact [FOCUS]", "replace the older turns by a summary now (FOCUS: what it is to keep); the session file keeps them all"},
	{"context", "/context", "where the context's tokens go: system prompt, memory, each server's tool schemas, messages, tool results"},
	{"quit", "/quit", "save the conversation and leave (/exit, Ctrl-D)"},
}

// aliases map a typed name to its command.
var aliases = map[string]string{"mcps": "mcp", "exit": "quit", "?": "help"}

// names are every name a user may type, aliases too, sorted (completion).
func names() []string {
	var out []string
	for _, c := range Commands {
		if !strings.Contains(c.Name, " ") {
			out = append(out, c.Name)
		}
	}
	for a := range aliases {
		if a != "?" {
			out = append(out, a)
		}
	}
	sort.Strings(out)
	return out
}

// IsBuiltin says whether name (as typed after "/", an alias too) is one
// of the chat's own commands: they win over command files of the same
// name.
func IsBuiltin(name string) bool {
	if a, ok := aliases[name]; ok {
		name = a
	}
	for _, c := range Commands {
		if c.Name == name {
			return true
		}
	}
	return false
}

// IsCommand says whether a line is a slash command (a line starting with
// "//" is a message starting with "/", the slash doubled to escape it).
func IsCommand(line string) bool {
	s := strings.TrimSpace(line)
	return strings.HasPrefix(s, "/") && !strings.HasPrefix(s, "//")
}

// Unescape turns a message typed as "//text" into "/text".
func Unescape(line string) string {
	if s := strings.TrimLeft(line, " \t"); strings.HasPrefix(s, "//") {
		return s[1:]
	}
	return line
}

// ParseCommand reads a slash command. Arguments are split as a shell
// splits words (splitArgs); an unknown name is an error of kind not_found that says how to
// list the commands.
func ParseCommand(line string) (Command, error) {
	s := strings.TrimSpace(line)
	if !strings.HasPrefix(s, "/") || len(s) == 1 {
		return Command{}, errs.New(errs.Invalid, "chat", "a command starts with / and a name: /help lists them")
	}
	name, rest, _ := strings.Cut(s[1:], " ")
	rest = strings.TrimSpace(rest)
	if a, ok := aliases[name]; ok {
		name = a
	}
	known := false
	for _, c := range Commands {
		known = known || c.Name == name
	}
	if !known {
		return Command{}, errs.Errorf(errs.NotFound, "chat", "unknown command /%s: /help lists them (start a message with // to send a leading /)", name)
	}
	args, err := splitArgs(name, rest)
	if err != nil {
		return Command{}, err
	}
	return Command{Name: name, Args: args, Rest: rest}, nil
}

// ParseKV reads prompt arguments: each token is split at its first "=",
// the value is the rest as a string, a token without "=" has the empty
// value. An empty key or a key given twice is an error of kind invalid.
func ParseKV(tokens []string) (map[string]string, error) {
	out := make(map[string]string, len(tokens))
	for _, tok := range tokens {
		k, v, _ := strings.Cut(tok, "=")
		if k == "" {
			return nil, errs.Errorf(errs.Invalid, "chat", "argument %q has no name: write NAME=VALUE", tok)
		}
		if _, dup := out[k]; dup {
			return nil, errs.Errorf(errs.Invalid, "chat", "argument %s is given twice: give each once", k)
		}
		out[k] = v
	}
	return out, nil
}

// Choice, Approval and ParseApproval are approval's (a person's answer
// to an approval ask: y, a, n [reason], e).
type (
	Choice   = approval.Choice
	Approval = approval.Answer
)

// The choices.
const (
	Deny         = approval.Refuse
	AllowOnce    = approval.AllowOnce
	AllowSession = approval.AllowSession
	AllowAlways  = approval.AllowAlways
)

// ParseApproval reads an answer typed at an approval ask.
func ParseApproval(line string) (Approval, bool) { return approval.ParseAnswer(line) }
