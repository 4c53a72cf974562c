package catalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/tailscale/hujson"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/privfile"
)

// The hosts whose configurations Import reads.
const (
	FromClaudeDesktop = "claude-desktop" // claude_desktop_config.json: mcpServers
	FromClaudeCode    = "claude-code"    // .mcp.json, ~/.claude.json: mcpServers, projects.PATH.mcpServers
	FromCursor        = "cursor"         // ~/.cursor/mcp.json, .cursor/mcp.json: mcpServers
	FromVSCode        = "vscode"         // .vscode/mcp.json, the user's mcp.json or settings.json: servers, inputs
	FromCodex         = "codex"          // ~/.codex/config.toml: [mcp_servers.NAME]
	FromGemini        = "gemini"         // .gemini/settings.json, ~/.gemini/settings.json: mcpServers
)

// ImportFormats are the formats Import knows, in the order `luagent mcp
// import` tries their default locations.
var ImportFormats = []string{FromClaudeDesktop, FromClaudeCode, FromCursor, FromVSCode, FromCodex, FromGemini}

// Import converts another MCP host's configuration (format is one of
// ImportFormats) into catalog entries, in the file's order. What luagent
// cannot express is not dropped silently: each such thing gives a note
// ("NAME: ..."), and so does a renamed entry (names that break the name
// rule are slugged) or a skipped one. References to variables become env
// references where the whole value is one (VS Code's ${input:ID} a
// {"param": ID}, ${env:X} and Claude Code's ${X} a {"fromEnv": X}).
// The result is not added to any catalog; every entry returned is valid.
func Import(format string, data []byte) ([]*Server, []string, error) {
	return importData(format, data, "")
}

// ImportFile reads path and imports it as Import does; the file's place
// gives ${workspaceFolder} (the folder holding .vscode/ or .cursor/) and
// the working folder of a Claude Code project's stdio servers.
func ImportFile(format, path string) ([]*Server, []string, error) {
	data, err := privfile.ReadLimited(path, maxFile)
	if err != nil {
		return nil, nil, errs.Errorf(errs.Invalid, op, "cannot read %s: %v; check the path and its permissions", path, privfile.PathErr(err))
	}
	abs, _ := filepath.Abs(path)
	return importData(format, data, abs)
}

// DefaultImportPaths returns the places format's host keeps its servers,
// the project's first (relative to the working directory), then the
// user's.
func DefaultImportPaths(format string) ([]string, error) {
	home, _ := os.UserHomeDir()
	conf, err := os.UserConfigDir() // ~/Library/Application Support, %APPDATA%, $XDG_CONFIG_HOME or ~/.config
	if err != nil {
		conf = filepath.Join(home, ".config")
	}
	switch format {
	case FromClaudeDesktop:
		return []string{filepath.Join(conf, "Claude", "claude_desktop_config.json")}, nil
	case FromClaudeCode:
		return []string{".mcp.json", filepath.Join(home, ".claude.json")}, nil
	case FromCursor:
		return []string{filepath.Join(".cursor", "mcp.json"), filepath.Join(home, ".cursor", "mcp.json")}, nil
	case FromVSCode:
		user := "Code"
		if runtime.GOOS == "linux" && os.Getenv("VSCODE_PORTABLE") != "" {
			user = filepath.Join(os.Getenv("VSCODE_PORTABLE"), "user-data")
		}
		return []string{filepath.Join(".vscode", "mcp.json"), filepath.Join(conf, user, "User", "mcp.json"),
			filepath.Join(conf, user, "User", "settings.json")}, nil
	case FromCodex:
		dir := os.Getenv("CODEX_HOME")
		if dir == "" {
			dir = filepath.Join(home, ".codex")
		}
		return []string{filepath.Join(dir, "config.toml")}, nil
	case FromGemini:
		return []string{filepath.Join(".gemini", "settings.json"), filepath.Join(home, ".gemini", "settings.json")}, nil
	}
	return nil, unknownFormat(format)
}

