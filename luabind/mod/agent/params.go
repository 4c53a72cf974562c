package agent

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/luabind/value"
	ragent "github.com/luagent/luagent/runtime/agent"
	"github.com/luagent/luagent/runtime/errs"
)

// maxParamFile bounds a {file = PATH} default: it holds a value (a token,
// a name), not data.
const maxParamFile = 1 << 16

// native.params(decls, agent_name) -> values, json, secrets: the values of
// an agent's declared parameters, from the command line (--set,
// --set-json, --params-file) or else each one's default ({env = NAME},
// {file = PATH} or {value = ...}). values maps names to text; json names
// the values that are JSON text (--set-json, a params file's non-string
// member, a non-string {value = ...}); secrets lists the values of the
// parameters marked secret. A required parameter without a value is an
// error of kind invalid naming it, never a value.
func (m *module) params(L *lua.LState) int {
	decls := L.OptTable(1, L.CreateTable(0, 0))
	who := L.OptString(2, "")
	if who != "" {
		who = "agent " + who + ": "
	}
	fail := func(format string, a ...any) {
		L.Error(sched.ErrorValueOf(L, errs.Errorf(errs.Invalid, "agent.new", who+format, a...)), 0)
	}
	values, isJSON, secrets := L.CreateTable(0, 4), L.CreateTable(0, 0), L.CreateTable(0, 0)
	// Names given on the command line but not declared still resolve
	// {param = NAME} references (as a catalog entry's do).
	for k, v := range m.cfg.Params {
		values.RawSetString(k, lua.LString(v))
		if m.cfg.ParamsJSON[k] {
			isJSON.RawSetString(k, lua.LTrue)
		}
	}
	for i := 1; i <= decls.Len(); i++ {
		d, ok := decls.RawGetInt(i).(*lua.LTable)
		if !ok {
			fail("params[%d] must be a table {name = ..., description = ..., secret = ..., required = ..., default = ...}", i)
		}
		name := optString(d, "name")
		if name == "" || strings.ContainsAny(name, "= \t\n") {
			fail("params[%d] needs a name (letters, digits, _ . -)", i)
		}
		val, given := m.cfg.Params[name]
		if !given {
			var from string
			var err error
			val, from, given, err = m.paramDefault(d.RawGetString("default"))
			if err != nil {
				fail("parameter %s: %v", name, err)
			}
			values.RawSetString(name, lua.LString(val))
			if from == "json" {
				isJSON.RawSetString(name, lua.LTrue)
			}
		}
		if !given {
			values.RawSetString(name, lua.LNil)
			if lua.LVAsBool(d.RawGetString("required")) {
				fail("the parameter %s is required: pass --set %s=VALUE or --params-file FILE", name, name)
			}
			continue
		}
		if lua.LVAsBool(d.RawGetString("secret")) && val != "" {
			secrets.Append(lua.LString(val))
		}
	}
	L.Push(values)
	L.Push(isJSON)
	L.Push(secrets)
	return 3
}

// paramDefault reads a parameter's default: {env = NAME}, {file = PATH}
// (its text, a final newline dropped) or {value = V}. from is "json" when
// the value is JSON text; ok is false when there is no value (no default,
// an unset variable).
func (m *module) paramDefault(v lua.LValue) (val, from string, ok bool, err error) {
	t, isTable := v.(*lua.LTable)
	switch {
	case v == lua.LNil:
		return "", "", false, nil
	case !isTable:
		return "", "", false, errs.New(errs.Invalid, "", "default must be {env = NAME}, {file = PATH} or {value = ...}")
	}
	if name := optString(t, "env"); name != "" {
		lookup := m.cfg.Lookup
		if lookup == nil {
			lookup = os.LookupEnv
		}
		val, ok = lookup(name)
		return val, "", ok, nil
	}
	if path := optString(t, "file"); path != "" {
		f, ferr := os.Open(path)
		if ferr != nil {
			// The path is the operator's; the file's content is never shown.
			return "", "", false, errs.Errorf(errs.Invalid, "", "cannot read the default's file %s: %v", path, unwrapPath(ferr))
		}
		defer f.Close()
		b, rerr := io.ReadAll(io.LimitReader(f, maxParamFile+1))
		if rerr == nil && len(b) > maxParamFile {
			rerr = errs.New(errs.Limit, "", "larger than 64 KiB")
		}
		if rerr != nil {
			return "", "", false, errs.Errorf(errs.Invalid, "", "the default's file %s: %v", path, rerr)
		}
		return strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r"), "", true, nil
	}
	switch x := t.RawGetString("value").(type) {
	case *lua.LNilType:
		return "", "", false, errs.New(errs.Invalid, "", "default must be {env = NAME}, {file = PATH} or {value = ...}")
	case lua.LString:
		return string(x), "", true, nil
	default:
		raw, eerr := value.Encode(x, value.EncodeOptions{})
		if eerr != nil {
			return "", "", false, errs.Errorf(errs.Invalid, "", "default value: %v", eerr)
		}
		return string(raw), "json", true, nil
	}
}

