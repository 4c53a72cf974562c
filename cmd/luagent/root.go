package main

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/luagent/luagent/luabind/host"
	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/visible"
)

// The command tree: every command and flag is declared once here and in
// the cmd_*.go files, on spf13/cobra; help, completion and the usage
// errors are generated from those declarations. The commands' bodies
// (runScript, runAsk, runChat, the mcp verbs) get their options parsed.

// usagef is a command-line mistake (kind invalid): luagent prints it on
// one line, saying what to type instead, and exits 2.
func usagef(format string, a ...any) error {
	return errs.Errorf(errs.Invalid, "", format, a...)
}

// Flag annotations the help and the argument check read.
const (
	annValue = "luagent_value" // the value's name in help (FILE, URL)
	annNeed  = "luagent_need"  // the one line said when the value is missing
	annRaw   = "luagent_raw"   // the value may start with "-" (-e '-- comment')
	annGroup = "luagent_group" // the help section the flag is listed under
	// a command's: its first argument ends its options (what follows is
	// the script's)
	annArgsEnd = "luagent_args_end_flags"
)

// flagDecl declares flags on fs with the annotations above.
type flagDecl struct {
	fs    *pflag.FlagSet
	group string // help section ("" = options)
	raw   bool   // values may look like options
}

// split reads "long" or "long,s" (a one-letter shorthand).
func split(name string) (long, short string) {
	long, short, _ = strings.Cut(name, ",")
	return long, short
}

func (d flagDecl) annotate(long, value, need string) {
	if value != "" {
		d.fs.SetAnnotation(long, annValue, []string{value})
	}
	if need != "" {
		d.fs.SetAnnotation(long, annNeed, []string{need})
	}
	if d.raw {
		d.fs.SetAnnotation(long, annRaw, []string{"1"})
	}
	if d.group != "" {
		d.fs.SetAnnotation(long, annGroup, []string{d.group})
	}
}

// str declares a flag with one string value.
func (d flagDecl) str(p *string, name, value, usage, need string) {
	long, short := split(name)
	d.fs.StringVarP(p, long, short, "", usage)
	d.annotate(long, value, need)
}

// list declares a repeatable flag (each value whole: no comma splitting).
func (d flagDecl) list(p *[]string, name, value, usage, need string) {
	long, short := split(name)
	d.fs.StringArrayVarP(p, long, short, nil, usage)
	d.annotate(long, value, need)
}

func (d flagDecl) boolean(p *bool, name, usage string) {
	long, short := split(name)
	d.fs.BoolVarP(p, long, short, false, usage)
	d.annotate(long, "", "")
}

// fn declares a flag whose value set checks and stores; its error is the
// whole one-line message.
func (d flagDecl) fn(name, value, usage, need string, set func(string) error) {
	long, short := split(name)
	d.fs.FuncP(long, short, usage, set)
	d.annotate(long, value, need)
}

