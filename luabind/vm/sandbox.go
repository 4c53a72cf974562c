package vm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"sync/atomic"
	"time"

	"github.com/luagent/luagent/runtime/errs"
	lua "github.com/yuin/gopher-lua"
)

// Limits bound one sandboxed run (a Sandbox.Run, or a task whose context
// came from BudgetContext). A zero field takes its default.
//
// The memory ceiling is a meter, not a measurement: it counts the bytes of
// the strings, tables and coroutines the code creates, cumulatively (what
// the collector frees is not given back), in every operation that can
// allocate more than a constant in one step: `..`, string.rep, format,
// upper, lower, reverse, byte, char, gsub, table.concat, table.insert,
// rawset, t[k] = v with a computed key, table constructors, load,
// coroutine.create/wrap, os.date. What every instruction allocates a
// constant of (a closure, a field set by name) is bounded by the
// instruction budget instead. See stdlib/doc/sandbox.md.
type Limits struct {
	// Time is the wall-clock limit; past it the run fails with kind timeout.
	Time time.Duration
	// Instructions is the number of Lua VM instructions the run may execute.
	Instructions int64
	// MemoryBytes is the ceiling of the meter described above.
	MemoryBytes int64
	// Coroutines is how many coroutines (and tasks) the run may create.
	// Each is charged 24 KiB, what an idle one takes; a coroutine's stack
	// can grow to about 0.8 MiB (200 frames of Lua registers) outside the
	// meter, which is why the default is low.
	Coroutines int
}

// The defaults of Limits.
const (
	DefaultTime         = 5 * time.Second
	DefaultInstructions = 50_000_000
	DefaultMemoryBytes  = 64 << 20
	DefaultCoroutines   = 64
)

// WithDefaults returns l with its zero fields set to the defaults.
func (l Limits) WithDefaults() Limits {
	if l.Time <= 0 {
		l.Time = DefaultTime
	}
	if l.Instructions <= 0 {
		l.Instructions = DefaultInstructions
	}
	if l.MemoryBytes <= 0 {
		l.MemoryBytes = DefaultMemoryBytes
	}
	if l.Coroutines <= 0 {
		l.Coroutines = DefaultCoroutines
	}
	return l
}

// meter holds what a run has left of its limits. Several tasks may share
// one (a script and the tasks it spawns); each has its own budget context
// over it. Atomic: Done may also be called by goroutines that derive a
// context from a run's (a tool call's).
type meter struct {
	lim                 Limits
	deadline            time.Time
	steps, bytes, coros atomic.Int64
	failure             atomic.Pointer[errs.Error] // the first limit reached
}

// trip records the limit reached (the first one wins) and returns it.
func (m *meter) trip(msg string) *errs.Error {
	m.failure.CompareAndSwap(nil, errs.New(errs.Limit, "", msg))
	return m.failure.Load()
}

// take takes n bytes from the memory meter: past the ceiling it trips,
// naming what, and returns the limit reached; else nil.
func (m *meter) take(n int64, what string) *errs.Error {
	if m.bytes.Add(-n) >= 0 {
		return nil
	}
	return m.trip("memory limit of " + formatBytes(m.lim.MemoryBytes) + " reached by " + what)
}

// budget is the context a sandboxed run executes under. gopher-lua calls
// Done once per VM instruction (mainLoopWithContext), so counting the calls
// is an exact instruction budget at the cost SetContext already has. Its
// meter is found from any thread of the run through Value, so built-ins
// charge the run that called them.
type budget struct {
	context.Context // the run's own: cancelled with the cause of a limit
	cancel          context.CancelCauseFunc
	done            <-chan struct{}
	stopTimer       func() bool
	m               *meter
}

type budgetKey struct{}

// BudgetContext returns a context that enforces lim (with defaults) for
// the Lua code of a sandbox state that runs under it: set it on the
// running thread with SetContext, or give it to a sched task as its
// SpawnOptions.Context. Its cause, when a limit is reached, is an
// *errs.Error of kind limit (timeout for Time) naming the limit. Call stop
// when the run is over.
func BudgetContext(parent context.Context, lim Limits) (ctx context.Context, stop func()) {
	lim = lim.WithDefaults()
	m := &meter{lim: lim, deadline: time.Now().Add(lim.Time)}
	m.steps.Store(lim.Instructions)
	m.bytes.Store(lim.MemoryBytes)
	m.coros.Store(int64(lim.Coroutines))
	b := newBudget(parent, m)
	return b, b.stop
}

