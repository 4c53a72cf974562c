package mcp

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/luabind/value"
	"github.com/luagent/luagent/runtime/errs"
	rmcp "github.com/luagent/luagent/runtime/mcp"
	"github.com/luagent/luagent/runtime/transport/httpserver"
	lua "github.com/yuin/gopher-lua"
)

// Bearer-token auth for a Lua server served over HTTP (s:auth, in
// stdlib/mcp_features.lua, which also words the validator's verdict): the
// validator runs as a task for every HTTP request. The checking itself is
// runtime/transport/httpserver's.

// authOptions are what s:auth read, by field name (gopher-luar).
type authOptions struct {
	// Validate is function(token, method, path, remote, headers)
	// returning nothing to accept, or a kind ("auth" refuses) and a
	// message.
	Validate             lua.LValue
	AuthorizationServers []string
	Scopes               []string
	Resource             string
}

// maxValidatorTime bounds one validation (less when --handler-timeout is).
const maxValidatorTime = 10 * time.Second

// set_auth(s, options): the servers' URLs are checked here, where the
// script's line can be named.
func (m *module) setAuth(L *lua.LState) int {
	s, o := checkServer(L), value.FromLuar[authOptions](L, 2)
	for _, u := range o.AuthorizationServers {
		if err := httpserver.CheckServerURL(u); err != nil {
			return registered(L, err)
		}
	}
	cfg := httpserver.AuthConfig{Resource: o.Resource, AuthorizationServers: o.AuthorizationServers, Scopes: o.Scopes}
	if fn, ok := o.Validate.(*lua.LFunction); ok {
		cfg.Validate = s.validator(fn)
	}
	s.mu.Lock()
	s.auth = &cfg
	s.mu.Unlock()
	return registered(L, nil)
}

// AuthConfig returns what the script set with s:auth on srv: the
// validator (nil when it set none), authorization servers, scopes and
// public resource URL. ok is false when it called no s:auth.
func AuthConfig(srv *rmcp.Server) (httpserver.AuthConfig, bool) {
	if v, ok := luaServers.Load(srv); ok {
		s := v.(*luaServer)
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.auth != nil {
			return *s.auth, true
		}
	}
	return httpserver.AuthConfig{}, false
}

// validator runs fn on the loop, as a task, for each request and waits for
// its verdict on the request's goroutine (run there when the state is
// idle: that goroutine only waits).
func (s *luaServer) validator(fn *lua.LFunction) httpserver.Validator {
	timeout := maxValidatorTime
	if HandlerTimeout > 0 && HandlerTimeout < timeout {
		timeout = HandlerTimeout
	}
	return func(ctx context.Context, token string, r *http.Request) error {
		req := httpserver.RequestOf(r)
		var refusal error
		err := s.m.lp.Call(ctx, sched.Call{
			Name: "auth validator",
			Func: func(L *lua.LState) (*lua.LFunction, []lua.LValue, error) {
				return fn, []lua.LValue{lua.LString(token), lua.LString(req.Method), lua.LString(req.Path), lua.LString(req.Remote), stringTable(L, req.Headers)}, nil
			},
			Read: func(L *lua.LState, r []lua.LValue) error {
				if len(r) > 1 {
					refusal = errs.New(errs.ParseKind(lua.LVAsString(r[0])), "", lua.LVAsString(r[1]))
				}
				return nil
			},
			Inline:     true,
			Timeout:    timeout,
			TimeoutMsg: "no verdict within " + sched.FormatDuration(timeout) + ": the validator is too slow or the server too busy",
		})
		if err != nil {
			return verdict(err)
		}
		return refusal
	}
}

// verdict is the validator's failure in httpserver's terms: an error of kind
// auth refuses as a refusal does; any other is the check failing.
func verdict(err error) error {
	var f *sched.Failure
	if !errors.As(err, &f) {
		return err // cancelled, timed out, the host stopped
	}
	if f.Kind == errs.Auth {
		return httpserver.Refuse(f.Message) // error{kind = "auth"} refuses
	}
	msg := "validator error: " + f.Message
	if f.Traceback != "" {
		msg += "\n" + f.Traceback
	}
	return errs.New(f.Kind, "", msg)
}
