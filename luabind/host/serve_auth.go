package host

import (
	"slices"

	logmod "github.com/luagent/luagent/luabind/mod/log"
	mcpmod "github.com/luagent/luagent/luabind/mod/mcp"
	"github.com/luagent/luagent/runtime/errs"
	rmcp "github.com/luagent/luagent/runtime/mcp"
	"github.com/luagent/luagent/runtime/transport/httpserver"
)

// httpAuth builds the bearer-token guard's settings of an HTTP server from
// the flags (token read from --auth-token-env, --auth-server) and the
// script's s:auth; httpserver.Serve fills in where it listens. It returns
// nil when neither asks for auth: then every request is served.
func (h *Host) httpAuth(srv *rmcp.Server, cfg HTTPConfig, token string) (*httpserver.AuthConfig, error) {
	ac, fromLua := mcpmod.AuthConfig(srv)
	if token == "" && !fromLua && len(cfg.AuthServers) == 0 {
		return nil, nil
	}
	switch {
	case token != "" && ac.Validate != nil:
		return nil, errs.New(errs.Invalid, "auth", "the script's s:auth validator and --auth-token-env both check tokens: use one of them")
	case token != "":
		ac.Validate = httpserver.StaticToken(token)
	case ac.Validate == nil && fromLua:
		return nil, errs.New(errs.Invalid, "auth", "s:auth{...} has no validate function: add validate = function(token, req) ... end, or start with --auth-token-env NAME")
	case ac.Validate == nil:
		return nil, errs.New(errs.Invalid, "auth", "--auth-server needs a token check: add --auth-token-env NAME (or s:auth in the script)")
	}
	ac.AuthorizationServers = slices.Clone(ac.AuthorizationServers)
	for _, s := range cfg.AuthServers {
		if !slices.Contains(ac.AuthorizationServers, s) {
			ac.AuthorizationServers = append(ac.AuthorizationServers, s)
		}
	}
	ac.ResourceName = srv.Name()
	name := srv.Name()
	ac.Log = func(msg string) { h.Logger.Log(logmod.Error, "["+name+"] "+msg) }
	return &ac, nil
}