// DefaultImportPath returns the first of DefaultImportPaths that exists;
// none is an error of kind not_found naming them.
func DefaultImportPath(format string) (string, error) {
	paths, err := DefaultImportPaths(format)
	if err != nil {
		return "", err
	}
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, nil
		}
	}
	return "", errs.Errorf(errs.NotFound, op, "no %s configuration found (looked for %s); name the file: luagent mcp import --from %s FILE", format, strings.Join(paths, ", "), format)
}

func unknownFormat(format string) error {
	return errs.Errorf(errs.Invalid, op, "unknown import format %q; use one of %s", format, strings.Join(ImportFormats, ", "))
}

// importer holds one import's state.
type importer struct {
	format string
	file   string // the file's absolute path, "" when unknown
	notes  []string
	out    []*Server
	names  map[string]bool
	inputs map[string]string // VS Code inputs: id -> description
	fixes  []fix             // notes that end in a command (finishFixes)
}

func importData(format string, data []byte, file string) ([]*Server, []string, error) {
	im := &importer{format: format, file: file, names: map[string]bool{}, inputs: map[string]string{}}
	switch format {
	case FromCodex:
		if err := im.codex(data); err != nil {
			return nil, nil, err
		}
	case FromClaudeDesktop, FromClaudeCode, FromCursor, FromVSCode, FromGemini:
		std, err := hujson.Standardize(append([]byte(nil), data...)) // VS Code's files are JSON with comments
		if err != nil || !json.Valid(std) {
			return nil, nil, errs.Errorf(errs.Invalid, op, "the %s configuration is not valid JSON (%v); check the file", format, err)
		}
		top, ok := objectMembers(std)
		if !ok {
			return nil, nil, errs.Errorf(errs.Invalid, op, "the %s configuration is not a JSON object", format)
		}
		im.json(top)
	default:
		return nil, nil, unknownFormat(format)
	}
	im.finishFixes()
	if len(im.out) == 0 && len(im.notes) == 0 {
		im.notes = append(im.notes, "no servers in this "+format+" configuration")
	}
	return im.out, im.notes, nil
}

func (im *importer) note(name, format string, args ...any) {
	im.notes = append(im.notes, name+": "+fmt.Sprintf(format, args...))
}

// noteFix notes what s lacks and, once the import is done, the whole
// command that adds it (finishFixes): the entry's other fields are not
// all known yet.
func (im *importer) noteFix(s *Server, extra []string, format string, args ...any) {
	im.note(s.Name, format, args...)
	im.fixes = append(im.fixes, fix{len(im.notes) - 1, s, extra})
}

// fix is a note that ends in the command adding what it names.
type fix struct {
	note  int
	s     *Server
	extra []string
}

// finishFixes ends each fix's note with its command: luagent mcp add
// --force with the imported entry in full, so that it runs as printed.
func (im *importer) finishFixes() {
	for _, f := range im.fixes {
		switch cmd := f.s.AddCommand(f.extra...); {
		case !slices.Contains(im.out, f.s):
			im.notes[f.note] += " once the entry is fixed (it was skipped)"
		case strings.Contains(cmd, "..."):
			im.notes[f.note] += ": " + cmd + " (fill in each ...)"
		default:
			im.notes[f.note] += ": " + cmd
		}
	}
}

