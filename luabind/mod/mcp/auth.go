package mcp

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/luabind/vm"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/httpauth"
	rmcp "github.com/luagent/luagent/runtime/mcp"
	lua "github.com/yuin/gopher-lua"
)

// Bearer-token auth for a Lua server served over HTTP (s:auth, in
// stdlib/mcp.lua): the validator runs as a task for every HTTP request:
// true (or a table of claims) accepts; false, nil or `nil, "reason"`
// refuses (401 invalid_token, the reason as error_description); an error
// answers 500 and is logged. The checking itself is runtime/httpauth's.

type authDef struct {
	validate *lua.LFunction
	servers  []string
	scopes   []string
	resource string
	timeout  time.Duration
}

// maxValidatorTime bounds one validation (less when --handler-timeout is).
const maxValidatorTime = 10 * time.Second

// set_auth(s, validate, servers, scopes, resource): stdlib/mcp.lua's
// s:auth has read its options; the servers' URLs are checked here.
func (m *module) setAuth(L *lua.LState) int {
	s := checkServer(L)
	a := &authDef{timeout: maxValidatorTime, resource: L.OptString(5, "")}
	if HandlerTimeout > 0 && HandlerTimeout < a.timeout {
		a.timeout = HandlerTimeout
	}
	a.validate, _ = L.Get(2).(*lua.LFunction)
	for i, list := range []*[]string{&a.servers, &a.scopes} {
		t := L.CheckTable(3 + i)
		for j := 1; j <= t.Len(); j++ {
			*list = append(*list, lua.LVAsString(t.RawGetInt(j)))
		}
	}
	for _, u := range a.servers {
		if err := httpauth.CheckServerURL(u); err != nil {
			return registered(L, err)
		}
	}
	s.mu.Lock()
	s.auth = a
	s.mu.Unlock()
	return registered(L, nil)
}

// AuthConfig returns what the script set with s:auth on srv: the
// validator (nil when it set none), authorization servers, scopes and
// public resource URL. ok is false when it called no s:auth.
func AuthConfig(srv *rmcp.Server) (cfg httpauth.Config, ok bool) {
	v, isLua := luaServers.Load(srv)
	if !isLua {
		return cfg, false
	}
	s := v.(*luaServer)
	s.mu.Lock()
	a := s.auth
	s.mu.Unlock()
	if a == nil {
		return cfg, false
	}
	cfg = httpauth.Config{Resource: a.resource, AuthorizationServers: a.servers, Scopes: a.scopes}
	if a.validate != nil {
		cfg.Validate = s.validator(a)
	}
	return cfg, true
}

// validator runs a's Lua function on the loop, as a task, for each request
// and waits for its verdict on the request's goroutine.
func (s *luaServer) validator(a *authDef) httpauth.Validator {
	return func(ctx context.Context, token string, r *http.Request) error {
		req := snapshot(r)
		done := make(chan error, 1)
		// This goroutine only waits for the verdict: run it here when the
		// state is idle.
		s.m.lp.RunHere(func() {
			L := s.m.lp.L
			t := s.m.lp.Spawn(a.validate, []lua.LValue{lua.LString(token), req.table(L)}, sched.SpawnOptions{
				Name: "auth validator", Parent: ctx, Timeout: a.timeout,
				TimeoutMsg: "the validator did not answer within " + sched.FormatDuration(a.timeout),
			})
			t.OnDone(func(t *sched.Task) { done <- s.verdict(t) })
		})
		timer := time.NewTimer(a.timeout + time.Second) // the loop may be stopping
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

// verdict maps the validator task's outcome to httpauth's terms. Loop
// goroutine.
func (s *luaServer) verdict(t *sched.Task) error {
	if f := t.Failure(); f != nil {
		if f.Kind == errs.Auth {
			return errs.New(errs.Auth, "", f.Message) // error{kind = "auth"} refuses
		}
		msg := "validator error: " + f.Message
		if f.Traceback != "" {
			msg += "\n" + f.Traceback
		}
		return errs.New(f.Kind, "", msg)
	}
	res := t.Results()
	var first lua.LValue = lua.LNil
	if len(res) > 0 {
		first = res[0]
	}
	switch v := first.(type) {
	case *lua.LTable:
		return nil // claims
	case lua.LBool:
		if v {
			return nil
		}
	case *lua.LNilType:
	default:
		return errs.New(errs.Runtime, "", "the validator returned a "+first.Type().String()+"; return true (or a table of claims) to accept, or nil, \"reason\" to refuse")
	}
	reason := "the token was refused"
	if len(res) > 1 && res[1] != lua.LNil {
		reason = vm.ToString(s.m.lp.L, res[1])
	}
	return httpauth.Refuse(reason)
}

// request is what a validator sees of the HTTP request (the token comes
// separately; the Authorization header is left out).
type request struct {
	method, path, remote string
	headers              map[string]string
}

func snapshot(r *http.Request) request {
	q := request{method: r.Method, path: r.URL.Path, remote: r.RemoteAddr, headers: map[string]string{}}
	for k, vs := range r.Header {
		if k == "Authorization" {
			continue
		}
		q.headers[strings.ToLower(k)] = strings.Join(vs, ", ")
	}
	return q
}

func (q request) table(L *lua.LState) *lua.LTable {
	t := L.CreateTable(0, 4)
	t.RawSetString("method", lua.LString(q.method))
	t.RawSetString("path", lua.LString(q.path))
	t.RawSetString("remote", lua.LString(q.remote))
	h := L.CreateTable(0, len(q.headers))
	for k, v := range q.headers {
		h.RawSetString(k, lua.LString(v))
	}
	t.RawSetString("headers", h)
	return t
}
