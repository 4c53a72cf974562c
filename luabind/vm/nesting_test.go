package vm_test

import (
	"context"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/luagent/luagent/luabind/vm"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/stdlib"
)

type compiler struct {
	name    string
	compile func([]byte, string) error
}

var compilers = []compiler{
	{"full", func(src []byte, name string) error { _, err := vm.Compile(src, name); return err }},
	{"sandbox", func(src []byte, name string) error { _, err := vm.CompileSandboxed(src, name); return err }},
}

// nestingCases are chunks nested n deep and the deepest that Lua 5.1.5's
// loadstring compiles (LUAI_MAXCCALLS = 200 syntax levels: a block, a
// function body, a table's fields, an operand of a unary or right
// associative operator, an index or call argument each take one).
var nestingCases = []struct {
	name  string
	gen   func(n int) string
	maxOK int
}{
	{"do blocks", func(n int) string { return strings.Repeat("do ", n) + strings.Repeat("end ", n) }, 197},
	{"while loops", func(n int) string { return strings.Repeat("while x do ", n) + strings.Repeat("end ", n) }, 197},
	{"functions", func(n int) string {
		return "return " + strings.Repeat("function() return ", n) + "1" + strings.Repeat(" end", n)
	}, 98},
	{"tables", func(n int) string { return "return " + strings.Repeat("{", n) + strings.Repeat("}", n) }, 197},
	{"concatenation", func(n int) string { return "return x" + strings.Repeat("..x", n) }, 196},
	{"power", func(n int) string { return "return x" + strings.Repeat("^x", n) }, 196},
	{"not", func(n int) string { return "return " + strings.Repeat("not ", n) + "x" }, 196},
	{"indexes", func(n int) string { return "return " + strings.Repeat("a[", n) + "1" + strings.Repeat("]", n) }, 196},
	{"call arguments", func(n int) string { return "return " + strings.Repeat("f(", n) + "1" + strings.Repeat(")", n) }, 196},
}

func isLevelsLimit(err error) bool {
	return errs.KindOf(err) == errs.Limit && strings.Contains(err.Error(), "too many syntax levels") &&
		strings.Contains(err.Error(), "200")
}

func TestSyntaxLevelsAreLua51s(t *testing.T) {
	for _, c := range compilers {
		for _, tt := range nestingCases {
			t.Run(c.name+"/"+tt.name, func(t *testing.T) {
				// In the sandbox every table constructor and '..' becomes a
				// metered call, which takes registers: nested ~190 deep they
				// run out of gopher-lua's 255 (a syntax error, as before),
				// under the levels limit.
				if err := c.compile([]byte(tt.gen(tt.maxOK)), "chunk"); err != nil && (c.name == "full" || errs.KindOf(err) != errs.Syntax) {
					t.Errorf("%d levels: %v", tt.maxOK, err)
				}
				err := c.compile([]byte(tt.gen(tt.maxOK+1)), "chunk")
				if !isLevelsLimit(err) {
					t.Errorf("%d levels: %v (kind %v), want a limit error naming 200 syntax levels", tt.maxOK+1, err, errs.KindOf(err))
				}
			})
		}
	}
}

// Chains Lua 5.1 compiles iteratively (elseif, left associative operators,
// calls and indexes of a result) nest gopher-lua's syntax tree: they are
// bounded too, at a depth far above what code is written with.
func TestLongChainsAreBounded(t *testing.T) {
	chains := []struct {
		name string
		gen  func(n int) string
	}{
		{"elseif", func(n int) string { return "if x then " + strings.Repeat("elseif x then ", n) + "end" }},
		{"plus", func(n int) string { return "return 1" + strings.Repeat("+1", n) }},
		{"calls", func(n int) string { return "return f" + strings.Repeat("()", n) }},
		{"fields", func(n int) string { return "return a" + strings.Repeat(".b", n) }},
	}
	for _, c := range compilers {
		for _, tt := range chains {
			t.Run(c.name+"/"+tt.name, func(t *testing.T) {
				if err := c.compile([]byte(tt.gen(900)), "chunk"); err != nil {
					t.Errorf("900 long: %v", err)
				}
				err := c.compile([]byte(tt.gen(1100)), "chunk")
				if errs.KindOf(err) != errs.Limit || !strings.Contains(err.Error(), "1000") {
					t.Errorf("1100 long: %v (kind %v), want a limit error naming 1000", err, errs.KindOf(err))
				}
			})
		}
	}
}

