package vm

import "context"

// TaskContext is a sched loop's TaskContext for a sandboxed state: a task
// spawned from outside Lua (a script's main task, a request's handler)
// gets a budget of lim, unless its creator gave it one (SpawnOptions.Context
// from BudgetContext: code mode's per-run limits); a task spawned by a task
// shares its spawner's budget and is charged to it as a coroutine, so
// spawning cannot mint budgets.
func TaskContext(lim Limits) func(ctx, spawner context.Context) (context.Context, func()) {
	return func(ctx, spawner context.Context) (context.Context, func()) {
		if spawner == nil && UnderBudget(ctx) {
			return ctx, func() {}
		}
		if c, stop, ok := ShareBudget(ctx, spawner); ok {
			ChargeTask(c, "task.spawn")
			return c, stop
		}
		return BudgetContext(ctx, lim)
	}
}

// ChargeContext takes n bytes from the memory meter of the budget ctx
// belongs to, for a binding that builds a run's values off its thread (a
// completion on the loop's state): past the ceiling the meter trips, so
// the run stops at its next instruction, and the limit is returned.
func ChargeContext(ctx context.Context, n int64, what string) error {
	b, _ := ctx.Value(budgetKey{}).(*budget)
	if b == nil || n <= 0 {
		return nil
	}
	if e := b.m.take(n, what); e != nil {
		b.cancel(e)
		return e
	}
	return nil
}
