package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/luagent/luagent/luabind/host"
	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/transport"
	"github.com/luagent/luagent/runtime/visible"
)

// The verbs that read and edit the saved catalog ($LUAGENT_HOME/config.json):
// list, add, remove, enable, disable, get (and import, mcp_import.go). None
// of them connects to a server, and none prints an env value.

func catalogPath() string { return catalog.Path(host.Home()) }

// editCatalog runs fn under the catalog's lock and saves what it leaves.
func editCatalog(fn func(*catalog.Config) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return catalog.Update(ctx, catalogPath(), fn)
}

// fail prints err as luagent's one line and returns the failure code.
func fail(stderr io.Writer, err error) int {
	// An error quotes what servers say (their errors, their stderr):
	// control characters show, as everything from outside does.
	fmt.Fprintf(stderr, "luagent: %s\n", visible.Text(strings.ReplaceAll(err.Error(), "\n", " ")))
	return host.ExitError
}

// usageErr prints a usage problem and returns the usage code.
func usageErr(stderr io.Writer, format string, args ...any) int {
	fmt.Fprintf(stderr, "luagent: "+format+"\n", args...)
	return host.ExitUsage
}

// listEntry is one element of `mcp list --json`, exactly these members.
type listEntry struct {
	Name      string   `json:"name"`
	Enabled   bool     `json:"enabled"`
	Transport string   `json:"transport"`
	URL       *string  `json:"url"`
	Command   string   `json:"command"`
	Args      []string `json:"args"`
	Cwd       *string  `json:"cwd"`
	EnvKeys   []string `json:"envKeys"`
}

// newListEntry shows s with the secrets of its URL and args hidden
// (catalog's Masked): list and get are for people and their scripts,
// not for copying a key out.
func newListEntry(s *catalog.Server) listEntry {
	s = s.Masked()
	e := listEntry{Name: s.Name, Enabled: s.Enabled, Transport: s.Transport(), Command: s.Command,
		Args: append([]string{}, s.Args...), EnvKeys: envKeys(s)}
	if s.URL != "" {
		e.URL = &s.URL
	}
	if s.Cwd != "" {
		e.Cwd = &s.Cwd
	}
	return e
}

// envKeys are the entry's variable names, sorted ([] when none: list --json).
func envKeys(s *catalog.Server) []string {
	return append([]string{}, slices.Sorted(maps.Keys(s.Env))...)
}

func writeJSON(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	enc.Encode(v)
}

