package transport

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// Inherit is which of luagent's own environment variables a server
// process inherits. Command.Env is added on top and wins. The zero value
// inherits everything but WithheldEnv.
type Inherit struct {
	// Minimal inherits only MinimalEnv, the variables the official MCP
	// SDKs pass to a server by default.
	Minimal bool
	// Names inherits only these variables (with Minimal, these too). A
	// name of WithheldEnv listed here is inherited.
	Names []string
}

// IsDefault reports whether i is the zero value (everything but
// WithheldEnv).
func (i Inherit) IsDefault() bool { return !i.Minimal && i.Names == nil }

// MinimalEnv is what Inherit.Minimal passes on this system: the official
// MCP SDKs' default list (TypeScript getDefaultEnvironment,
// DEFAULT_INHERITED_ENV_VARS; Python get_default_environment).
func MinimalEnv() []string {
	if runtime.GOOS == "windows" {
		return slices.Clone(minimalWindows)
	}
	return slices.Clone(minimalPOSIX)
}

var (
	minimalPOSIX   = []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"}
	minimalWindows = []string{"APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PROCESSOR_ARCHITECTURE",
		"PROGRAMFILES", "SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "USERNAME", "USERPROFILE"}
)

// withheld are the variables that hold luagent's own credentials and
// settings of its model providers: no server inherits them unless its
// entry names them (in Command.Env or Inherit.Names). This is the one
// list; WithholdEnv adds names only known at run time (a configured
// model's apiKeyEnv, serve --auth-env), and stdlib/doc/catalog.md lists it.
var withheld = struct {
	sync.Mutex
	names []string
}{names: []string{
	// The model providers' keys and endpoints (runtime/llm).
	"OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL",
	// A setting of the Anthropic provider (no cache breakpoints).
	"DISABLE_PROMPT_CACHING",
	// HTTP servers' static token and token file (mcp.connect env).
	"MCP_ACCESS_TOKEN", "MCP_OAUTH_TOKEN_FILE",
	// The key serve signs request state with.
	"LUAGENT_STATE_KEY",
}}

// WithheldEnv returns the variables servers do not inherit by default.
func WithheldEnv() []string {
	withheld.Lock()
	defer withheld.Unlock()
	return slices.Clone(withheld.names)
}

// WithholdEnv adds names to WithheldEnv, for the processes started from
// now on: variables luagent learns at run time hold its credentials.
func WithholdEnv(names ...string) {
	withheld.Lock()
	defer withheld.Unlock()
	for _, n := range names {
		if n != "" && !slices.Contains(withheld.names, n) {
			withheld.names = append(withheld.names, n)
		}
	}
}

// InheritableName reports whether k may name a variable to inherit
// (Inherit.Names, a catalog entry's inheritEnv): what systems name the
// variables that exist, Windows' ProgramFiles(x86) too, so not only the
// portable names an env may set, but no '=', blank or control character.
// The one rule for such names.
func InheritableName(k string) bool {
	if k == "" || len(k) > 256 {
		return false
	}
	for _, r := range k {
		if r == '=' || r <= ' ' || r == 0x7f {
			return false
		}
	}
	return true
}

// buildEnv is a server's environment: the variables of base (luagent's,
// os.Environ) that inherit lets through, then extra, which wins.
func buildEnv(base []string, extra map[string]string, inherit Inherit) ([]string, error) {
	for k, v := range extra {
		// Name the variable, never show the value.
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return nil, fmt.Errorf("invalid environment variable name %q", k)
		}
		if strings.IndexByte(v, 0) >= 0 {
			return nil, fmt.Errorf("environment variable %s contains a NUL byte", k)
		}
	}
	for _, k := range inherit.Names {
		if !InheritableName(k) {
			return nil, fmt.Errorf("invalid variable name %q in inheritEnv", k)
		}
	}
	keep := inheritFilter(inherit)
	env := make([]string, 0, len(base)+len(extra))
	for _, kv := range base {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue // Windows' "=C:=C:\dir" entries have no name
		}
		if inExtra(extra, k) {
			continue
		}
		if keep(k, v) {
			env = append(env, kv)
		}
	}
	for _, k := range envNames(extra) {
		env = append(env, k+"="+extra[k])
	}
	return env, nil
}

// inheritFilter says which of luagent's variables (name, value) pass.
func inheritFilter(inherit Inherit) func(k, v string) bool {
	if inherit.IsDefault() {
		w := WithheldEnv()
		return func(k, _ string) bool { return !containsEnv(w, k) }
	}
	var minimal []string
	if inherit.Minimal {
		minimal = MinimalEnv()
	}
	return func(k, v string) bool {
		if containsEnv(inherit.Names, k) {
			return true
		}
		// As the SDKs do: a value starting with "()" is an exported shell
		// function, which a minimal environment does not pass on.
		return containsEnv(minimal, k) && !strings.HasPrefix(v, "()")
	}
}

// containsEnv: Windows' variable names are case-insensitive, others' not.
func containsEnv(list []string, k string) bool {
	if runtime.GOOS == "windows" {
		return slices.ContainsFunc(list, func(n string) bool { return strings.EqualFold(n, k) })
	}
	return slices.Contains(list, k)
}

// inExtra reports whether extra sets k (on Windows, in any case).
func inExtra(extra map[string]string, k string) bool {
	if _, ok := extra[k]; ok || runtime.GOOS != "windows" {
		return ok
	}
	for e := range extra {
		if strings.EqualFold(e, k) {
			return true
		}
	}
	return false
}