func (im *importer) json(top []member) {
	get := func(ms []member, name string) json.RawMessage {
		for _, m := range ms {
			if m.name == name {
				return m.val
			}
		}
		return nil
	}
	switch im.format {
	case FromVSCode:
		servers, inputs := get(top, "servers"), get(top, "inputs")
		if servers == nil { // settings.json: "mcp": {"servers": ..., "inputs": ...}
			if mcp, ok := objectMembers(get(top, "mcp")); ok {
				servers, inputs = get(mcp, "servers"), get(mcp, "inputs")
			}
		}
		var ins []struct{ ID, Description string }
		if inputs != nil && json.Unmarshal(inputs, &ins) == nil {
			for _, in := range ins {
				im.inputs[in.ID] = in.Description
			}
		}
		im.entries(servers, "")
	case FromClaudeCode:
		cwd := ""
		if im.file != "" && filepath.Base(im.file) == ".mcp.json" {
			cwd = filepath.Dir(im.file) // a project's .mcp.json: its servers start in the project
		}
		im.entries(get(top, "mcpServers"), cwd)
		if projects, ok := objectMembers(get(top, "projects")); ok {
			for _, p := range projects {
				if ms, ok := objectMembers(p.val); ok {
					im.entries(get(ms, "mcpServers"), p.name)
				}
			}
		}
	default:
		im.entries(get(top, "mcpServers"), "")
	}
}

// entries converts an mcpServers/servers object; project is the folder of
// a Claude Code project ("" for none).
func (im *importer) entries(raw json.RawMessage, project string) {
	ms, ok := objectMembers(raw)
	if !ok {
		return
	}
	for _, m := range ms {
		var e map[string]any
		if json.Unmarshal(m.val, &e) != nil {
			im.note(m.name, "not an object; skipped")
			continue
		}
		im.add(m.name, e, project)
	}
}

// add converts one JSON entry.
func (im *importer) add(orig string, e map[string]any, project string) {
	name := im.name(orig, project)
	if name == "" {
		return
	}
	s := &Server{Name: name, Enabled: true}
	keys := make([]string, 0, len(e))
	for k := range e {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := e[k]
		if im.format == FromGemini && im.gemini(s, k, v) {
			continue
		}
		switch k {
		case "type", "transport", "transportType":
			switch t, _ := v.(string); strings.ToLower(t) {
			case "stdio", "local", "":
			case "http", "streamable-http", "streamablehttp", "streamable_http":
			case "sse":
				im.note(name, "transport sse: luagent connects to the url with Streamable HTTP and falls back to the legacy HTTP+SSE transport by itself")
			default:
				im.note(name, "unknown transport %q; imported by its command or url", t)
			}
		case "command":
			s.Command = im.text(name, "command", asString(v))
		case "args":
			for i, a := range asStrings(v) {
				s.Args = append(s.Args, im.text(name, fmt.Sprintf("args[%d]", i), a))
			}
		case "cwd":
			s.Cwd = im.text(name, "cwd", asString(v))
		case "env":
			for _, ek := range sortedKeys(asMap(v)) {
				im.env(s, ek, asString(asMap(v)[ek]))
			}
		case "url", "serverUrl":
			s.URL = im.text(name, "url", asString(v))
		case "headers":
			for _, hk := range sortedKeys(asMap(v)) {
				im.header(s, hk, asString(asMap(v)[hk]))
			}
		case "disabled":
			if b, _ := v.(bool); b {
				s.Enabled = false
			}
		case "enabled":
			if b, ok := v.(bool); ok && !b {
				s.Enabled = false
			}
		case "envFile":
			im.noteFix(s, []string{"--env", "NAME=VALUE"}, "envFile %s is not read by luagent; add its variables (one --env each)", asString(v))
		default:
			im.note(name, "%s is not a luagent setting; left out", k)
		}
	}
	if s.Command != "" && s.Cwd == "" && project != "" {
		s.Cwd = project
	}
	if s.Command != "" && im.format == FromClaudeDesktop {
		// Claude Desktop starts servers with the MCP TypeScript SDK, which
		// passes only its default list (getDefaultEnvironment) and env.
		s.InheritEnv = InheritEnv{Minimal: true}
	}
	im.keep(s)
}

