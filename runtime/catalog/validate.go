package catalog

import (
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/luagent/luagent/runtime/transport"
	"golang.org/x/net/http/httpguts"
)

var (
	// nameRE is the rule for entry names (and so for qualified tool names).
	nameRE = nameRule{max: 64, extra: "_-"}
	// envNameRE is a portable environment variable name.
	envNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })
	// paramRE is a parameter's name (--set NAME=VALUE).
	paramRE = nameRule{max: 128, extra: "_.-"}
)

// nameRule is ^[A-Za-z0-9<extra>]{1,max}$ without a regexp: Go compiles a
// bounded repeat into max copies, and the three of this package took 3 ms
// and 3 500 allocations of every luagent start (GODEBUG=inittrace=1).
type nameRule struct {
	max   int
	extra string
}

func (r nameRule) MatchString(s string) bool {
	if len(s) == 0 || len(s) > r.max {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte(r.extra, c) >= 0) {
			return false
		}
	}
	return true
}

// Validate checks every rule of the format and returns one error of kind
// invalid listing every problem (errors.As gives the Problems), each with
// the JSON path of the bad field and what to do, or nil.
func (c *Config) Validate() error {
	var p problems
	switch c.InitStrategy {
	case "", InitAuto, InitProgressive, InitWait:
	default:
		p.add("mcpInitStrategy", fmt.Sprintf("must be %q, %q or %q, not %q", InitAuto, InitProgressive, InitWait, c.InitStrategy))
	}
	if c.Version < 0 || c.Version > Version {
		p.add("version", fmt.Sprintf("must be %d", Version))
	}
	seen := map[string]bool{}
	for _, s := range c.Servers {
		if s == nil {
			continue
		}
		if seen[s.Name] {
			p.add(serverPath(s.Name), "appears twice; keep one")
		}
		seen[s.Name] = true
		s.validate(&p)
	}
	c.validateConnections(&p)
	c.validateModels(&p)
	switch c.ToolSearch {
	case "", ToolSearchAuto, ToolSearchAlways, ToolSearchNever:
	default:
		p.add("toolSearch", fmt.Sprintf("must be %q, %q or %q, not %q", ToolSearchAuto, ToolSearchAlways, ToolSearchNever, c.ToolSearch))
	}
	if c.ToolSearchThreshold < 0 {
		p.add("toolSearchThreshold", toolSearchThresholdRule)
	}
	c.validatePermissions(&p)
	c.validateMemory(&p)
	for _, hp := range c.hookProblems { // hooks.go
		p.add(hp.Path, hp.Msg)
	}
	return p.err()
}

// Validate checks one entry as Config.Validate does.
func (s *Server) Validate() error {
	var p problems
	s.validate(&p)
	return p.err()
}

