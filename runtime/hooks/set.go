package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
)

// Handler is one hook of one event: a command (Commands) or a Lua
// function (luabind).
type Handler struct {
	Event string
	// Group is the handler's matcher and where it was configured (zero
	// for a Lua handler: it runs for every tool and decides itself).
	Group Group
	// Name says which hook it is in messages: the command, or "lua".
	Name string
	// Run answers one event; it must not panic (Fire recovers anyway).
	Run func(ctx context.Context, in Input) Result
}

// Commands are the handlers of cfg's command hooks, each run by r.
// Hooks of types luagent does not run are left out.
func Commands(cfg Config, r Runner) []Handler {
	var out []Handler
	for _, g := range cfg.Groups {
		for _, c := range g.Hooks {
			if !c.Runs() {
				continue
			}
			ev := g.Event
			out = append(out, Handler{Event: ev, Group: g, Name: c.Command, Run: func(ctx context.Context, in Input) Result {
				b, err := json.Marshal(in)
				if err != nil {
					return Result{Error: "the event did not encode: " + err.Error()}
				}
				return ParseOutput(ev, r.Run(ctx, c, b))
			}})
		}
	}
	return out
}

// Set is the handlers of an agent, by event; handlers may be added while
// events fire.
type Set struct {
	mu sync.RWMutex
	hs []Handler
}

// NewSet returns a set of hs.
func NewSet(hs ...Handler) *Set { return &Set{hs: hs} }

// Add adds h after the handlers of its event.
func (s *Set) Add(h Handler) {
	s.mu.Lock()
	s.hs = append(s.hs, h)
	s.mu.Unlock()
}

// Has reports whether any handler listens to ev.
func (s *Set) Has(ev string) bool {
	if s == nil {
		return false
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, h := range s.hs {
		if h.Event == ev {
			return true
		}
	}
	return false
}

// Outcome is what the handlers of one event answered together.
type Outcome struct {
	Result
	// Notes are what the user is shown: each handler's error,
	// systemMessage and (unless suppressed) plain output, prefixed with
	// the hook that said it.
	Notes []string
	// Ran is how many handlers ran.
	Ran int
}

// Fire runs the handlers of in.HookEventName whose matcher matches one of
// names (a tool's: its qualified name and its mcp__ alias; none: the
// event's own field, as Claude Code matches it), one after the other in
// the order they were added, and merges their answers: any block blocks
// (the reasons joined), deny beats ask beats allow, an updatedInput is
// the input the next handler sees and the result's, contexts are joined,
// any continue:false stops. A handler that panics is a non-blocking error.
func (s *Set) Fire(ctx context.Context, in Input, names ...string) Outcome {
	var out Outcome
	if s == nil {
		return out
	}
	if len(names) == 0 {
		if v := in.matchOn(); v != "" {
			names = []string{v}
		}
	}
	s.mu.RLock()
	hs := make([]Handler, 0, len(s.hs))
	for _, h := range s.hs {
		if h.Event == in.HookEventName && (!matched(h.Event) || h.Group.Matches(names...)) {
			hs = append(hs, h)
		}
	}
	s.mu.RUnlock()
	for _, h := range hs {
		if ctx.Err() != nil {
			break
		}
		r := safeRun(ctx, h, in)
		out.Ran++
		note := func(s string) {
			if s != "" {
				out.Notes = append(out.Notes, fmt.Sprintf("%s hook %s: %s", h.Event, quoteName(h.Name), s))
			}
		}
		note(r.Error)
		note(r.SystemMessage)
		if !r.SuppressOutput {
			note(r.Output)
		}
		if r.Block {
			out.Block = true
			out.Reason = join(out.Reason, r.Reason)
		}
		if rank(r.Permission) > rank(out.Permission) {
			out.Permission, out.PermissionReason = r.Permission, r.PermissionReason
		}
		if r.UpdatedInput != nil {
			out.UpdatedInput = r.UpdatedInput
			in.ToolInput = r.UpdatedInput
		}
		out.Context = join(out.Context, r.Context)
		if r.Stop && !out.Stop {
			out.Stop, out.StopReason = true, r.StopReason
		}
	}
	return out
}

func rank(p string) int {
	switch p {
	case "allow":
		return 1
	case "ask":
		return 2
	case "deny":
		return 3
	}
	return 0
}

func safeRun(ctx context.Context, h Handler, in Input) (r Result) {
	defer func() {
		if p := recover(); p != nil {
			r = Result{Error: fmt.Sprintf("the hook failed: %v", p)}
		}
	}()
	return h.Run(ctx, in)
}

func quoteName(s string) string {
	const max = 60
	if len(s) > max {
		s = s[:max] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// Handlers lists the set's handlers (hooks list, tests).
func (s *Set) Handlers() []Handler {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return append([]Handler(nil), s.hs...)
}
