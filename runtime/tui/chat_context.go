package tui

import (
	"context"
	"time"
)

// /compact [FOCUS]: the older turns replaced by a summary now (the
// PreCompact hooks first, trigger "manual"); Ctrl-C cancels it.
func (t *chatTerm) compact(ctx context.Context, focus string) {
	octx, done := t.op(ctx, 10*time.Minute)
	res, err := t.s.Agent().Agent().Compact(octx, focus)
	done()
	if err != nil {
		t.fail(err)
		return
	}
	t.say("%s", res.Describe())
}

// /context: where the next request's tokens go.
func (t *chatTerm) showContext() {
	mem := ""
	if !t.cfg.NoMemory && !t.memorySkipped.Load() {
		mem = t.cfg.Memory.Prompt()
	}
	t.say("%s", t.s.Agent().Agent().Context(mem).String())
}