// ShareBudget returns a budget context over parent that draws on the same
// limits (and deadline) as the budget of from, and true; or parent and
// false when from is not under a budget. A sched loop of a sandbox state
// gives it to the tasks a task spawns, so spawning cannot mint budgets.
func ShareBudget(parent, from context.Context) (context.Context, func(), bool) {
	if from == nil {
		return parent, func() {}, false
	}
	fb, _ := from.Value(budgetKey{}).(*budget)
	if fb == nil {
		return parent, func() {}, false
	}
	b := newBudget(parent, fb.m)
	return b, b.stop, true
}

func newBudget(parent context.Context, m *meter) *budget {
	tctx, stopT := context.WithDeadlineCause(parent, m.deadline,
		errs.New(errs.Timeout, "", "time limit of "+FormatDuration(m.lim.Time)+" exceeded"))
	ctx, cancel := context.WithCancelCause(tctx)
	return &budget{Context: ctx, cancel: cancel, done: ctx.Done(), stopTimer: func() bool { stopT(); return true }, m: m}
}

func (b *budget) stop() { b.stopTimer(); b.cancel(context.Canceled) }

func (b *budget) Done() <-chan struct{} {
	if b.m.steps.Add(-1) < 0 {
		b.m.trip(fmt.Sprintf("instruction limit of %d reached", b.m.lim.Instructions))
	}
	if e := b.m.failure.Load(); e != nil {
		b.cancel(e)
	}
	return b.done
}

// Err is the cause (the limit reached), not context.Canceled: gopher-lua
// raises Err's text where the code stopped, so the error reads
// "chunk:line: instruction limit of N reached".
func (b *budget) Err() error {
	if b.Context.Err() == nil {
		return nil
	}
	return context.Cause(b.Context)
}

func (b *budget) Value(k any) any {
	if k == (budgetKey{}) {
		return b
	}
	return b.Context.Value(k)
}

// budgetOf is the budget L runs under, or nil.
func budgetOf(L *lua.LState) *budget {
	ctx := L.Context()
	if ctx == nil {
		return nil
	}
	if b, ok := ctx.(*budget); ok {
		return b
	}
	b, _ := ctx.Value(budgetKey{}).(*budget)
	return b
}

// Usage is what a run has consumed of its limits.
type Usage struct {
	Instructions int64
	MemoryBytes  int64
	Coroutines   int
}

// UsageOf reports the consumption of the budget ctx belongs to (zero for a
// context that is not a budget).
func UsageOf(ctx context.Context) Usage {
	b, _ := ctx.Value(budgetKey{}).(*budget)
	if b == nil {
		return Usage{}
	}
	m := b.m
	return Usage{
		Instructions: min(m.lim.Instructions, max(0, m.lim.Instructions-m.steps.Load())),
		MemoryBytes:  max(0, m.lim.MemoryBytes-m.bytes.Load()),
		Coroutines:   int(max(0, int64(m.lim.Coroutines)-m.coros.Load())),
	}
}

// charge takes n bytes from the memory meter of L's run, raising a limit
// error (and ending the run) past the ceiling. what names the operation.
func charge(L *lua.LState, n int64, what string) {
	b := budgetOf(L)
	if b == nil || n <= 0 {
		return
	}
	if e := b.m.take(n, what); e != nil {
		b.raise(L, e)
	}
}

// fail ends the run (every task sharing its meter) with a limit error and
// raises it where L is.
func (b *budget) fail(L *lua.LState, msg string) { b.raise(L, b.m.trip(msg)) }

// raise ends the run with the limit e, tripped, and raises it where L is.
func (b *budget) raise(L *lua.LState, e *errs.Error) {
	b.cancel(e)
	L.Error(lua.LString(scriptWhere(L)+e.Msg), 0)
}

// scriptWhere is "chunk:line: " of the innermost Lua frame that is the
// script's, not luagent's own Lua (luagent/...): a limit reached inside
// s:tool{...} is the line that called it.
func scriptWhere(L *lua.LState) string {
	return FrameWhere(L, func(source string) bool { return strings.HasPrefix(source, "luagent/") })
}