func (s *Server) validate(p *problems) {
	path := serverPath(s.Name)
	at := func(field, msg string) { p.add(path+"."+field, msg) }
	if !nameRE.MatchString(s.Name) {
		p.add(path, "the name must be 1 to 64 letters, digits, _ or - (no spaces or dots); rename the entry")
	}
	switch {
	case s.Command != "" && s.URL != "":
		p.add(path, "has both command and url; keep command for a stdio server or url for an HTTP one")
	case s.Command == "" && s.URL == "":
		p.add(path, `needs command (a stdio server: "command": "npx", "args": [...]) or url (an HTTP server)`)
	}
	if s.Command != "" && strings.TrimSpace(s.Command) == "" {
		at("command", "must not be blank; name the program to start")
	}
	if s.URL != "" {
		if u, err := url.Parse(s.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			at("url", "must be an http or https URL with a host, like https://example.com/mcp")
		}
		for _, f := range []struct {
			name string
			set  bool
		}{{"args", s.Args != nil}, {"cwd", s.Cwd != ""}, {"inheritEnv", !s.InheritEnv.IsDefault()}} {
			if f.set {
				at(f.name, "only a stdio server (command) takes "+f.name+"; remove it from this HTTP entry")
			}
		}
		for _, k := range sortedKeys(s.Env) {
			if !slices.Contains(HTTPEnv, k) {
				at("env."+k, "an HTTP server takes only MCP_ACCESS_TOKEN (a bearer token) and MCP_OAUTH_TOKEN_FILE (a token file) in env; remove "+k+", or send it as a header")
			}
		}
	}
	if s.Command != "" {
		if s.Headers != nil {
			at("headers", "only an HTTP server (url) takes headers; remove them from this stdio entry")
		}
		if s.OAuth != nil {
			at("oauth", "only an HTTP server (url) takes oauth; remove it from this stdio entry")
		}
	}
	for _, k := range sortedKeys(s.Env) {
		v := s.Env[k]
		fp := "env." + k
		if !envNameRE().MatchString(k) {
			at(fp, "is not a valid variable name: use letters, digits and _, not starting with a digit")
		}
		n := 0
		for _, x := range []string{v.Param, v.FromEnv} {
			if x != "" {
				n++
			}
		}
		switch {
		case n > 1 || (n == 1 && v.Value != ""):
			at(fp, `must be exactly one of a string, {"param": NAME} and {"fromEnv": NAME}`)
		case v.Param != "" && !paramRE.MatchString(v.Param):
			at(fp+".param", "must be a parameter name of letters, digits, _, . or -")
		case v.FromEnv != "" && !envNameRE().MatchString(v.FromEnv):
			at(fp+".fromEnv", "must be an environment variable name (letters, digits and _)")
		case strings.ContainsRune(v.Value, 0):
			at(fp, "must not hold a NUL character")
		}
	}
	if ie := s.InheritEnv; ie.other != "" || (ie.Minimal && ie.IsList()) {
		at("inheritEnv", inheritEnvRule)
	}
	for i, k := range s.InheritEnv.Names {
		if !transport.InheritableName(k) {
			at(fmt.Sprintf("inheritEnv[%d]", i), "must be a variable's name, without =, spaces or control characters")
		} else if slices.Contains(s.InheritEnv.Names[:i], k) {
			at(fmt.Sprintf("inheritEnv[%d]", i), k+" appears twice; keep one")
		}
	}
	for i, d := range s.RootDirs {
		if strings.TrimSpace(d) == "" || strings.ContainsRune(d, 0) {
			at(fmt.Sprintf("roots[%d]", i), `must be a folder, like "." or "~/src"`)
		} else if slices.Contains(s.RootDirs[:i], d) {
			at(fmt.Sprintf("roots[%d]", i), d+" appears twice; keep one")
		}
	}
	for _, k := range sortedKeys(s.Headers) {
		if !httpguts.ValidHeaderFieldName(k) {
			at("headers."+k, "is not a valid HTTP header name (letters, digits and !#$%&'*+-.^_`|~, no spaces or colons)")
		} else if !httpguts.ValidHeaderFieldValue(s.Headers[k]) {
			at("headers."+k, "the value must not hold line breaks or control characters")
		}
	}
	if o := s.OAuth; o != nil {
		if o.ClientSecret != "" && o.ClientID == "" {
			at("oauth.clientSecret", "a client secret needs clientId, the client it belongs to; add clientId or remove clientSecret")
		}
		if o.ClientIDMetadataURL != "" {
			if u, err := url.Parse(o.ClientIDMetadataURL); err != nil || u.Scheme != "https" || u.Host == "" || u.Path == "" || u.Path == "/" {
				at("oauth.clientIdMetadataUrl", "must be an https URL with a path")
			}
		}
		for i, sc := range o.Scopes {
			if strings.TrimSpace(sc) == "" || strings.ContainsAny(sc, " \t\r\n\"\\") {
				at(fmt.Sprintf("oauth.scopes[%d]", i), "must be one scope name, not blank and without spaces or quotes")
			}
		}
	}
	switch s.Protocol {
	case "", "auto", "legacy", "modern":
	default:
		at("protocol", fmt.Sprintf(`must be "auto", "legacy" or "modern", not %q`, s.Protocol))
	}
	if s.Startup != "" && s.Startup != StartupEager && s.Startup != StartupLazy {
		at("startup", fmt.Sprintf("must be %q or %q (or left out: eager), not %q", StartupEager, StartupLazy, s.Startup))
	}
	if s.LogLevel != "" && !slices.Contains(logLevels, s.LogLevel) {
		at("logLevel", fmt.Sprintf("must be one of %s (or left out), not %q", strings.Join(logLevels, ", "), s.LogLevel))
	}
	for _, f := range []struct {
		name string
		d    time.Duration
	}{{"startupTimeoutSeconds", s.StartupTimeout}, {"requestTimeoutSeconds", s.RequestTimeout}} {
		if f.d < 0 || f.d > maxTimeout {
			at(f.name, "must be a number of seconds above 0 and at most 86400 (leave it out for the default)")
		}
	}
	if s.MaxConcurrentCalls < 0 {
		at("maxConcurrentCalls", "must be 0 or more (0: no bound)")
	}
	s.validateConnectionID(at)
	for _, f := range []struct {
		name string
		list []string
	}{{"enabledTools", s.EnabledTools}, {"disabledTools", s.DisabledTools}} {
		for i, g := range f.list {
			fp := fmt.Sprintf("%s[%d]", f.name, i)
			if g == "" {
				at(fp, `must be a tool name or a glob like "read_*", not empty`)
			} else if !validGlob(g) {
				at(fp, fmt.Sprintf(`%q is not a valid glob (path.Match: *, ?, [a-z], \ escapes); fix its brackets or escapes`, g))
			}
		}
	}
}

// toolSearchThresholdRule is what toolSearchThreshold takes.
const toolSearchThresholdRule = `must be a whole number, 1 or more: above it, in "auto" mode, the tools are deferred behind mcp_search_tools (leave it out for 40; "toolSearch": "always" defers any number)`

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// logLevels are MCP's log levels (runtime/mcp.LogLevels; a test keeps them
// equal): the catalog stays below the MCP client in the layering.
var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}