// Deep chunks overflowed Go's stack in gopher-lua's compiler (a fatal
// error, not a panic): about a million levels at Go's 1 GB stack, from a
// 2 MB string a sandboxed load() could build. With the stack at 4 MB the
// same happens at 20,000.
func TestDeepChunksDoNotCrash(t *testing.T) {
	defer debug.SetMaxStack(debug.SetMaxStack(4 << 20))
	n := 20000
	for _, c := range compilers {
		for _, src := range []string{
			"return f" + strings.Repeat("()", n),
			"return " + strings.Repeat("{", n) + strings.Repeat("}", n),
			"return " + strings.Repeat("not ", n) + "x",
			"return 1" + strings.Repeat("+1", n),
			"if x then " + strings.Repeat("elseif x then ", n) + "end",
		} {
			if err := c.compile([]byte(src), "deep"); errs.KindOf(err) != errs.Limit {
				t.Errorf("%s: %.40q...: %v", c.name, src, err)
			}
		}
	}
}

// In the sandbox, load() of a deeply nested chunk stops at once with a
// limit error; it used to compile in quadratic time without looking at the
// budget (30,000 do blocks: ~1.3 s, 80,000: ~10 s, whatever the limit).
func TestSandboxLoadOfDeepNestingIsALimit(t *testing.T) {
	for _, src := range []string{
		"return load(('do '):rep(30000) .. ('end '):rep(30000))",
		"return loadstring(('do '):rep(30000) .. ('end '):rep(30000))",
		"local f = load(('do '):rep(30000) .. ('end '):rep(30000)) return 'not reached'",
		// pcall does not swallow the limit.
		"local ok = pcall(load, ('do '):rep(30000) .. ('end '):rep(30000)) return 'not reached'",
		// Nor does a snippet that is itself nested get compiled first.
		strings.Repeat("do ", 30000) + strings.Repeat("end ", 30000),
	} {
		start := time.Now()
		_, err := runSandbox(t, vm.Limits{Time: 10 * time.Second}, src)
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("%.40q: took %v", src, d)
		}
		if !isLevelsLimit(err) {
			t.Errorf("%.40q: %v (kind %v), want the syntax levels limit", src, err, errs.KindOf(err))
		}
	}
}

// Parsing and compiling count against the run's time and memory: a
// compile that outlasts the time limit is a timeout (not a success
// reported late), and the chunk's size is charged to the meter.
func TestSandboxCompileIsBudgeted(t *testing.T) {
	big := strings.Repeat("x = 1 ", 1<<20) // 6 MB: seconds to parse and compile
	cases := []struct {
		name string
		src  string
		lim  vm.Limits
		kind errs.Kind
		want string
	}{
		{"load outlasting the time limit", "return load(('x = 1 '):rep(2^20))", vm.Limits{Time: 100 * time.Millisecond}, errs.Timeout, "time limit of 100ms exceeded"},
		{"a snippet outlasting the time limit", big, vm.Limits{Time: 100 * time.Millisecond}, errs.Timeout, "time limit of 100ms exceeded"},
		{"a snippet over the memory limit", big, vm.Limits{MemoryBytes: 1 << 20}, errs.Limit, "memory limit of 1 MiB reached by compiling"},
		{"load over the memory limit", "return load(('x = 1 '):rep(2^20))", vm.Limits{MemoryBytes: 16 << 20}, errs.Limit, "memory limit of 16 MiB reached by"},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			s := vm.NewSandbox(vm.SandboxOptions{Limits: tt.lim, Embedded: stdlib.FS})
			defer s.Close()
			start := time.Now()
			out, err := s.Run(context.Background(), []byte(tt.src), "snippet")
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("took %v", d)
			}
			if errs.KindOf(err) != tt.kind || err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, %v (kind %v), want %v %q", out, err, errs.KindOf(err), tt.kind, tt.want)
			}
		})
	}
}
