package vm

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/luagent/luagent/runtime/errs"
	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"
)

// Sandboxed chunks are compiled from a rewritten syntax tree: the
// operations that allocate O(n) in one VM instruction call metered
// functions instead.
//
//	a .. b            ->  (concat)(a, b)
//	t[k] = v          ->  (set)(t, k, v)      (a computed key: t.name = v stays)
//	{ fields }        ->  (table)({ fields }, #keyed, #positional)
//	function ... end  ->  (closure)(function ... end)
//	                      (a function statement is followed by (closure)())
//
// The four are locals of an outer function whose names Lua code cannot
// spell, so a snippet can neither read nor rebind them:
//
//	local (concat), (set), (table), (closure) = ...
//	return function(...) <the chunk> end
//
// LoadChunk calls the outer function with the metered functions and
// returns the inner one, which is the chunk (its own varargs, its own
// returns, the same line numbers).
const (
	hiddenConcat  = "(concat)"
	hiddenSet     = "(set)"
	hiddenTable   = "(table)"
	hiddenClosure = "(closure)"
)

// CompileSandboxed compiles src for a sandbox state (see LoadChunk). Errors
// have kind errs.Syntax, worded as Compile's, or errs.Limit for a chunk
// nested too deep (MaxSyntaxLevels, MaxTreeDepth).
func CompileSandboxed(src []byte, name string) (*lua.FunctionProto, error) {
	return compileSandboxed(nil, src, name)
}

// compileSandboxed is CompileSandboxed under ctx (nil: none), a run's
// budget: parsing and compiling take the run's time. The parser stops
// reading when ctx ends; a compile still running then is left to finish
// alone (nesting is bounded, so it is linear in a chunk the meter paid
// for). Either way, and for a compile that ends after ctx did, the error
// is ctx's cause (the time limit, a limit, a cancel), never a success.
func compileSandboxed(ctx context.Context, src []byte, name string) (proto *lua.FunctionProto, err error) {
	defer func() {
		if r := recover(); r != nil {
			proto, err = nil, &errs.Error{Kind: errs.Syntax, Msg: fmt.Sprintf("%s: cannot compile: %v", name, r)}
		}
	}()
	if len(src) > 0 && src[0] == 0x1b {
		return nil, &errs.Error{Kind: errs.Syntax, Msg: name + ": binary chunks cannot be loaded in the sandbox; pass Lua source"}
	}
	if len(src) > 0 && src[0] == '#' {
		src = blankFirstLine(src)
	}
	var r io.Reader = bytes.NewReader(src)
	if ctx != nil {
		r = &untilDone{r: r, ctx: ctx}
	}
	chunk, err := parse.Parse(r, name)
	if e := ended(ctx); e != nil {
		return nil, e
	}
	if err != nil {
		se := syntaxError(err, name)
		return nil, &errs.Error{Kind: errs.Syntax, Msg: se.Error(), Err: se}
	}
	if err := checkNesting(chunk, name); err != nil {
		return nil, err
	}
	var rw rewriter
	body := rw.stmts(chunk)
	last := 0
	if n := len(chunk); n > 0 {
		last = chunk[n-1].LastLine()
	}
	inner := &ast.FunctionExpr{ParList: &ast.ParList{HasVargs: true}, Stmts: body}
	inner.SetLine(0)
	inner.SetLastLine(last)
	outer := []ast.Stmt{
		&ast.LocalAssignStmt{Names: []string{hiddenConcat, hiddenSet, hiddenTable, hiddenClosure}, Exprs: []ast.Expr{&ast.Comma3Expr{}}},
		&ast.ReturnStmt{Exprs: []ast.Expr{inner}},
	}
	proto, err = compileUntilDone(ctx, outer, name)
	if e := ended(ctx); e != nil {
		return nil, e
	}
	if err != nil {
		return nil, &errs.Error{Kind: errs.Syntax, Err: err, Msg: err.Error()}
	}
	return proto, nil
}

// ended is ctx's cause once it has ended, else nil (also for a nil ctx).
// Err, not Done: a budget counts its Done calls as instructions.
func ended(ctx context.Context) error {
	if ctx == nil || ctx.Err() == nil {
		return nil
	}
	return context.Cause(ctx)
}

// untilDone reads r until ctx ends, then panics with ctx's cause, which
// parse.Parse recovers and returns: gopher-lua's scanner takes a read
// error other than EOF for a zero byte, so an error would not stop it.
type untilDone struct {
	r   io.Reader
	ctx context.Context
}