// mcpList prints the saved servers: a table, or --json.
func mcpList(asJSON bool, stdout, stderr io.Writer) int {
	c, err := catalog.Load(catalogPath())
	if err != nil {
		return fail(stderr, err)
	}
	if asJSON {
		out := make([]listEntry, 0, len(c.Servers))
		for _, s := range c.Servers {
			out = append(out, newListEntry(s))
		}
		writeJSON(stdout, out)
		return host.ExitOK
	}
	if len(c.Servers) == 0 {
		fmt.Fprintf(stdout, "no servers saved in %s; add one: luagent mcp add NAME -- COMMAND [ARGS...]\n", catalogPath())
		return host.ExitOK
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tENABLED\tTRANSPORT\tCOMMAND OR URL")
	for _, s := range c.Servers {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.Name, yesNo(s.Enabled), s.Transport(), s.Shown())
	}
	tw.Flush()
	return host.ExitOK
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// addOptions are mcp add's flags, as the flags' values set them.
type addOptions struct {
	s         catalog.Server
	force     bool
	transport string
}

// mcpAdd saves a new server:
//
//	luagent mcp add NAME --transport http URL [--header K:V]... [--scope S]... [--client-id ID] [--env MCP_ACCESS_TOKEN=V]...
//	luagent mcp add NAME [--env K=V]... [--env-param K=PARAM]... [--env-from K=VAR]... [--cwd DIR] -- COMMAND [ARGS...]
//
// positional are the arguments before --, command those after (haveCommand:
// there was a --).
func mcpAdd(o *addOptions, positional, command []string, haveCommand bool, stdout, stderr io.Writer) int {
	s := &o.s
	force, transport := o.force, o.transport
	if len(positional) == 0 {
		return usageErr(stderr, "mcp add needs a NAME: luagent mcp add NAME -- COMMAND [ARGS...] or luagent mcp add NAME --transport http URL")
	}
	s.Name = positional[0]
	rest := positional[1:]
	switch {
	case transport == "" && len(rest) == 1 && !haveCommand && (strings.HasPrefix(rest[0], "http://") || strings.HasPrefix(rest[0], "https://")):
		transport = "http"
	case transport == "" && haveCommand:
		transport = "stdio"
	}
	switch transport {
	case "http":
		if haveCommand || len(rest) != 1 {
			return usageErr(stderr, "mcp add --transport http takes one URL: luagent mcp add %s --transport http https://example.com/mcp", s.Name)
		}
		s.URL = rest[0]
	case "stdio":
		if len(rest) > 0 {
			return usageErr(stderr, "mcp add: put the command after --: luagent mcp add %s -- %s", s.Name, strings.Join(rest, " "))
		}
		if len(command) == 0 {
			return usageErr(stderr, "mcp add needs the server's command after --: luagent mcp add %s -- npx -y @modelcontextprotocol/server-everything", s.Name)
		}
		s.Command, s.Args = command[0], command[1:]
		if len(s.Args) == 0 {
			s.Args = nil
		}
	case "":
		if len(rest) > 0 {
			return usageErr(stderr, "mcp add: put the command after --: luagent mcp add %s -- %s", s.Name, strings.Join(rest, " "))
		}
		return usageErr(stderr, "mcp add needs a command after -- or --transport http URL: luagent mcp add %s -- COMMAND [ARGS...]", s.Name)
	default:
		return usageErr(stderr, "--transport must be stdio or http, not %q", transport)
	}
	var resolved []string
	if s.Command != "" && s.Cwd == "" {
		// A relative path that exists here is saved absolute: the server
		// is started from whatever folder luagent runs in. (With --cwd the
		// paths are relative to that folder, which does not move.)
		resolved = resolvePaths(s)
	}
	// What the command line gave is checked as the command line: the
	// error names the argument or flag, not config.json's entry.
	if err := s.Validate(); err != nil {
		return usageErr(stderr, "%s", addProblems(s, err))
	}
	if err := editCatalog(func(c *catalog.Config) error { return c.Add(s, force) }); err != nil {
		return fail(stderr, err)
	}
	fmt.Fprintf(stdout, "added %s (%s: %s) to %s\n", s.Name, s.Transport(), s.Shown(), catalogPath())
	if len(resolved) > 0 {
		fmt.Fprintf(stdout, "note: saved %s: relative paths that exist here, made absolute so that the server starts from any folder (with --cwd DIR they stay relative to DIR)\n", strings.Join(resolved, ", "))
	}
	if keys := envKeys(s); len(keys) > 0 {
		fmt.Fprintf(stdout, "env: %s (values not shown)\n", strings.Join(keys, ", "))
	}
	if !s.InheritEnv.IsDefault() {
		fmt.Fprintf(stdout, "inherits: %s\n", inheritShown(s.InheritEnv))
	}
	return host.ExitOK
}

// resolvePaths makes s's command (when it is a path: it has a slash) and
// each argument that names an existing file or folder by a relative path
// absolute, and says which ("FROM as TO").
func resolvePaths(s *catalog.Server) []string {
	var said []string
	abs := func(p string) (string, bool) {
		if p == "" || filepath.IsAbs(p) || strings.HasPrefix(p, "-") || strings.Contains(p, "://") {
			return p, false
		}
		if _, err := os.Stat(p); err != nil {
			return p, false
		}
		a, err := filepath.Abs(p)
		if err != nil {
			return p, false
		}
		said = append(said, visible.Line(p)+" as "+visible.Line(a))
		return a, true
	}
	if strings.ContainsRune(s.Command, filepath.Separator) || strings.ContainsRune(s.Command, '/') {
		s.Command, _ = abs(s.Command)
	}
	for i, a := range s.Args {
		s.Args[i], _ = abs(a)
	}
	return said
}

// addProblems says what is wrong with the server mcp add would save, in
// the command line's terms: NAME, URL, COMMAND and the flags.
func addProblems(s *catalog.Server, err error) string {
	var ps catalog.Problems
	if !errors.As(err, &ps) {
		return err.Error()
	}
	var out []string
	for _, p := range ps {
		field := p.Path
		for _, prefix := range []string{"mcpServers." + s.Name, "mcpServers." + strconv.Quote(s.Name)} {
			if rest, ok := strings.CutPrefix(p.Path, prefix); ok && (rest == "" || rest[0] == '.') {
				field = strings.TrimPrefix(rest, ".")
			}
		}
		msg := p.Msg
		name, sub, _ := strings.Cut(field, ".")
		if i := strings.IndexByte(name, '['); i >= 0 {
			name = name[:i]
		}
		switch {
		case field == "" && strings.HasPrefix(msg, "the name must"):
			out = append(out, fmt.Sprintf("NAME %q: %s", s.Name, strings.Replace(msg, "rename the entry", "pick another name", 1)))
		case field == "":
			out = append(out, msg)
		case field == "url":
			out = append(out, fmt.Sprintf("URL %s: %s", s.Masked().Shown(), msg))
		case field == "command":
			out = append(out, "COMMAND: "+msg)
		case field == name && (name == "args" || name == "cwd" || name == "env" || name == "inheritEnv"):
			out = append(out, fmt.Sprintf("--%s is for a stdio server (a command after --), not an HTTP URL", map[string]string{"args": "arguments after --", "inheritEnv": "inherit-env"}[name]+map[bool]string{true: name}[name == "cwd" || name == "env"]))
		case field == name && (name == "headers" || name == "oauth"):
			out = append(out, "--header, --scope and --client-id are for an HTTP server (--transport http URL), not a command")
		case name == "headers":
			out = append(out, fmt.Sprintf("--header %s: %s", sub, msg))
		case name == "env":
			flag := "--env"
			if k, kind, ok := strings.Cut(sub, "."); ok {
				sub, flag = k, map[string]string{"param": "--env-param", "fromEnv": "--env-from"}[kind]
			}
			out = append(out, fmt.Sprintf("%s %s: %s", flag, sub, msg))
		case name == "inheritEnv":
			out = append(out, "--inherit-env: "+msg)
		case name == "oauth":
			out = append(out, "--scope: "+msg)
		default:
			out = append(out, field+": "+msg)
		}
	}
	return strings.Join(out, "; ")
}

// inheritList reads --inherit-env's NAME,NAME,... ("" is none at all).
func inheritList(v string) []string {
	out := []string{}
	for _, n := range strings.Split(v, ",") {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// inheritShown says which of luagent's variables a server inherits.
func inheritShown(ie catalog.InheritEnv) string {
	switch {
	case ie.IsDefault():
		return "all of luagent's environment but its own keys"
	case ie.Minimal:
		return "minimal (" + strings.Join(transport.MinimalEnv(), ", ") + ")"
	case len(ie.Names) == 0:
		return "nothing (an empty list)"
	}
	return strings.Join(ie.Names, ", ")
}

func notFound(name string) error {
	return errs.Errorf(errs.NotFound, "catalog", "no server named %s in %s (luagent mcp list shows the names)", name, catalogPath())
}

func mcpRemove(name string, stdout, stderr io.Writer) int {
	err := editCatalog(func(c *catalog.Config) error {
		if !c.Remove(name) {
			return notFound(name)
		}
		return nil
	})
	if err != nil {
		return fail(stderr, err)
	}
	fmt.Fprintf(stdout, "removed %s from %s\n", name, catalogPath())
	return host.ExitOK
}

func setEnabled(verb string, on bool, name string, stdout, stderr io.Writer) int {
	was := false
	err := editCatalog(func(c *catalog.Config) error {
		s := c.Server(name)
		if s == nil {
			return notFound(name)
		}
		was, s.Enabled = s.Enabled, on
		return nil
	})
	if err != nil {
		return fail(stderr, err)
	}
	state := map[bool]string{true: "enabled", false: "disabled"}[on]
	if was == on {
		fmt.Fprintf(stdout, "%s was already %s\n", name, state)
	} else {
		fmt.Fprintf(stdout, "%s %s\n", state, name)
	}
	return host.ExitOK
}

// getEntry is `mcp get NAME --json`: the list members and the rest of the
// entry, with env keys only and credential-like header values masked.
type getEntry struct {
	listEntry
	Headers            map[string]string `json:"headers"`
	OAuth              *getOAuth         `json:"oauth"`
	ConnectionID       *string           `json:"connectionId"` // null when unset
	StartupTimeout     float64           `json:"startupTimeoutSeconds"`
	RequestTimeout     float64           `json:"requestTimeoutSeconds"`
	Protocol           string            `json:"protocol"`
	Roots              any               `json:"roots"` // false, true (the working folder) or the folders as written
	Sampling           bool              `json:"sampling"`
	LogLevel           string            `json:"logLevel"`
	MaxConcurrentCalls int               `json:"maxConcurrentCalls"`
	// EnabledTools is null for every tool; DisabledTools is [] for none.
	EnabledTools  []string `json:"enabledTools"`
	DisabledTools []string `json:"disabledTools"`
	// InheritEnv is "minimal", a list of names, or null (all but
	// luagent's own keys).
	InheritEnv any `json:"inheritEnv"`
}

type getOAuth struct {
	ClientID            string   `json:"clientId"`
	ClientSecretSet     bool     `json:"clientSecretSet"`
	ClientIDMetadataURL string   `json:"clientIdMetadataUrl"`
	Scopes              []string `json:"scopes"`
}

// writeGetJSON is `mcp get --json`'s object: g's members (the defaults
// filled in, headers and the client secret as get shows them), then
// every other member the entry has in config.json (fields: the catalog's
// own encoding of the masked entry, catalog.Server.Fields), so a field
// the catalog learns shows here with no change to get.
func writeGetJSON(w io.Writer, g getEntry, fields []byte) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(g); err != nil {
		return err
	}
	ours, err := jsonMembers(b.Bytes())
	if err != nil {
		return err
	}
	theirs, err := jsonMembers(fields)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	out.WriteByte('{')
	seen := map[string]bool{}
	for _, m := range append(ours, theirs...) {
		if seen[m.name] {
			continue
		}
		seen[m.name] = true
		if out.Len() > 1 {
			out.WriteByte(',')
		}
		name, _ := json.Marshal(m.name)
		out.Write(name)
		out.WriteByte(':')
		out.Write(m.val)
	}
	out.WriteByte('}')
	var ind bytes.Buffer
	if err := json.Indent(&ind, out.Bytes(), "", "  "); err != nil {
		return err
	}
	ind.WriteByte('\n')
	_, err = w.Write(ind.Bytes())
	return err
}

type jsonMember struct {
	name string
	val  json.RawMessage
}

// jsonMembers are an object's members in their order.
func jsonMembers(obj []byte) ([]jsonMember, error) {
	d := json.NewDecoder(bytes.NewReader(obj))
	if _, err := d.Token(); err != nil { // {
		return nil, err
	}
	var out []jsonMember
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, jsonMember{t.(string), v})
	}
	return out, nil
}