// FrameWhere is "source:line: " of the innermost Lua function's frame whose
// source skip does not reject, or "" when there is none: the position to
// put in front of an error raised on a script's behalf.
func FrameWhere(L *lua.LState, skip func(source string) bool) string {
	for i := 0; ; i++ {
		dbg, ok := L.GetStack(i)
		if !ok {
			return ""
		}
		fn, err := L.GetInfo("Slf", dbg, lua.LNil)
		if err != nil {
			return ""
		}
		if lf, ok := fn.(*lua.LFunction); ok && !lf.IsG && !skip(dbg.Source) {
			return fmt.Sprintf("%s:%d: ", dbg.Source, dbg.CurrentLine)
		}
	}
}

func formatBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// FormatDuration prints d the way error messages in luagent do: "250ms",
// "1.5s", "2m0s".
func FormatDuration(d time.Duration) string {
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(10 * time.Millisecond).String()
}

// SandboxOptions configure NewSandbox.
type SandboxOptions struct {
	Limits
	// Print receives print output; nil discards it.
	Print io.Writer
	// Embedded holds the modules require may load (compiled under the
	// sandbox's rules); nil allows only preloaded modules.
	Embedded fs.FS
}

// SandboxState is a state of the Sandbox profile with the limits of its runs.
// Its L is the caller's to add granted modules to (as globals or with
// PreloadModule) before the first run; like any state it is used from one
// goroutine at a time.
type SandboxState struct {
	L   *lua.LState
	lim Limits
}

// NewSandbox returns a fresh sandboxed state: the base library without
// files, processes, environment or debug; string, table, math, coroutine
// and os.time/date/clock/difftime; require of preloaded (and Embedded)
// modules only; load and loadstring of source text only, compiled with
// the meters.
func NewSandbox(o SandboxOptions) *SandboxState {
	w := o.Print
	if w == nil {
		w = io.Discard
	}
	L := New(Options{Profile: Sandbox, Stdout: w, Embedded: o.Embedded})
	return &SandboxState{L: L, lim: o.Limits.WithDefaults()}
}

// Limits returns the limits of the sandbox's runs, defaults filled in.
func (s *SandboxState) Limits() Limits { return s.lim }

// Load compiles src under the sandbox's rules (see LoadChunk).
func (s *SandboxState) Load(src []byte, name string) (*lua.LFunction, error) {
	return LoadChunk(s.L, src, name)
}

// Run compiles src and calls it with args under the sandbox's limits,
// returning what it returned. The run cannot wait (no scheduler): for code
// that calls tools, spawn the function Load returns on a sched.Loop over
// s.L with SpawnOptions{Context: BudgetContext(parent, s.Limits())}.
//
// Errors have a kind: syntax (does not compile), limit (the message names
// the limit reached and where, "chunk:3: memory limit of 64 MiB reached by
// string.rep"), timeout, cancelled (ctx), or runtime (a Lua error, its
// message formatted without running any of the code's metamethods).
//
// Compiling src is part of the run: it takes the run's time and is
// charged to its meter.
func (s *SandboxState) Run(ctx context.Context, src []byte, name string, args ...lua.LValue) ([]lua.LValue, error) {
	b, stop := BudgetContext(ctx, s.lim)
	defer stop()
	L := s.L
	L.SetContext(b)
	defer L.RemoveContext()
	fn, err := s.Load(src, name)
	if err != nil {
		return nil, err
	}
	return s.call(b, fn, args...)
}

// Call is Run for a function already loaded.
func (s *SandboxState) Call(ctx context.Context, fn *lua.LFunction, args ...lua.LValue) ([]lua.LValue, error) {
	b, stop := BudgetContext(ctx, s.lim)
	defer stop()
	L := s.L
	L.SetContext(b)
	defer L.RemoveContext()
	return s.call(b, fn, args...)
}

// call calls fn on s.L, which runs under the budget b.
func (s *SandboxState) call(b context.Context, fn *lua.LFunction, args ...lua.LValue) ([]lua.LValue, error) {
	L := s.L
	top := L.GetTop()
	err := L.CallByParam(lua.P{Fn: fn, NRet: lua.MultRet, Protect: true}, args...)
	if err != nil {
		L.SetTop(top)
		return nil, SandboxError(b, err)
	}
	out := make([]lua.LValue, L.GetTop()-top)
	for i := range out {
		out[i] = L.Get(top + 1 + i)
	}
	L.SetTop(top)
	return out, nil
}