func (u *untilDone) Read(p []byte) (int, error) {
	if e := ended(u.ctx); e != nil {
		panic(e)
	}
	return u.r.Read(p)
}

// compileUntilDone is lua.Compile(chunk, name), given up when ctx ends
// first (nil: waited for). gopher-lua's compiler cannot be stopped, so it
// runs on a goroutine of its own then; it touches no Lua state.
func compileUntilDone(ctx context.Context, chunk []ast.Stmt, name string) (*lua.FunctionProto, error) {
	compile := func() (p *lua.FunctionProto, err error) {
		defer func() {
			if r := recover(); r != nil {
				p, err = nil, fmt.Errorf("%s: cannot compile: %v", name, r)
			}
		}()
		return lua.Compile(chunk, name)
	}
	if ctx == nil {
		return compile()
	}
	type result struct {
		p   *lua.FunctionProto
		err error
	}
	done := make(chan result, 1)
	go func() {
		p, err := compile()
		done <- result{p, err}
	}()
	select {
	case r := <-done:
		return r.p, r.err
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// sandboxProtos caches CompileSandboxed of embedded modules by name.
var sandboxProtos sync.Map

func compileSandboxedCached(src []byte, name string) (*lua.FunctionProto, error) {
	return cachedCompile(&sandboxProtos, CompileSandboxed, src, name)
}

// EmbeddedSandboxed is an embedded module's source compiled for a sandbox
// (once per process) and instantiated in L: luagent's own Lua runs under
// the meters there too, so what it builds on a script's behalf is
// charged to the script.
func EmbeddedSandboxed(L *lua.LState, src []byte, name string) (*lua.LFunction, error) {
	p, err := compileSandboxedCached(src, name)
	if err != nil {
		return nil, err
	}
	return FunctionOf(L, p)
}

// LoadChunk compiles src into a function of L. In a sandbox state the
// chunk is compiled with the meters (CompileSandboxed) and a binary chunk
// is refused; when L runs under a budget (BudgetContext), compiling takes
// the run's time and charges the meter for the chunk, and an error says
// which limit ended the run. Elsewhere it is Compile.
func LoadChunk(L *lua.LState, src []byte, name string) (*lua.LFunction, error) {
	return loadChunk(L, src, name, "compiling "+name)
}

// chunkCost approximates a compiled chunk per source byte.
const chunkCost = 8

// loadChunk is LoadChunk, what naming the compile to the memory meter.
func loadChunk(L *lua.LState, src []byte, name, what string) (*lua.LFunction, error) {
	if !IsSandbox(L) {
		p, err := Compile(src, name)
		if err != nil {
			return nil, err
		}
		return L.NewFunctionFromProto(p), nil
	}
	var ctx context.Context
	if b := budgetOf(L); b != nil {
		if e := b.m.take(int64(len(src))*chunkCost, what); e != nil {
			b.cancel(e)
			return nil, e
		}
		ctx = L.Context()
	}
	p, err := compileSandboxed(ctx, src, name)
	if err != nil {
		return nil, err
	}
	return instantiate(L, p)
}

// instantiate runs a sandboxed prototype's outer function, which returns
// the chunk.
func instantiate(L *lua.LState, p *lua.FunctionProto) (*lua.LFunction, error) {
	outer := L.NewFunctionFromProto(p)
	if err := L.CallByParam(lua.P{Fn: outer, NRet: 1, Protect: true}, meteredConcat, meteredSet, meteredTable, meteredClosure); err != nil {
		return nil, err
	}
	fn, _ := L.Get(-1).(*lua.LFunction)
	L.Pop(1)
	if fn == nil {
		return nil, errs.New(errs.Internal, "", "sandboxed chunk did not compile to a function")
	}
	return fn, nil
}

// rewriter rewrites a chunk's tree in place (see the comment above).
type rewriter struct{ temps int }

func hidden(name string, line int) ast.Expr {
	e := &ast.IdentExpr{Value: name}
	e.SetLine(line)
	e.SetLastLine(line)
	return e
}

func call(fn string, line int, args ...ast.Expr) *ast.FuncCallExpr {
	c := &ast.FuncCallExpr{Func: hidden(fn, line), Args: args}
	c.SetLine(line)
	c.SetLastLine(line)
	return c
}

func (rw *rewriter) stmts(ss []ast.Stmt) []ast.Stmt {
	out := ss[:0:0]
	for _, s := range ss {
		out = append(out, rw.stmt(s))
		if fnStmt(s) {
			// function f() end and local function f() end keep their
			// FunctionExpr (the compiler needs it there for methods and
			// recursion): charge the closure just after.
			c := &ast.FuncCallStmt{Expr: call(hiddenClosure, s.Line())}
			c.SetLine(s.Line())
			c.SetLastLine(s.Line())
			out = append(out, c)
		}
	}
	return out
}

func fnStmt(s ast.Stmt) bool {
	switch s := s.(type) {
	case *ast.FuncDefStmt:
		return true
	case *ast.LocalAssignStmt:
		if len(s.Exprs) == 1 && len(s.Names) == 1 {
			_, ok := s.Exprs[0].(*ast.FunctionExpr)
			return ok
		}
	}
	return false
}

func (rw *rewriter) exprs(es []ast.Expr) {
	for i, e := range es {
		es[i] = rw.expr(e)
	}
}

func (rw *rewriter) stmt(s ast.Stmt) ast.Stmt {
	switch s := s.(type) {
	case *ast.AssignStmt:
		return rw.assign(s)
	case *ast.LocalAssignStmt:
		if fnStmt(s) {
			fn := s.Exprs[0].(*ast.FunctionExpr)
			fn.Stmts = rw.stmts(fn.Stmts)
			return s
		}
		rw.exprs(s.Exprs)
	case *ast.FuncCallStmt:
		s.Expr = rw.expr(s.Expr)
	case *ast.DoBlockStmt:
		s.Stmts = rw.stmts(s.Stmts)
	case *ast.WhileStmt:
		s.Condition = rw.expr(s.Condition)
		s.Stmts = rw.stmts(s.Stmts)
	case *ast.RepeatStmt:
		s.Condition = rw.expr(s.Condition)
		s.Stmts = rw.stmts(s.Stmts)
	case *ast.IfStmt:
		s.Condition = rw.expr(s.Condition)
		s.Then = rw.stmts(s.Then)
		s.Else = rw.stmts(s.Else)
	case *ast.NumberForStmt:
		s.Init, s.Limit = rw.expr(s.Init), rw.expr(s.Limit)
		if s.Step != nil {
			s.Step = rw.expr(s.Step)
		}
		s.Stmts = rw.stmts(s.Stmts)
	case *ast.GenericForStmt:
		rw.exprs(s.Exprs)
		s.Stmts = rw.stmts(s.Stmts)
	case *ast.FuncDefStmt:
		if s.Name != nil {
			if s.Name.Func != nil {
				rw.target(s.Name.Func)
			}
			if s.Name.Receiver != nil {
				s.Name.Receiver = rw.expr(s.Name.Receiver)
			}
		}
		s.Func.Stmts = rw.stmts(s.Func.Stmts)
	case *ast.ReturnStmt:
		rw.exprs(s.Exprs)
	}
	return s
}

// target rewrites the parts of an assignment target, not the target itself.
func (rw *rewriter) target(e ast.Expr) {
	if a, ok := e.(*ast.AttrGetExpr); ok {
		a.Object, a.Key = rw.expr(a.Object), rw.expr(a.Key)
	}
}

// computed reports whether e is t[k] with a key that is not a constant
// name: only such assignments can add unboundedly many keys.
func computed(e ast.Expr) (*ast.AttrGetExpr, bool) {
	a, ok := e.(*ast.AttrGetExpr)
	if !ok {
		return nil, false
	}
	_, constant := a.Key.(*ast.StringExpr)
	return a, !constant
}

func (rw *rewriter) assign(s *ast.AssignStmt) ast.Stmt {
	for _, l := range s.Lhs {
		rw.target(l)
	}
	rw.exprs(s.Rhs)
	any := false
	for _, l := range s.Lhs {
		if _, ok := computed(l); ok {
			any = true
		}
	}
	if !any {
		return s
	}
	line := s.Line()
	if len(s.Lhs) == 1 && len(s.Rhs) == 1 {
		a, _ := computed(s.Lhs[0])
		st := &ast.FuncCallStmt{Expr: call(hiddenSet, line, a.Object, a.Key, s.Rhs[0])}
		st.SetLine(line)
		st.SetLastLine(s.LastLine())
		return st
	}
	// a[i], b = x, y: evaluate the targets' parts, then the values, into
	// hidden locals, then assign each.
	var names []string
	var parts []ast.Expr
	tmp := func() string {
		rw.temps++
		n := "(t" + strconv.Itoa(rw.temps) + ")"
		names = append(names, n)
		return n
	}
	type slot struct{ obj, key string }
	slots := make([]slot, len(s.Lhs))
	for i, l := range s.Lhs {
		if a, ok := computed(l); ok {
			slots[i] = slot{tmp(), tmp()}
			parts = append(parts, a.Object, a.Key)
		}
	}
	var body []ast.Stmt
	if len(parts) > 0 {
		body = append(body, &ast.LocalAssignStmt{Names: names, Exprs: parts})
	}
	values := make([]string, len(s.Lhs))
	for i := range s.Lhs {
		rw.temps++
		values[i] = "(v" + strconv.Itoa(rw.temps) + ")"
	}
	body = append(body, &ast.LocalAssignStmt{Names: values, Exprs: s.Rhs})
	for i, l := range s.Lhs {
		if slots[i].obj != "" {
			body = append(body, &ast.FuncCallStmt{Expr: call(hiddenSet, line, hidden(slots[i].obj, line), hidden(slots[i].key, line), hidden(values[i], line))})
			continue
		}
		body = append(body, &ast.AssignStmt{Lhs: []ast.Expr{l}, Rhs: []ast.Expr{hidden(values[i], line)}})
	}
	for _, b := range body {
		b.SetLine(line)
		b.SetLastLine(line)
	}
	d := &ast.DoBlockStmt{Stmts: body}
	d.SetLine(line)
	d.SetLastLine(s.LastLine())
	return d
}

func (rw *rewriter) expr(e ast.Expr) ast.Expr {
	switch e := e.(type) {
	case *ast.StringConcatOpExpr:
		return call(hiddenConcat, e.Line(), rw.expr(e.Lhs), rw.expr(e.Rhs))
	case *ast.TableExpr:
		for _, f := range e.Fields {
			if f.Key != nil {
				f.Key = rw.expr(f.Key)
			}
			f.Value = rw.expr(f.Value)
		}
		keyed := 0
		for _, f := range e.Fields {
			if f.Key != nil {
				keyed++
			}
		}
		k := &ast.NumberExpr{Value: strconv.Itoa(keyed)}
		k.SetLine(e.Line())
		p := &ast.NumberExpr{Value: strconv.Itoa(len(e.Fields) - keyed)}
		p.SetLine(e.Line())
		return call(hiddenTable, e.Line(), e, k, p)
	case *ast.AttrGetExpr:
		e.Object, e.Key = rw.expr(e.Object), rw.expr(e.Key)
	case *ast.FuncCallExpr:
		if e.Func != nil {
			e.Func = rw.expr(e.Func)
		}
		if e.Receiver != nil {
			e.Receiver = rw.expr(e.Receiver)
		}
		rw.exprs(e.Args)
	case *ast.LogicalOpExpr:
		e.Lhs, e.Rhs = rw.expr(e.Lhs), rw.expr(e.Rhs)
	case *ast.RelationalOpExpr:
		e.Lhs, e.Rhs = rw.expr(e.Lhs), rw.expr(e.Rhs)
	case *ast.ArithmeticOpExpr:
		e.Lhs, e.Rhs = rw.expr(e.Lhs), rw.expr(e.Rhs)
	case *ast.UnaryMinusOpExpr:
		e.Expr = rw.expr(e.Expr)
	case *ast.UnaryNotOpExpr:
		e.Expr = rw.expr(e.Expr)
	case *ast.UnaryLenOpExpr:
		e.Expr = rw.expr(e.Expr)
	case *ast.FunctionExpr:
		e.Stmts = rw.stmts(e.Stmts)
		return call(hiddenClosure, e.Line(), e)
	}
	return e
}

// CompileFor compiles src for states of L's profile: CompileSandboxed in a
// sandbox, Compile elsewhere. Run the result with FunctionOf on L or on any
// state of the same profile (serve's workers).
func CompileFor(L *lua.LState, src []byte, name string) (*lua.FunctionProto, error) {
	if IsSandbox(L) {
		return CompileSandboxed(src, name)
	}
	return Compile(src, name)
}

// FunctionOf returns the function of L that runs proto, from CompileFor.
func FunctionOf(L *lua.LState, proto *lua.FunctionProto) (*lua.LFunction, error) {
	if IsSandbox(L) {
		return instantiate(L, proto)
	}
	return L.NewFunctionFromProto(proto), nil
}
