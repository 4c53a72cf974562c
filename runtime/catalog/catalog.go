// Package catalog is the saved server catalog: $LUAGENT_HOME/config.json
// (default ~/.luagent/config.json), the MCP servers a user keeps once and
// every luagent command can use. It reads, validates, edits and writes that
// file, resolves env references, and imports other hosts' configurations.
// It knows nothing of connections: runtime/hub turns entries into live
// clients.
//
//	{ "version": 1, "mcpInitStrategy": "auto",
//	  "mcpServers": {
//	    "files": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."] },
//	    "remote": { "url": "https://example.com/mcp", "oauth": { "scopes": ["read"] } } } }
//
// Fields the catalog does not know, and the managed fields other tools keep
// there (connectionId, connectionCredentials, connectionGeneration), survive
// every edit with their values unchanged.
package catalog

import (
	"encoding/json"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/hooks"
)

// Version is the file format this package reads and writes. A file with a
// newer version is refused, never rewritten.
const Version = 1

// Init strategies (mcpInitStrategy).
const (
	// InitAuto: interactive sessions start servers progressively, one-shot
	// commands wait for them. The default.
	InitAuto = "auto"
	// InitProgressive: start in the background, use tools as they arrive.
	InitProgressive = "progressive"
	// InitWait: wait for every enabled server before going on.
	InitWait = "wait"
)

// Tool search modes (toolSearch).
const (
	ToolSearchAuto   = "auto"   // defer above toolSearchThreshold tools (the default)
	ToolSearchAlways = "always" // defer whatever their number
	ToolSearchNever  = "never"  // never defer
)

// DefaultToolSearchThreshold is toolSearchThreshold left out: in auto
// mode, more tools than this are deferred behind mcp_search_tools.
const DefaultToolSearchThreshold = 40

// ToolSearchSettings returns toolSearch and toolSearchThreshold with their
// defaults applied.
func (c *Config) ToolSearchSettings() (mode string, threshold int) {
	mode, threshold = c.ToolSearch, c.ToolSearchThreshold
	if mode == "" {
		mode = ToolSearchAuto
	}
	if threshold <= 0 {
		threshold = DefaultToolSearchThreshold
	}
	return mode, threshold
}

// ToolAllowed reports whether the entry's enabledTools and disabledTools
// let the tool the server names name through.
func (s *Server) ToolAllowed(name string) bool {
	if s.EnabledTools != nil && !matchAny(s.EnabledTools, name) {
		return false
	}
	return !matchAny(s.DisabledTools, name)
}

// validGlob reports whether path.Match takes g (it checks the whole
// pattern even when the name does not match).
func validGlob(g string) bool {
	_, err := path.Match(g, "")
	return err == nil
}

func matchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// The defaults of an entry's optional fields, in one place.
const (
	DefaultStartupTimeout = 60 * time.Second // startupTimeoutSeconds
	DefaultRequestTimeout = 60 * time.Second // requestTimeoutSeconds
	DefaultProtocol       = "auto"           // protocol: auto | legacy | modern
)

// Config is the whole file.
type Config struct {
	// Version is the file's format version (Version when written).
	Version int
	// InitStrategy is mcpInitStrategy: InitAuto, InitProgressive or InitWait.
	InitStrategy string
	// Servers are the mcpServers entries, in the file's order.
	Servers []*Server
	// DefaultModel is "model": the name of an entry of Models, or a spec
	// ("openai:gpt-4.1-mini"), used when no --model or LUAGENT_MODEL is
	// given ("": none). Models are the "models" entries, in the file's
	// order (see Model, Resolve).
	DefaultModel string
	Models       []*Model
	// FallbackModels is "fallbackModels": the models (names of Models
	// entries, or specs) that answer, in order, a request the model
	// could not (its retries spent, its endpoint down, or the context
	// too long for it). Kept as the file has it when written.
	FallbackModels []string
	// ToolSearch is "toolSearch": whether agents defer the MCP tools
	// behind mcp_search_tools, ToolSearchAuto (more than
	// ToolSearchThreshold tools offered; "" means auto),
	// ToolSearchAlways or ToolSearchNever. ToolSearchThreshold is
	// "toolSearchThreshold" (0: DefaultToolSearchThreshold). See
	// ToolSearchSettings.
	ToolSearch          string
	ToolSearchThreshold int
	// Permissions is "permissions": the permission rules (nil: none).
	Permissions *Permissions
	// MemoryFiles is "memoryFiles": file names project memory reads
	// beside AGENTS.md (runtime/memory). Notifications is
	// "notifications": NotifyAuto ("" too), NotifyBell, NotifyOSC9 or
	// NotifyOff (runtime/notify).
	MemoryFiles   []string
	Notifications string
	// Hooks is "hooks": the lifecycle hooks in Claude Code's format
	// (runtime/hooks; hooks.go), each group's Source "" (HooksFrom
	// names the file).
	Hooks        hooks.Config
	hookProblems []hooks.Problem

	extra members // unknown top-level members, kept as written
	read  *Config // the fields as parsed, to write unchanged ones back as read
	raw   map[string]json.RawMessage
}

