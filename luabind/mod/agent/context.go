package agent

import (
	"context"
	"encoding/json"
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/luabind/value"
	ragent "github.com/luagent/luagent/runtime/agent"
	"github.com/luagent/luagent/runtime/compact"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/llm"
)

// The context window's options of agent.new (runtime/agent/context.go):
// context_window = TOKENS (else the host's --context-window, else the
// catalog's models.NAME.contextWindow, else a known model's), compact_at
// (the share of the window, 0.8), keep_turns, summarize = function(messages,
// focus) return "summary" end, tool_result_limit (bytes), compact = false.
func (m *module) contextOptions(opts *lua.LTable, cfg *ragent.Config) error {
	num := func(k string, lo, hi float64, whole bool) (float64, error) {
		switch v := opts.RawGetString(k).(type) {
		case *lua.LNilType:
			return 0, nil
		case lua.LNumber:
			f := float64(v)
			if f < lo || f > hi || (whole && f != math.Trunc(f)) {
				break
			}
			return f, nil
		}
		what := "a number"
		if whole {
			what = "a whole number"
		}
		return 0, errs.Errorf(errs.Invalid, "agent.new", "%s must be %s from %v to %v, not %s", k, what, lo, hi, lua.LVAsString(opts.RawGetString(k)))
	}
	w, err := num("context_window", 1, math.MaxInt32, true)
	if err != nil {
		return err
	}
	cfg.ContextWindow = int(w)
	if cfg.ContextWindow == 0 && m.cfg.ContextWindow != nil {
		cfg.ContextWindow = m.cfg.ContextWindow(cfg.Model.Name())
	}
	if cfg.CompactThreshold, err = num("compact_at", 0.05, 1, false); err != nil {
		return err
	}
	k, err := num("keep_turns", 1, 1000, true)
	if err != nil {
		return err
	}
	cfg.KeepTurns = int(k)
	lim, err := num("tool_result_limit", 1024, math.MaxInt32, true)
	if err != nil {
		return err
	}
	cfg.ToolResultLimit = int(lim)
	cfg.NoCompaction = opts.RawGetString("compact") == lua.LFalse
	switch fn := opts.RawGetString("summarize").(type) {
	case *lua.LNilType:
	case *lua.LFunction:
		cfg.Summarize = m.summarizer(fn)
	default:
		return errs.Errorf(errs.Invalid, "agent.new", "summarize must be a function(messages, focus) returning the summary, not %s", fn.Type())
	}
	return nil
}

// summarizer calls a Lua summarize(messages, focus) on the loop; it
// returns the summary's text.
func (m *module) summarizer(fn *lua.LFunction) compact.Summarizer {
	return func(ctx context.Context, msgs []llm.Message, focus string) (string, error) {
		out := make([]ragent.Message, 0, len(msgs))
		for _, msg := range msgs {
			out = append(out, ragent.MessageOf(msg))
		}
		raw, _ := json.Marshal(out)
		fraw, _ := json.Marshal(focus)
		v, err := m.callLua(ctx, fn, "summarize", decodeArgs(raw, fraw), func(L *lua.LState, rs []lua.LValue) (any, error) {
			s, ok := first(rs).(lua.LString)
			if !ok || strings.TrimSpace(string(s)) == "" {
				return nil, errs.Errorf(errs.Invalid, "summarize", "summarize must return the summary as a non-empty string, not %s", first(rs).Type())
			}
			return string(s), nil
		})
		if err != nil {
			return "", err
		}
		return v.(string), nil
	}
}

// a:compact([focus]) -> {summarized=, kept=, before=, after=, summary=}
func (m *module) compactNow(L *lua.LState) sched.Start {
	la := m.checkAgent(L)
	focus := L.OptString(2, "")
	return func(ctx context.Context, done func(sched.Completion)) {
		go func() {
			res, err := la.a.Compact(ctx, focus)
			if err != nil {
				done(sched.Fail(err))
				return
			}
			done(func(L *lua.LState) ([]lua.LValue, error) {
				v, err := value.ToLua(L, map[string]any{"summarized": res.Summarized, "kept": res.Kept,
					"before": res.Before, "after": res.After, "summary": res.Summary})
				return []lua.LValue{v}, err
			})
		}()
	}
}

// a:pin(text): kept verbatim through every compaction.
func (m *module) pin(L *lua.LState) int {
	la := m.checkAgent(L)
	la.a.Pin(L.CheckString(2))
	return 0
}

// a:context([memory]) -> {window=, last_input=, parts={{name=, tokens=}}, text=}
func (m *module) contextReport(L *lua.LState) int {
	la := m.checkAgent(L)
	r := la.a.Context(L.OptString(2, ""))
	parts := make([]any, 0, len(r.Parts))
	for _, p := range r.Parts {
		parts = append(parts, map[string]any{"name": p.Name, "tokens": p.Tokens})
	}
	v, err := value.ToLua(L, map[string]any{"window": r.Window, "last_input": r.LastInput, "parts": parts,
		"compactions": r.Compactions, "pinned": r.Pinned, "text": r.String()})
	if err != nil {
		L.RaiseError("%s", err.Error())
	}
	L.Push(v)
	return 1
}