// newRoot builds the command tree; the command that runs stores its exit
// code in *code.
func newRoot(code *int, stdin io.Reader, stdout, stderr io.Writer) (*cobra.Command, *options) {
	o := &options{sets: catalog.Params{}, later: map[*cobra.Command]func(){}}
	root := &cobra.Command{
		Use:   "luagent",
		Short: "a Lua host that speaks the Model Context Protocol",
		Long:  rootLong,
		Args:  cobra.ArbitraryArgs,
		// luagent FILE ARGS...: what follows the file is the script's.
		RunE: func(c *cobra.Command, args []string) error {
			if o.version {
				fmt.Fprintln(stdout, "luagent", version)
				return nil
			}
			if o.types != "" {
				*code = writeTypes(o.types, stdout, stderr)
				return nil
			}
			if len(args) > 0 {
				if args[0] != "-" && c.ArgsLenAtDash() != 0 && !fileExists(args[0]) {
					return usagef("no such command or file: %s (luagent --help lists commands)", args[0])
				}
				o.script, o.args = args[0], args[1:]
			}
			if err := checkSandboxFlags(*o); err != nil {
				return usagef("%v", err)
			}
			*code = runHost(*o, stdin, stdout, stderr)
			return nil
		},
		Annotations: map[string]string{
			"usage":    "usage: luagent [options] [COMMAND | FILE | -] [ARGS...]\n",
			"env":      rootEnv,
			"footer":   rootFooter,
			annArgsEnd: "1",
		},
		SilenceErrors:         true,
		SilenceUsage:          true,
		DisableFlagsInUseLine: true,
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.Flags().SetInterspersed(false)
	globalFlags(root.PersistentFlags(), o)
	scriptFlags(root.Flags(), o)
	d := flagDecl{fs: root.Flags()}
	d.str(&o.types, "types", "DIR", "write type stubs of the Lua modules to DIR for editors (lua-language-server), then exit",
		"--types needs a folder: luagent --types .luagent/types")
	d.boolean(&o.version, "version", "print the version")
	root.Flags().BoolP("help", "h", false, "this help")
	root.SetFlagErrorFunc(flagError)
	root.SetHelpFunc(func(c *cobra.Command, _ []string) { fmt.Fprint(c.OutOrStdout(), helpText(c)) })
	root.AddCommand(runCmd(o, code, stdin, stdout, stderr), serveCmd(o, code, stdin, stdout, stderr),
		mcpServerCmd(o, code, stdin, stdout, stderr), askCmd(o, code, stdin, stdout, stderr),
		chatCmd(o, code, stdin, stdout, stderr), mcpCmd(o, code, stdout, stderr),
		hooksCmd(o, code, stdout, stderr), sessionsCmd(o, code, stdout, stderr),
		&cobra.Command{Use: "version", Short: "print the version", Hidden: true, Args: cobra.NoArgs,
			Run: func(*cobra.Command, []string) { fmt.Fprintln(stdout, "luagent", version) }})
	root.AddCommand(trustCmd(o, code, stdout, stderr), acpCmd(o, code, stdin, stdout, stderr))
	cobra.EnableCommandSorting = false // help lists them as declared
	setDefaults(root)
	root.PersistentFlags().SortFlags = false
	return root, o
}

// later declares a command's own flags when it is the one that runs
// (declareFlags): serve's cold start builds only serve's.
func later(o *options, c *cobra.Command, declare func()) { o.later[c] = declare }

// declareFlags declares the flags of c and its parents.
func declareFlags(o *options, c *cobra.Command) {
	for ; c != nil; c = c.Parent() {
		if f := o.later[c]; f != nil {
			delete(o.later, c)
			f()
		}
	}
}

// declareAll declares every command's flags (help, completion).
func declareAll(o *options) {
	for len(o.later) > 0 { // a declaration may add commands with their own
		for c, f := range o.later {
			delete(o.later, c)
			f()
		}
	}
}

// setDefaults gives every command luagent's help line shape and argument
// checks (so cobra's legacy checks never answer instead).
func setDefaults(c *cobra.Command) {
	c.DisableFlagsInUseLine = true
	c.Flags().SortFlags = false // help lists them as declared
	if c.Args == nil {
		c.Args = cobra.ArbitraryArgs
	}
	for _, s := range c.Commands() {
		setDefaults(s)
	}
}

// globalFlags are accepted before or after any command.
func globalFlags(fs *pflag.FlagSet, o *options) {
	d := flagDecl{fs: fs, group: "global"}
	d.boolean(&o.verbose, "verbose,v", "print protocol and process events to stderr")
	d.str(&o.trace, "trace", "FILE", "write protocol and process events to FILE as JSON lines",
		"--trace needs a file: luagent --trace trace.jsonl run script.lua")
	d.fn("log-http", "URL", "POST the same events as batches of JSON lines to a collector (buffered; a dead one costs nothing)",
		"--log-http needs a collector URL: luagent --log-http http://127.0.0.1:4318/events run script.lua", func(v string) error {
			if !isHTTPURL(v) {
				return errors.New("--log-http needs a collector URL: luagent --log-http http://127.0.0.1:4318/events run script.lua")
			}
			o.logHTTP = v
			return nil
		})
	d.fn("otlp", "URL", "export agent runs, turns, model requests, tool calls and MCP requests as OpenTelemetry spans (OTLP/HTTP)",
		"--otlp needs the collector's OTLP/HTTP traces URL: luagent --otlp http://127.0.0.1:4318/v1/traces ask ...", func(v string) error {
			if !isHTTPURL(v) {
				return errors.New("--otlp needs the collector's OTLP/HTTP traces URL: luagent --otlp http://127.0.0.1:4318/v1/traces ask ...")
			}
			o.otlpURL = v
			return nil
		})
	d.boolean(&o.clean, "clean", "skip ~/.luagent/init.lua")
	d.boolean(&o.init, "init", "run ~/.luagent/init.lua before serve's script too (serve skips it otherwise)")
	d.fn("set", "NAME=VALUE", "a parameter for the catalog's {\"param\": NAME} env references (repeatable)",
		"--set needs NAME=VALUE: luagent --set github_token=... run script.lua", func(v string) error {
			k, val, err := catalog.ParseSet(v)
			if err != nil {
				return err
			}
			o.sets[k] = val
			delete(o.setsJSON, k)
			return nil
		})
	d.fn("set-json", "NAME=JSON", "a parameter whose value is JSON (an agent's binding gets it as such)",
		`--set-json needs NAME=JSON: luagent --set-json repos='["a","b"]' serve agents.lua`, func(v string) error { return setJSON(o, v) })
	d.list(&o.paramFiles, "params-file", "FILE", "parameters from a JSON object or NAME=VALUE lines (--set wins)",
		"--params-file needs a file: luagent --params-file params.json run script.lua")
	d.str(&o.apiKeys, "api-keys", "FILE", "the agents-exe keys file agents-exe agent files' apiKeyId name keys in (default ~/.config/agents-exe/secret-keys)",
		"--api-keys needs a file: luagent --api-keys ~/.config/agents-exe/secret-keys mcp-server --agent-file agent.json")
}

// scriptFlags are the REPL's and run's own: -e CODE and -i.
func scriptFlags(fs *pflag.FlagSet, o *options) {
	d := flagDecl{fs: fs, raw: true}
	d.list(&o.exprs, "eval,e", "CODE", "run CODE (repeatable) and exit; -i opens the REPL after",
		"-e needs an argument: luagent -e 'print(1)'")
	d.boolean(&o.interactive, "interactive,i", "open the REPL after -e or a script")
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func isHTTPURL(v string) bool {
	u, err := url.Parse(v)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// flagError turns pflag's parse errors into luagent's one-line usage
// errors, naming the command's help.
func flagError(c *cobra.Command, err error) error {
	var notExist *pflag.NotExistError
	var needs *pflag.ValueRequiredError
	var invalid *pflag.InvalidValueError
	switch {
	case errors.As(err, &notExist):
		name := notExist.GetSpecifiedName()
		if name == "" {
			name = notExist.GetSpecifiedShortnames()
		}
		flag := "--" + name
		if len(name) == 1 {
			flag = "-" + name
		}
		if f := c.Annotations["unknown"]; f != "" {
			return usagef("%s", strings.ReplaceAll(f, "%s", flag))
		}
		if !c.HasParent() {
			return usagef("unknown option %s (luagent --help lists them)", flag)
		}
		path := strings.TrimPrefix(c.CommandPath(), "luagent ")
		return usagef("unknown %s option %s (luagent %s --help lists them)", path, flag, path)
	case errors.As(err, &needs):
		return usagef("%s", needMessage(c, needs.GetFlag()))
	case errors.As(err, &invalid):
		if inner := errors.Unwrap(invalid); inner != nil && invalid.GetFlag().Value.Type() == "func" {
			return usagef("%s", inner.Error())
		}
		return usagef("--%s %s: %v (luagent %s --help)", invalid.GetFlag().Name, invalid.GetValue(), errors.Unwrap(invalid), c.CommandPath())
	}
	return usagef("%v (luagent %s --help)", err, c.CommandPath())
}

func needMessage(c *cobra.Command, f *pflag.Flag) string {
	if n := f.Annotations[annNeed]; len(n) > 0 {
		return n[0]
	}
	return fmt.Sprintf("--%s needs a value (%s --help says more)", f.Name, c.CommandPath())
}

// prepare checks argv as the command it names will read it, before cobra
// does: a flag that takes a value does not take the next option as it
// ("--trace -v run x.lua" forgot the file; --name=VALUE passes any
// value), and a flag whose value is optional (serve --http [ADDR]) takes
// the next argument when it is one. It returns argv with such values
// joined (--http=ADDR).
func prepare(root *cobra.Command, argv []string) ([]string, error) {
	c, _, err := root.Find(argv)
	if err != nil || strings.HasPrefix(c.Name(), "__") || c.DisableFlagParsing {
		return argv, nil
	}
	c.InheritedFlags() // merges the persistent flags into c.Flags()
	fs := c.Flags()
	var path []string // the command names in argv, in order
	for p := c; p.HasParent(); p = p.Parent() {
		path = append([]string{p.Name()}, path...)
	}
	out := make([]string, 0, len(argv))
	positional := 0
	for i := 0; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "--":
			return append(out, argv[i:]...), nil
		case a == "-" || !strings.HasPrefix(a, "-"):
			if len(path) > 0 && (a == path[0] || slices.Contains(c.Aliases, a) && len(path) == 1) {
				path = path[1:]
			} else {
				positional++
				if c.Annotations[annArgsEnd] != "" {
					return append(out, argv[i:]...), nil
				}
			}
			out = append(out, a)
			continue
		}
		var f *pflag.Flag
		long, value, hasValue := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if strings.HasPrefix(a, "--") {
			f = fs.Lookup(long)
		} else if len(a) == 2 {
			f = fs.ShorthandLookup(a[1:])
		}
		if f != nil && !hasValue {
			if rename := f.Annotations["luagent_json_object"]; len(rename) > 0 {
				// mcp call --json '{...}': the arguments, as before --args.
				if i+1 < len(argv) && strings.HasPrefix(strings.TrimSpace(argv[i+1]), "{") {
					out = append(out, "--"+rename[0]+"="+argv[i+1])
					i++
					continue
				}
			}
		}
		if f == nil || f.NoOptDefVal != "" && f.Value.Type() == "bool" {
			out = append(out, a)
			continue
		}
		if hasValue {
			if value == "" && f.NoOptDefVal == "" {
				return nil, usagef("%s", needMessage(c, f))
			}
			out = append(out, a)
			continue
		}
		if f.NoOptDefVal != "" { // an optional value: take the next if it is one
			if i+1 < len(argv) && optionalTakes(f, argv[i+1], positional > 0) {
				out = append(out, a+"="+argv[i+1])
				i++
			} else {
				out = append(out, a)
			}
			continue
		}
		if i+1 >= len(argv) || (len(f.Annotations[annRaw]) == 0 && looksLikeOption(argv[i+1])) {
			return nil, usagef("%s", needMessage(c, f))
		}
		out = append(out, a, argv[i+1])
		i++
	}
	return out, nil
}

// optionalTakes says whether an optional-value flag takes next as its value.
func optionalTakes(f *pflag.Flag, next string, haveScript bool) bool {
	if f.Name == "http" {
		return takesAddr(next, haveScript)
	}
	return !strings.HasPrefix(next, "-")
}

// looksLikeOption reports whether a separate value is the next option
// instead ("--trace -v run x.lua" forgot the file): not "-" and not a
// number. --name=VALUE takes any value.
func looksLikeOption(s string) bool {
	if len(s) < 2 || s[0] != '-' {
		return false
	}
	_, err := strconv.ParseFloat(s, 64)
	return err != nil
}

// run runs luagent with argv and returns its exit code.
func run(argv []string, stdin io.Reader, stdout, stderr io.Writer) int {
	code := host.ExitOK
	root, o := newRoot(&code, stdin, stdout, stderr)
	// Help and completion show every command's flags; any other run
	// declares only its command's (serve's cold start builds serve's), and
	// cobra's completion command is built only when asked for.
	all := false
	for _, a := range argv {
		if a == "--" {
			break
		}
		all = all || a == "-h" || a == "--help" || a == "help" || a == "completion" || strings.HasPrefix(a, "__complete")
	}
	root.CompletionOptions.DisableDefaultCmd = !all
	if all {
		// cobra's own completion command, worded as the others are.
		root.InitDefaultCompletionCmd()
		if c, _, err := root.Find([]string{"completion"}); err == nil && c != root {
			c.Short = "a completion script for bash, zsh or fish (luagent completion bash)"
		}
	}
	if c, _, err := root.Find(argv); all || err != nil {
		declareAll(o)
	} else {
		declareFlags(o, c)
		if c.HasSubCommands() { // built just now (mcp's verbs): find again
			if c, _, err = root.Find(argv); err == nil {
				declareFlags(o, c)
			}
		}
	}
	args, err := prepare(root, argv)
	if err == nil {
		root.SetArgs(args)
		err = root.Execute()
	}
	if err != nil {
		// Every error Execute returns is the command line's: the commands'
		// own failures are exit codes. cobra's own errors name no fix.
		msg := err.Error()
		if !errs.Is(err, errs.Invalid) {
			msg += " (luagent --help)"
		}
		fmt.Fprintf(stderr, "luagent: %s\n", visible.Line(msg))
		return host.ExitUsage
	}
	return code
}
