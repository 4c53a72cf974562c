package sched

import (
	"context"

	lua "github.com/yuin/gopher-lua"
)

type tagKey struct{}

// WithTag returns ctx carrying a Lua value that Go code running under it
// hands back to Lua: an agent run's tag reaches the hub's on_elicit for
// the request its tool call caused (a callback spawned with this context
// as its parent sees it through TagOf).
func WithTag(ctx context.Context, tag lua.LValue) context.Context {
	if tag == nil || tag == lua.LNil {
		return ctx
	}
	return context.WithValue(ctx, tagKey{}, tag)
}

// TagOf returns the tag ctx carries, or lua.LNil.
func TagOf(ctx context.Context) lua.LValue {
	if v, ok := ctx.Value(tagKey{}).(lua.LValue); ok {
		return v
	}
	return lua.LNil
}