// gemini reads the members of a Gemini CLI entry that mean something else
// there, or only there, and reports whether k was one.
func (im *importer) gemini(s *Server, k string, v any) bool {
	switch k {
	case "httpUrl": // Streamable HTTP
		s.URL = im.text(s.Name, "httpUrl", asString(v))
	case "url": // Gemini's url is an SSE endpoint
		s.URL = im.text(s.Name, "url", asString(v))
		im.note(s.Name, "url is Gemini's SSE endpoint: luagent connects with Streamable HTTP and falls back to the legacy HTTP+SSE transport by itself")
	case "timeout": // milliseconds of a request
		if d, ok := codexSeconds(v, true); ok {
			s.RequestTimeout = d
		} else {
			im.note(s.Name, "timeout is not a number of milliseconds luagent takes (above 0, at most a day); left out")
		}
	case "includeTools":
		s.EnabledTools = exactNames(v)
	case "excludeTools":
		s.DisabledTools = exactNames(v)
	default:
		return false
	}
	return true
}

// name returns the catalog name for a host's entry name: slugged when it
// breaks the name rule, made unique; "" to skip.
func (im *importer) name(orig, project string) string {
	name := orig
	if !nameRE.MatchString(name) {
		name = strings.Trim(badNameChars().ReplaceAllString(name, "-"), "-")
		if len(name) > 64 {
			name = name[:64]
		}
		if name == "" {
			name = "server"
		}
	}
	if im.names[name] {
		where := ""
		if project != "" {
			where = " (project " + project + ")"
		}
		im.note(orig, "another server of this configuration is named %s already; skipped%s", name, where)
		return ""
	}
	if name != orig {
		im.note(orig, "renamed %s (names are letters, digits, _ and -, up to 64)", name)
	}
	im.names[name] = true
	return name
}

var badNameChars = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9_-]+`) })

// keep adds s when it is a valid entry, else notes why not.
func (im *importer) keep(s *Server) {
	if len(s.Args) == 0 {
		s.Args = nil
	}
	if err := s.Validate(); err != nil {
		msg := err.Error()
		var ps Problems
		if errors.As(err, &ps) {
			msg = ps.Error()
		}
		im.note(s.Name, "skipped: %s", msg)
		delete(im.names, s.Name)
		return
	}
	im.out = append(im.out, s)
}

// A reference inside a host's value: ${NAME}, ${NAME:-default},
// ${env:NAME}, ${input:ID}, ${workspaceFolder}, ${userHome}, ...
var refRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{([^}]*)\}`) })

// ref is what one ${...} means in the host's syntax.
type ref struct {
	fromEnv, param, literal string
	known                   bool // literal holds its value
	note                    string
}

func (im *importer) ref(inner string) ref {
	home, _ := os.UserHomeDir()
	kind, arg, hasColon := strings.Cut(inner, ":")
	switch {
	case kind == "env" && hasColon && (im.format == FromVSCode || im.format == FromCursor):
		return ref{fromEnv: arg}
	case kind == "input" && hasColon && im.format == FromVSCode:
		return ref{param: arg}
	case inner == "userHome" && home != "":
		return ref{literal: home, known: true}
	case inner == "workspaceFolder" || inner == "workspaceRoot":
		if ws := im.workspace(); ws != "" {
			return ref{literal: ws, known: true}
		}
		return ref{note: "${" + inner + "} has no value outside the editor"}
	case inner == "pathSeparator" || inner == "/":
		return ref{literal: string(filepath.Separator), known: true}
	case (im.format == FromClaudeCode || im.format == FromGemini) && envNameRE().MatchString(kind) && !hasColon:
		return ref{fromEnv: kind}
	case im.format == FromClaudeCode && envNameRE().MatchString(kind) && strings.HasPrefix(arg, "-"):
		return ref{fromEnv: kind, note: fmt.Sprintf("the default of ${%s} (%s) is not kept: luagent needs %s set", inner, strings.TrimPrefix(arg, "-"), kind)}
	}
	return ref{note: "${" + inner + "} is not a reference luagent knows"}
}

