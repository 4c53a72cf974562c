package mcp

import (
	"context"
	"net/http"
	"time"

	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/luabind/value"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/httpauth"
	rmcp "github.com/luagent/luagent/runtime/mcp"
	lua "github.com/yuin/gopher-lua"
)

// Bearer-token auth for a Lua server served over HTTP (s:auth, in
// stdlib/mcp_features.lua, which also words the validator's verdict): the
// validator runs as a task for every HTTP request. The checking itself is
// runtime/httpauth's.

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
		if err := httpauth.CheckServerURL(u); err != nil {
			return registered(L, err)
		}
	}
	cfg := httpauth.Config{Resource: o.Resource, AuthorizationServers: o.AuthorizationServers, Scopes: o.Scopes}
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
func AuthConfig(srv *rmcp.Server) (httpauth.Config, bool) {
	if v, ok := luaServers.Load(srv); ok {
		s := v.(*luaServer)
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.auth != nil {
			return *s.auth, true
		}
	}
	return httpauth.Config{}, false
}

// validator runs fn on the loop, as a task, for each request and waits for
// its verdict on the request's goroutine.
func (s *luaServer) validator(fn *lua.LFunction) httpauth.Validator {
	timeout := maxValidatorTime
	if HandlerTimeout > 0 && HandlerTimeout < timeout {
		timeout = HandlerTimeout
	}
	return func(ctx context.Context, token string, r *http.Request) error {
		req := httpauth.RequestOf(r)
		done := make(chan error, 1)
		// This goroutine only waits for the verdict: run it here when the
		// state is idle.
		s.m.lp.RunHere(func() {
			args := []lua.LValue{lua.LString(token), lua.LString(req.Method), lua.LString(req.Path), lua.LString(req.Remote), stringTable(s.m.lp.L, req.Headers)}
			task := s.m.lp.Spawn(fn, args, sched.SpawnOptions{
				Name: "auth validator", Parent: ctx, Timeout: timeout,
				TimeoutMsg: "the validator did not answer within " + sched.FormatDuration(timeout),
			})
			task.OnDone(func(t *sched.Task) { done <- verdict(t) })
		})
		timer := time.NewTimer(timeout + time.Second) // the loop may be stopping
		defer timer.Stop()
		select {
		case err := <-done:
			return err
		case <-ctx.Done():
			return errs.New(errs.Cancelled, "", "the request ended during the token check")
		case <-s.m.ctx.Done():
			return errs.New(errs.Closed, "", "the server is shutting down")
		case <-timer.C:
			return errs.New(errs.Timeout, "", "the validator did not run (the server is busy or stopping)")
		}
	}
}

// verdict is the validator task's outcome in httpauth's terms: an error
// of kind auth refuses as a refusal does; any other is the check failing.
func verdict(t *sched.Task) error {
	if f := t.Failure(); f != nil {
		if f.Kind == errs.Auth {
			return httpauth.Refuse(f.Message) // error{kind = "auth"} refuses
		}
		msg := "validator error: " + f.Message
		if f.Traceback != "" {
			msg += "\n" + f.Traceback
		}
		return errs.New(f.Kind, "", msg)
	}
	if r := t.Results(); len(r) > 1 {
		return errs.New(errs.ParseKind(lua.LVAsString(r[0])), "", lua.LVAsString(r[1]))
	}
	return nil
}