func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// bindingsAndSecrets reads opts.bindings ({{tool=, arg=, json = TEXT},
// ...}: stdlib/agent.lua resolves each value to its JSON) and
// opts._secrets (a list of values) into cfg.
func bindingsAndSecrets(opts *lua.LTable, cfg *ragent.Config) error {
	if t, ok := opts.RawGetString("bindings").(*lua.LTable); ok {
		for i := 1; i <= t.Len(); i++ {
			b, ok := t.RawGetInt(i).(*lua.LTable)
			if !ok || optString(b, "tool") == "" || optString(b, "arg") == "" {
				return errs.Errorf(errs.Invalid, "agent.new", "bindings[%d] must be {tool = PATTERN, arg = NAME, value = ...}", i)
			}
			raw := json.RawMessage(optString(b, "json"))
			if !json.Valid(raw) {
				return errs.Errorf(errs.Invalid, "agent.new", "bindings[%d] (%s of %s): the value is not JSON", i, optString(b, "arg"), optString(b, "tool"))
			}
			cfg.Bindings = append(cfg.Bindings, ragent.Binding{Tool: optString(b, "tool"), Arg: optString(b, "arg"), Value: raw})
		}
	}
	if t, ok := opts.RawGetString("_secrets").(*lua.LTable); ok {
		for i := 1; i <= t.Len(); i++ {
			if s, ok := t.RawGetInt(i).(lua.LString); ok && s != "" {
				cfg.Secrets = append(cfg.Secrets, string(s))
			}
		}
	}
	return nil
}

// DefaultMaxConcurrent bounds the fresh asks (ud:ask_fresh) one agent runs
// at once when it sets no max_concurrent; more wait their turn.
const DefaultMaxConcurrent = 4

// ud:ask_fresh(prompt [, on_event [, tag]]) -> text, transcript: one ask
// in a conversation of its own, on a new runtime agent over the same
// configuration, so several run at once (up to the agent's
// max_concurrent; more wait, and a cancelled one stops waiting). A served
// agent's calls and an agent called by another run this way. tag goes
// with the run's context (sched.WithTag) to the hub callbacks of the
// requests its tool calls cause.
func (m *module) askFresh(L *lua.LState) sched.Start {
	la := m.checkAgent(L)
	prompt := L.CheckString(2)
	onEvent := L.OptFunction(3, nil)
	tag := L.Get(4)
	return func(ctx context.Context, done func(sched.Completion)) {
		ctx = sched.WithTag(ctx, tag)
		go func() {
			select {
			case la.slots <- struct{}{}:
				defer func() { <-la.slots }()
			case <-ctx.Done():
				err := errs.Wrap(errs.Cancelled, "agent", context.Cause(ctx))
				done(func(L *lua.LState) ([]lua.LValue, error) { return nil, err })
				return
			}
			cfg := la.cfg
			cfg.OnEvent = nil
			if onEvent != nil {
				cfg.OnEvent = func(e ragent.Event) { m.deliver(ctx, onEvent, e) }
			}
			fresh := ragent.New(cfg)
			// config.json's rules hold for a served call too; asked as a
			// tool, the caller's (--deny, a session's project) hold.
			rules := la.a.HostRules()
			if cr := ragent.CallerRules(ctx); cr != nil {
				rules = cr
			}
			fresh.SetRules(rules)
			text, tr, err := fresh.Ask(ctx, prompt)
			done(askCompletion(text, tr, err))
		}()
	}
}

// ud:sample(params, server) -> result: a server's sampling request
// answered with the agent's model through its policy (as the hub's
// sampler would), for a hub of the agent's own whose on_sample passes
// requests to a served call's client when it can and else comes here.
func (m *module) sample(L *lua.LState) sched.Start {
	la := m.checkAgent(L)
	params, err := value.Encode(L.CheckTable(2), value.EncodeOptions{})
	if err != nil {
		L.ArgError(2, err.Error())
	}
	server := L.OptString(3, "")
	return func(ctx context.Context, done func(sched.Completion)) {
		go func() {
			raw, err := la.a.Sample(ctx, server, params)
			done(func(L *lua.LState) ([]lua.LValue, error) {
				if err != nil {
					return nil, err
				}
				v, derr := value.Decode(L, raw)
				if derr != nil {
					return nil, derr
				}
				return []lua.LValue{v}, nil
			})
		}()
	}
}