// workspace is the folder ${workspaceFolder} names: the one holding
// .vscode/ or .cursor/, when the file is known.
func (im *importer) workspace() string {
	if im.file == "" {
		return ""
	}
	dir := filepath.Dir(im.file)
	ws := filepath.Dir(dir)
	if home, _ := os.UserHomeDir(); home != "" && ws == filepath.Clean(home) {
		return "" // ~/.cursor/mcp.json is the user's, of no workspace
	}
	if b := filepath.Base(dir); b == ".vscode" || b == ".cursor" {
		return ws
	}
	return ""
}

// expand substitutes the references with a known value and returns the
// others (${...} as written), with what luagent says of each.
func (im *importer) expand(s string) (string, []string, []string) {
	var left, why []string
	out := refRE().ReplaceAllStringFunc(s, func(m string) string {
		r := im.ref(m[2 : len(m)-1])
		if r.known {
			return r.literal
		}
		note := r.note
		if r.fromEnv != "" || r.param != "" {
			note = "" // a reference luagent takes only as a whole env value
		}
		left, why = append(left, m), append(why, note)
		return m
	})
	return out, left, why
}

// text expands a command, an argument, a cwd or a url, and notes the
// references luagent does not expand there.
func (im *importer) text(name, field, s string) string {
	out, left, why := im.expand(s)
	for i, m := range left {
		if why[i] != "" {
			im.note(name, "%s: %s; kept as written, edit it by hand", field, why[i])
		} else {
			im.note(name, "%s holds %s, which luagent does not expand there (only a whole env value can be a reference); kept as written", field, m)
		}
	}
	return out
}

// env adds the variable k: a literal, or a reference when the whole value
// is one.
func (im *importer) env(s *Server, k, v string) {
	if s.Env == nil {
		s.Env = map[string]EnvValue{}
	}
	if name, ok := strings.CutPrefix(v, "$"); ok && im.format == FromGemini && envNameRE().MatchString(name) {
		s.Env[k] = EnvValue{FromEnv: name} // Gemini CLI expands $VAR too
		return
	}
	if m := refRE().FindStringSubmatchIndex(v); m != nil && m[0] == 0 && m[1] == len(v) {
		r := im.ref(v[2 : len(v)-1])
		if r.note != "" {
			im.note(s.Name, "env %s: %s", k, r.note)
		}
		switch {
		case r.known:
			s.Env[k] = EnvValue{Value: r.literal}
		case r.param != "":
			s.Env[k] = EnvValue{Param: r.param}
			what := ""
			if d := im.inputs[r.param]; d != "" {
				what = " (" + d + ")"
			}
			im.note(s.Name, "env %s comes from the parameter %s%s: pass --set %s=VALUE or --params-file FILE", k, r.param, what, r.param)
		case r.fromEnv != "":
			s.Env[k] = EnvValue{FromEnv: r.fromEnv}
		default:
			delete(s.Env, k)
			im.noteFix(s, []string{"--env", k + "=..."}, "env %s left out; set it", k)
		}
		return
	}
	// Text around references: known ones are filled in; any other cannot
	// be part of a luagent env value.
	v, left, _ := im.expand(v)
	if len(left) > 0 {
		delete(s.Env, k)
		im.noteFix(s, []string{"--env", k + "=..."}, "env %s mixes text with a reference (%s); luagent env values are a literal or one whole reference, so it was left out; set it", k, left[0])
		return
	}
	s.Env[k] = EnvValue{Value: v}
}

// header adds a header; one that holds a reference cannot be expressed
// (headers are literal) and is left out with a note.
func (im *importer) header(s *Server, k, v string) {
	if tok, ok := bearerRef(k, v); ok {
		im.env(s, "MCP_ACCESS_TOKEN", tok) // the token the seed's env gives
		return
	}
	if refRE().MatchString(v) {
		im.noteFix(s, []string{"-H", k + ": ..."}, "header %s uses %s; luagent headers are literal, so it was left out; use OAuth (luagent mcp login URL) or add it", k, refRE().FindString(v))
		return
	}
	if s.Headers == nil {
		s.Headers = map[string]string{}
	}
	s.Headers[k] = v
}