const masked = catalog.Hidden // as everywhere else an entry is shown

// secretHeader reports whether a header's value is to be masked: its name
// or its value looks like a credential.
func secretHeader(name, value string) bool {
	if catalog.SecretName(name) {
		return true
	}
	v := strings.ToLower(strings.TrimSpace(value))
	return strings.HasPrefix(v, "bearer ") || strings.HasPrefix(v, "basic ") || strings.HasPrefix(v, "token ")
}

func shownHeaders(h map[string]string) map[string]string {
	out := make(map[string]string, len(h))
	for k, v := range h {
		if secretHeader(k, v) {
			v = masked
		}
		out[k] = v
	}
	return out
}

func mcpGet(name string, asJSON bool, stdout, stderr io.Writer) int {
	c, err := catalog.Load(catalogPath())
	if err != nil {
		return fail(stderr, err)
	}
	s := c.Server(name)
	if s == nil {
		return fail(stderr, notFound(name))
	}
	g := getEntry{listEntry: newListEntry(s), Headers: shownHeaders(s.Headers),
		StartupTimeout: orDefault(s.StartupTimeout, catalog.DefaultStartupTimeout).Seconds(),
		RequestTimeout: orDefault(s.RequestTimeout, catalog.DefaultRequestTimeout).Seconds(),
		Protocol:       s.Protocol, Roots: rootsShown(s), Sampling: s.Sampling, LogLevel: s.LogLevel, MaxConcurrentCalls: s.MaxConcurrentCalls,
		EnabledTools: slices.Clone(s.EnabledTools), DisabledTools: append([]string{}, s.DisabledTools...)}
	if g.Protocol == "" {
		g.Protocol = catalog.DefaultProtocol
	}
	switch ie := s.InheritEnv; {
	case ie.Minimal:
		g.InheritEnv = catalog.InheritMinimal
	case ie.IsList():
		g.InheritEnv = append([]string{}, ie.Names...)
	}
	if o := s.OAuth; o != nil {
		g.OAuth = &getOAuth{ClientID: o.ClientID, ClientSecretSet: o.ClientSecret != "", ClientIDMetadataURL: o.ClientIDMetadataURL, Scopes: append([]string{}, o.Scopes...)}
	}
	if id := s.ConnectionID(); id != "" {
		g.ConnectionID = &id
	}
	if asJSON {
		if err := writeGetJSON(stdout, g, s.Masked().Fields()); err != nil {
			return fail(stderr, errs.Wrap(errs.Internal, "mcp get", err))
		}
		return host.ExitOK
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	row := func(k, v string) { fmt.Fprintf(tw, "%s:\t%s\n", k, visible.Line(v)) }
	row("name", s.Name)
	row("enabled", yesNo(s.Enabled))
	row("transport", s.Transport())
	if s.URL != "" {
		row("url", s.Shown())
		for _, k := range slices.Sorted(maps.Keys(g.Headers)) {
			row("header", k+": "+g.Headers[k])
		}
		if keys := envKeys(s); len(keys) > 0 {
			row("env", strings.Join(keys, ", ")+" (values not shown)")
		}
		if o := g.OAuth; o != nil {
			if o.ClientID != "" {
				row("oauth client id", o.ClientID)
			}
			if o.ClientSecretSet {
				row("oauth client secret", "set (not shown)")
			}
			if o.ClientIDMetadataURL != "" {
				row("oauth client metadata", o.ClientIDMetadataURL)
			}
			if len(o.Scopes) > 0 {
				row("oauth scopes", strings.Join(o.Scopes, " "))
			}
		}
		if g.ConnectionID != nil {
			row("connection id", *g.ConnectionID+" (credentials bound to it)")
		}
	} else {
		row("command", s.Shown())
		cwd := s.Cwd
		if cwd == "" {
			cwd = "(luagent's working directory)"
		}
		row("cwd", cwd)
		if keys := envKeys(s); len(keys) > 0 {
			row("env", strings.Join(keys, ", ")+" (values not shown)")
		}
		row("inherits", inheritShown(s.InheritEnv))
	}
	row("startup timeout", fmt.Sprintf("%gs", g.StartupTimeout))
	row("request timeout", fmt.Sprintf("%gs", g.RequestTimeout))
	row("protocol", g.Protocol)
	switch r := g.Roots.(type) {
	case []string:
		row("roots", strings.Join(r, ", "))
	case bool:
		row("roots", map[bool]string{true: "yes (the working folder)", false: "no"}[r])
	}
	row("sampling", yesNo(s.Sampling))
	if s.LogLevel != "" {
		row("log level", s.LogLevel)
	}
	if s.MaxConcurrentCalls > 0 {
		row("max concurrent calls", strconv.Itoa(s.MaxConcurrentCalls))
	}
	switch {
	case s.EnabledTools == nil:
	case len(s.EnabledTools) == 0:
		row("enabled tools", "none (enabledTools is empty)")
	default:
		row("enabled tools", strings.Join(s.EnabledTools, ", "))
	}
	if len(s.DisabledTools) > 0 {
		row("disabled tools", strings.Join(s.DisabledTools, ", "))
	}
	tw.Flush()
	return host.ExitOK
}

// rootsShown is an entry's roots for mcp get --json: false, true (the
// working folder) or its folders as written.
func rootsShown(s *catalog.Server) any {
	if s.Roots && s.RootDirs != nil {
		return append([]string{}, s.RootDirs...)
	}
	return s.Roots
}

func orDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}
