package vm

import (
	"fmt"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/yuin/gopher-lua/ast"
)

// MaxSyntaxLevels is how deep a chunk may nest: Lua 5.1's LUAI_MAXCCALLS,
// counted where its parser counts ("chunk has too many syntax levels"): a
// block or function body, a table's fields, the operand of a unary or
// right associative operator, an index or a call's arguments each take a
// level. gopher-lua's compiler costs time quadratic in the nesting of
// blocks and recurses on the Go stack for every level, which a deep enough
// chunk overflows (a fatal error, not a panic).
const MaxSyntaxLevels = 200

// MaxTreeDepth bounds what C Lua parses without counting levels but
// gopher-lua builds as nested nodes: elseif chains, chains of left
// associative operators, of calls and of field accesses.
const MaxTreeDepth = 1000

// levelBase is the levels under a chunk's own block when load compiles it
// (the Lua caller and load itself), so the counts match Lua 5.1's.
const levelBase = 2

// checkNesting returns an error of kind limit when chunk nests deeper than
// MaxSyntaxLevels or MaxTreeDepth, naming the line and the limit. It
// stops at the first level past a limit, so its own recursion is bounded.
func checkNesting(chunk []ast.Stmt, name string) error {
	w := nestWalk{}
	w.block(chunk, levelBase, 0, 1)
	switch {
	case w.line == 0:
		return nil
	case w.tree:
		return errs.New(errs.Limit, "", fmt.Sprintf("%s:%d: chunk has too many syntax levels: a chain of over %d elseif, operators, calls or field accesses (the limit is %d); split it into statements",
			name, w.line, MaxTreeDepth, MaxTreeDepth))
	}
	return errs.New(errs.Limit, "", fmt.Sprintf("%s:%d: chunk has too many syntax levels (the limit is %d, as in Lua 5.1); nest fewer blocks, functions, tables or sub-expressions",
		name, w.line, MaxSyntaxLevels))
}

// nestWalk follows a syntax tree with Lua's level (see MaxSyntaxLevels)
// and the tree's depth, and records where the first limit was passed.
type nestWalk struct {
	line int  // > 0 once a limit was passed
	tree bool // the limit passed was MaxTreeDepth
}

func (w *nestWalk) over(level, depth, line int) bool {
	if w.line > 0 {
		return true
	}
	if level > MaxSyntaxLevels || depth > MaxTreeDepth {
		w.line, w.tree = max(line, 1), level <= MaxSyntaxLevels
		return true
	}
	return false
}

// block walks a block whose enclosing level is level: the block is one
// deeper (Lua's chunk()).
func (w *nestWalk) block(ss []ast.Stmt, level, depth, line int) {
	level++
	if w.over(level, depth, line) {
		return
	}
	for _, s := range ss {
		w.stmt(s, level, depth+1)
	}
}

// stmt walks a statement of a block at level: its expressions are parsed
// one deeper (Lua's expr() -> subexpr()), its targets and calls at level.
func (w *nestWalk) stmt(s ast.Stmt, level, depth int) {
	if w.over(level, depth, s.Line()) {
		return
	}
	exprs := func(es []ast.Expr) {
		for _, e := range es {
			w.expr(e, level+1, depth+1)
		}
	}
	body := func(ss []ast.Stmt) { w.block(ss, level, depth+1, s.Line()) }
	switch s := s.(type) {
	case *ast.AssignStmt:
		for _, l := range s.Lhs {
			w.expr(l, level, depth+1)
		}
		exprs(s.Rhs)
	case *ast.LocalAssignStmt:
		if fnStmt(s) { // local function f: its body is one deeper
			body(s.Exprs[0].(*ast.FunctionExpr).Stmts)
			return
		}
		exprs(s.Exprs)
	case *ast.FuncCallStmt:
		w.expr(s.Expr, level, depth+1)
	case *ast.DoBlockStmt:
		body(s.Stmts)
	case *ast.WhileStmt:
		exprs([]ast.Expr{s.Condition})
		body(s.Stmts)
	case *ast.RepeatStmt:
		body(s.Stmts)
		exprs([]ast.Expr{s.Condition})
	case *ast.IfStmt:
		exprs([]ast.Expr{s.Condition})
		body(s.Then)
		if len(s.Else) == 1 {
			if elseif, ok := s.Else[0].(*ast.IfStmt); ok {
				// Lua parses an elseif chain in a loop, at the if's level.
				w.stmt(elseif, level, depth+1)
				return
			}
		}
		body(s.Else)
	case *ast.NumberForStmt:
		exprs([]ast.Expr{s.Init, s.Limit})
		if s.Step != nil {
			exprs([]ast.Expr{s.Step})
		}
		body(s.Stmts)
	case *ast.GenericForStmt:
		exprs(s.Exprs)
		body(s.Stmts)
	case *ast.FuncDefStmt:
		body(s.Func.Stmts)
	case *ast.ReturnStmt:
		exprs(s.Exprs)
	}
}

// expr walks an expression parsed at level.
func (w *nestWalk) expr(e ast.Expr, level, depth int) {
	if e == nil || w.over(level, depth, e.Line()) {
		return
	}
	depth++
	switch e := e.(type) {
	case *ast.LogicalOpExpr:
		w.expr(e.Lhs, level, depth)
		w.expr(e.Rhs, level+1, depth)
	case *ast.RelationalOpExpr:
		w.expr(e.Lhs, level, depth)
		w.expr(e.Rhs, level+1, depth)
	case *ast.ArithmeticOpExpr:
		w.expr(e.Lhs, level, depth)
		w.expr(e.Rhs, level+1, depth)
	case *ast.StringConcatOpExpr:
		w.expr(e.Lhs, level, depth)
		w.expr(e.Rhs, level+1, depth)
	case *ast.UnaryMinusOpExpr:
		w.expr(e.Expr, level+1, depth)
	case *ast.UnaryNotOpExpr:
		w.expr(e.Expr, level+1, depth)
	case *ast.UnaryLenOpExpr:
		w.expr(e.Expr, level+1, depth)
	case *ast.AttrGetExpr:
		w.expr(e.Object, level, depth)
		if _, name := e.Key.(*ast.StringExpr); !name {
			w.expr(e.Key, level+1, depth)
		}
	case *ast.FuncCallExpr:
		w.expr(e.Func, level, depth)
		w.expr(e.Receiver, level, depth)
		if len(e.Args) == 1 {
			if _, ok := e.Args[0].(*ast.TableExpr); ok { // f{...}: fields one deeper
				w.expr(e.Args[0], level, depth)
				return
			}
		}
		for _, a := range e.Args {
			w.expr(a, level+1, depth)
		}
	case *ast.TableExpr:
		for _, f := range e.Fields {
			if _, name := f.Key.(*ast.StringExpr); f.Key != nil && !name {
				w.expr(f.Key, level+1, depth)
			}
			w.expr(f.Value, level+1, depth)
		}
	case *ast.FunctionExpr:
		w.block(e.Stmts, level, depth, e.Line())
	}
}