// bearerRef is the reference in "Authorization: Bearer ${...}" (the
// whole token one reference), which an HTTP entry's env.MCP_ACCESS_TOKEN
// expresses.
func bearerRef(k, v string) (string, bool) {
	if !strings.EqualFold(k, "Authorization") || len(v) < 7 || !strings.EqualFold(v[:7], "Bearer ") {
		return "", false
	}
	tok := strings.TrimSpace(v[7:])
	m := refRE().FindStringIndex(tok)
	return tok, m != nil && m[0] == 0 && m[1] == len(tok)
}

func asString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func asStrings(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, x := range l {
		out = append(out, asString(x))
	}
	return out
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// codex converts ~/.codex/config.toml's [mcp_servers.NAME] tables.
func (im *importer) codex(data []byte) error {
	var top map[string]any
	md, err := toml.Decode(string(data), &top)
	if err != nil {
		return errs.Errorf(errs.Invalid, op, "the codex configuration is not valid TOML (%s); check the file", oneLine(err.Error()))
	}
	servers := asMap(top["mcp_servers"])
	var order []string
	seen := map[string]bool{}
	for _, k := range md.Keys() {
		if len(k) >= 2 && k[0] == "mcp_servers" && !seen[k[1]] {
			if _, ok := servers[k[1]]; ok {
				order, seen[k[1]] = append(order, k[1]), true
			}
		}
	}
	for _, orig := range order {
		e := asMap(servers[orig])
		if e == nil {
			im.note(orig, "not a table; skipped")
			continue
		}
		name := im.name(orig, "")
		if name == "" {
			continue
		}
		s := &Server{Name: name, Enabled: true}
		var envVars []string
		for _, k := range sortedKeys(e) {
			v := e[k]
			switch k {
			case "command":
				s.Command = asString(v)
			case "args":
				s.Args = asStrings(v)
			case "cwd":
				s.Cwd = asString(v)
			case "env":
				for _, ek := range sortedKeys(asMap(v)) {
					if s.Env == nil {
						s.Env = map[string]EnvValue{}
					}
					s.Env[ek] = EnvValue{Value: asString(asMap(v)[ek])}
				}
			case "env_vars":
				envVars = im.codexEnvVars(name, v)
			case "url":
				s.URL = asString(v)
			case "http_headers":
				for _, hk := range sortedKeys(asMap(v)) {
					if s.Headers == nil {
						s.Headers = map[string]string{}
					}
					s.Headers[hk] = asString(asMap(v)[hk])
				}
			case "env_http_headers":
				for _, hk := range sortedKeys(asMap(v)) {
					im.noteFix(s, []string{"-H", hk + ": ..."}, "header %s comes from $%s; luagent headers are literal, so it was left out; use OAuth (luagent mcp login URL) or add it", hk, asString(asMap(v)[hk]))
				}
			case "bearer_token_env_var":
				if name := asString(v); envNameRE().MatchString(name) {
					if s.Env == nil {
						s.Env = map[string]EnvValue{}
					}
					s.Env["MCP_ACCESS_TOKEN"] = EnvValue{FromEnv: name}
				} else {
					im.noteFix(s, []string{"--env", "MCP_ACCESS_TOKEN=..."}, "bearer_token_env_var %s is not a variable name; the token was left out; set it", name)
				}
			case "startup_timeout_sec", "startup_timeout_ms", "tool_timeout_sec":
				d, ok := codexSeconds(v, k == "startup_timeout_ms")
				if !ok {
					im.note(name, "%s is not a number of seconds luagent takes (above 0, at most 86400); left out", k)
				} else if k == "tool_timeout_sec" {
					s.RequestTimeout = d
				} else {
					s.StartupTimeout = d
				}
			case "enabled":
				if b, ok := v.(bool); ok && !b {
					s.Enabled = false
				}
			case "scopes":
				s.OAuth = orOAuth(s.OAuth)
				s.OAuth.Scopes = asStrings(v)
			case "oauth":
				if id := asString(asMap(v)["client_id"]); id != "" {
					s.OAuth = orOAuth(s.OAuth)
					s.OAuth.ClientID = id
				}
			case "enabled_tools":
				s.EnabledTools = exactNames(v)
			case "disabled_tools":
				s.DisabledTools = exactNames(v)
			default:
				im.note(name, "%s is not a luagent setting; left out", k)
			}
		}
		if s.Command != "" {
			// Codex starts a stdio server with its short list of variables
			// and those env_vars names, then env (rmcp-client's
			// create_env_for_mcp_server).
			s.InheritEnv = InheritEnv{List: true, Names: codexEnv(envVars)}
		}
		im.keep(s)
	}
	return nil
}

// codexDefaultEnv is what Codex passes every stdio server
// (codex-rs/rmcp-client DEFAULT_ENV_VARS; on Windows its core list).
func codexDefaultEnv() []string {
	if runtime.GOOS == "windows" {
		return []string{"PATH", "PATHEXT", "SHELL", "COMSPEC", "SYSTEMROOT", "SYSTEMDRIVE", "USERNAME", "USERDOMAIN",
			"USERPROFILE", "HOMEDRIVE", "HOMEPATH", "PROGRAMFILES", "PROGRAMFILES(X86)", "PROGRAMW6432", "PROGRAMDATA",
			"LOCALAPPDATA", "APPDATA", "TEMP", "TMP", "TMPDIR", "POWERSHELL", "PWSH"}
	}
	return []string{"HOME", "LOGNAME", "PATH", "SHELL", "USER", "__CF_USER_TEXT_ENCODING", "LANG", "LC_ALL", "TERM", "TMPDIR", "TZ"}
}

// codexEnv is Codex's list with the entry's env_vars after it.
func codexEnv(vars []string) []string {
	out := codexDefaultEnv()
	for _, v := range vars {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// codexEnvVars reads env_vars: names, or {name = ..., source = ...}
// tables; a "remote" source (a variable of another machine) has no
// meaning here.
func (im *importer) codexEnvVars(name string, v any) []string {
	l, _ := v.([]any)
	var out []string
	for _, x := range l {
		switch x := x.(type) {
		case string:
			out = append(out, x)
		case map[string]any:
			n := asString(x["name"])
			if src := asString(x["source"]); src == "remote" {
				im.note(name, "env_vars %s comes from a remote machine; luagent starts servers here, so it was left out", n)
				continue
			}
			if n != "" {
				out = append(out, n)
			}
		}
	}
	return out
}

// exactNames is a host's list of exact tool names as enabledTools or
// disabledTools patterns: glob characters escaped, so each matches only
// itself. A list stays a list when empty (an empty enabled list enables
// no tool).
func exactNames(v any) []string {
	out := []string{}
	for _, n := range asStrings(v) {
		out = append(out, globEscaper.Replace(n))
	}
	return out
}

var globEscaper = strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`)

func orOAuth(o *OAuth) *OAuth {
	if o == nil {
		return &OAuth{}
	}
	return o
}

func codexSeconds(v any, ms bool) (time.Duration, bool) {
	var f float64
	switch x := v.(type) {
	case int64:
		f = float64(x)
	case float64:
		f = x
	default:
		return 0, false
	}
	if ms {
		f /= 1000
	}
	if !(f > 0) || f > maxTimeout.Seconds() || math.IsInf(f, 0) {
		return 0, false
	}
	return time.Duration(math.Round(f * float64(time.Second))), true
}

func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