// Close releases the state.
func (s *SandboxState) Close() { s.L.Close() }

// SandboxError classifies err, raised by code running under the budget
// context ctx: when ctx ended (a limit, the time limit, a cancel) the kind
// and message come from its cause, with the position the code stopped at;
// otherwise it is a runtime error whose message is ErrorText's.
func SandboxError(ctx context.Context, err error) error {
	var obj lua.LValue = lua.LString(err.Error())
	if ae, ok := err.(*lua.ApiError); ok {
		obj = ae.Object
	}
	if ctx.Err() != nil {
		kind, msg := EndedBy(ctx, obj)
		return &errs.Error{Kind: kind, Msg: msg, Err: context.Cause(ctx)}
	}
	kind := errs.Runtime
	if tb, ok := obj.(*lua.LTable); ok {
		if k := errs.ParseKind(lua.LVAsString(tb.RawGetString("kind"))); k != errs.Unknown {
			kind = k
		}
	}
	return &errs.Error{Kind: kind, Msg: ErrorText(obj)}
}

// EndedBy is the kind and message of the error value obj, raised by code
// that stopped because ctx ended (a limit, a time limit, a cancel): both
// come from ctx's cause (kind cancelled when it has none), with the
// position the code stopped at.
func EndedBy(ctx context.Context, obj lua.LValue) (errs.Kind, string) {
	cause := context.Cause(ctx)
	kind := errs.KindOf(cause)
	if kind == errs.Unknown {
		kind = errs.Cancelled
	}
	return kind, withPosition(obj, CauseText(cause))
}

// CauseText is the message of a context's cause.
func CauseText(cause error) string {
	var e *errs.Error
	if errors.As(cause, &e) && e.Msg != "" {
		return e.Msg
	}
	return cause.Error()
}

// withPosition returns msg with the position ("chunk:3: ") of the raised
// error value obj when obj is msg raised from Lua code, else msg.
func withPosition(obj lua.LValue, msg string) string {
	s, ok := obj.(lua.LString)
	if !ok || !strings.HasSuffix(string(s), ": "+msg) {
		return msg
	}
	pos := string(s[:len(s)-len(msg)-2])
	i := strings.LastIndexByte(pos, ':')
	if i <= 0 || i == len(pos)-1 || strings.Contains(pos, ": ") {
		return msg
	}
	for _, c := range pos[i+1:] {
		if c < '0' || c > '9' {
			return msg
		}
	}
	return string(s)
}

// ErrorText renders a sandboxed error value as one line without calling
// any of its metamethods (a __tostring that loops would run outside the
// run's limits): strings and numbers as they are, a table by its string
// message field, anything else by its type.
func ErrorText(v lua.LValue) string {
	switch x := v.(type) {
	case lua.LString:
		return string(x)
	case lua.LNumber:
		return compatNumberString(x)
	case *lua.LTable:
		if m, ok := x.RawGetString("message").(lua.LString); ok {
			return string(m)
		}
	case nil:
		return "nil"
	}
	if v == lua.LNil {
		return "nil"
	}
	return fmt.Sprintf("(error object is a %s value)", v.Type())
}

const sandboxKey = "luagent.vm.sandbox"

// IsSandbox reports whether L is a state of the Sandbox profile.
func IsSandbox(L *lua.LState) bool {
	return L.G.Registry.RawGetString(sandboxKey) == lua.LTrue
}

// ChargeTask charges a task spawned under the budget ctx as a coroutine
// (it runs on one): against the coroutine limit and the memory meter. Past
// either, the meter trips, so the spawner and the task stop at their next
// instruction.
func ChargeTask(ctx context.Context, what string) {
	b, _ := ctx.Value(budgetKey{}).(*budget)
	if b == nil {
		return
	}
	if b.m.coros.Add(-1) < 0 {
		b.m.trip("coroutine limit of " + compatBytes(float64(b.m.lim.Coroutines)) + " reached by " + what)
	}
	b.m.take(costCoroutine, what)
}

// UnderBudget reports whether ctx is (or derives from) a budget context.
func UnderBudget(ctx context.Context) bool {
	_, ok := ctx.Value(budgetKey{}).(*budget)
	return ok
}