// Server is one entry of mcpServers: a stdio server (Command) or an HTTP
// one (URL), never both.
type Server struct {
	// Name is the entry's key: ^[A-Za-z0-9_-]{1,64}$.
	Name string
	// Enabled is false for an entry kept but not started (default true).
	Enabled bool

	// Command, Args, Cwd and Env start a stdio server. No shell is
	// involved: Args reach the program exactly. Cwd "" is the working
	// directory of luagent.
	Command string
	Args    []string
	Cwd     string
	Env     map[string]EnvValue
	// InheritEnv is which of luagent's own environment variables the
	// server inherits (Env is added on top); the zero value, the member
	// left out, is all of them but luagent's own credentials.
	InheritEnv InheritEnv

	// URL is a Streamable HTTP endpoint; Headers are sent with every
	// request; OAuth configures authorization when the server asks for it
	// (Env may give its token instead: HTTPEnv).
	URL     string
	Headers map[string]string
	OAuth   *OAuth

	// StartupTimeout bounds starting and negotiating (startupTimeoutSeconds);
	// RequestTimeout bounds each request (requestTimeoutSeconds). Zero means
	// the default.
	StartupTimeout time.Duration
	RequestTimeout time.Duration
	// Protocol is "auto", "legacy" (2025-11-25) or "modern" (2026-07-28);
	// "" means auto.
	Protocol string
	// Roots and Sampling let the server ask for the client's roots and for
	// model samples; both off unless the entry says so. The roots are
	// RootDirs ("roots": ["~/src", "docs"]: relative folders are the
	// working folder's, ~ the home folder), or the working folder when
	// RootDirs is nil ("roots": true); see RootFolders.
	Roots    bool
	RootDirs []string
	Sampling bool
	// LogLevel asks the server for log messages at this level and above
	// ("" asks for none).
	LogLevel string
	// Startup is "eager" (started with the hub, the default; "" means it)
	// or "lazy": not started until one of its tools is called, its tools
	// offered from the cache of its last start meanwhile (a lazy server
	// with no cache yet is started to learn them).
	Startup string
	// MaxConcurrentCalls bounds the calls in flight to this server; more
	// wait (0: no bound).
	MaxConcurrentCalls int
	// EnabledTools and DisabledTools filter the server's tools by their
	// own names (exact names or path.Match globs): a tool is offered only
	// when EnabledTools is nil (every tool) or one of it matches, and
	// none of DisabledTools does (disabled wins). See ToolAllowed.
	EnabledTools  []string
	DisabledTools []string

	extra members // unknown and managed members, kept as written
	read  *Server // the fields as parsed (nil for an entry made in Go)
	raw   map[string]json.RawMessage
}

// The values of an entry's "startup" member.
const (
	StartupEager = "eager"
	StartupLazy  = "lazy"
)

// Lazy reports whether the entry starts only when one of its tools is
// called ("startup": "lazy").
func (s *Server) Lazy() bool { return s.Startup == StartupLazy }

// OAuth is an HTTP entry's oauth member.
type OAuth struct {
	ClientID            string   // clientId: a pre-registered client
	ClientSecret        string   // clientSecret: needs ClientID
	ClientIDMetadataURL string   // clientIdMetadataUrl: an https URL with a path (CIMD)
	Scopes              []string // scopes to ask for besides the server's

	extra members
	read  *OAuth
	raw   map[string]json.RawMessage
}

// HTTPEnv are the env names an HTTP entry takes (the seed's, for remote
// servers): MCP_ACCESS_TOKEN, a bearer token sent as given (no OAuth), and
// MCP_OAUTH_TOKEN_FILE, a token record used and refreshed in place. Their
// values are written as a stdio server's are (ResolveEnv).
var HTTPEnv = []string{"MCP_ACCESS_TOKEN", "MCP_OAUTH_TOKEN_FILE"}

// EnvValue is one env entry: a literal, or a reference resolved when the
// server starts, so secrets need not sit in the file.
//
//	"TOKEN": "literal"
//	"TOKEN": {"param": "github_token"}   // --set github_token=..., --params-file
//	"TOKEN": {"fromEnv": "GITHUB_TOKEN"} // luagent's own environment
type EnvValue struct {
	Value   string // the literal (when Param and FromEnv are "")
	Param   string // a parameter's name
	FromEnv string // an environment variable's name

	extra members
	raw   json.RawMessage // the value as read (nil for one made in Go)
	was   [3]string       // Value, Param, FromEnv as read
	obj   bool            // read as an object ({"value": ...} for a literal)
}

// InheritEnv is an entry's inheritEnv:
//
//	"inheritEnv": "minimal"                   // only what the official MCP SDKs pass (HOME, PATH, ...)
//	"inheritEnv": ["PATH", "HOME", "GITHUB_TOKEN"] // only these
//
// Left out, a server inherits every variable but the ones that hold
// luagent's own credentials (provider keys, MCP_ACCESS_TOKEN, ...); a list
// that names one of those passes it.
type InheritEnv struct {
	Minimal bool     // "minimal"
	List    bool     // a list: only Names (set too by Names being non-nil)
	Names   []string // the list's variables
	other   string   // a string other than "minimal", as written (Validate says so)
}

// IsDefault reports whether i is the member left out.
func (i InheritEnv) IsDefault() bool { return !i.Minimal && !i.IsList() && i.other == "" }

// IsList reports whether i is a list of names (an empty one passes none).
func (i InheritEnv) IsList() bool { return i.List || i.Names != nil }

// String is i as `mcp get` shows it: "minimal", the names joined by ", ",
// or "" for the default.
func (i InheritEnv) String() string {
	switch {
	case i.Minimal:
		return InheritMinimal
	case i.IsList():
		return "[" + strings.Join(i.Names, ", ") + "]"
	}
	return i.other
}

// InheritMinimal is inheritEnv's one string value.
const InheritMinimal = "minimal"

func (i InheritEnv) equal(o InheritEnv) bool {
	return i.Minimal == o.Minimal && i.IsList() == o.IsList() && i.other == o.other && slices.Equal(i.Names, o.Names)
}

// members holds JSON object members by name, in their order, with their
// values exactly as read.
type members struct {
	names  []string
	values map[string]json.RawMessage
}

// Transport is "stdio" or "http".
func (s *Server) Transport() string {
	if s.URL != "" {
		return "http"
	}
	return "stdio"
}

// Params are the values env references of the {"param": NAME} form take
// (--set NAME=VALUE, --params-file FILE).
type Params map[string]string

// ResolveEnv returns the entry's environment with every reference
// resolved: params from params, {"fromEnv": NAME} through lookup (nil:
// none found). An unresolved reference is an error naming the variable
// and the parameter, never its value.
func (s *Server) ResolveEnv(params Params, lookup func(string) (string, bool)) (map[string]string, error) {
	if len(s.Env) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(s.Env))
	for k, v := range s.Env {
		switch {
		case v.Param != "":
			val, ok := params[v.Param]
			if !ok {
				return nil, errs.Errorf(errs.Invalid, "catalog", "server %q: env %s needs the parameter %s: pass --set %s=VALUE or --params-file FILE", s.Name, k, v.Param, v.Param)
			}
			out[k] = val
		case v.FromEnv != "":
			var val string
			ok := false
			if lookup != nil {
				val, ok = lookup(v.FromEnv)
			}
			if !ok {
				return nil, errs.Errorf(errs.Invalid, "catalog", "server %q: env %s comes from the environment variable %s, which is not set: export %s", s.Name, k, v.FromEnv, v.FromEnv)
			}
			out[k] = val
		default:
			out[k] = v.Value
		}
	}
	return out, nil
}
