package vm_test

import (
	"strings"
	"testing"

	"github.com/luagent/luagent/luabind/vm"
	"github.com/luagent/luagent/runtime/errs"
	lua "github.com/yuin/gopher-lua"
)

// FuzzCompile: any bytes either compile or give a syntax error (or a limit
// error for a chunk nested too deep), in both profiles; the parser and
// the compiler never take the host down.
func FuzzCompile(f *testing.F) {
	for _, s := range []string{"return 1", "function f() end", "x = [[", "#!/bin/x\nreturn", "goto a ::a::",
		"local t = {1, 2, [3] = 4, x = 'y'}", "for i = 1, 2 do break end", "return ...", "a.b:c(d)",
		"return {{{{{{{{{{}}}}}}}}}}", "if a then elseif b then else end", "return a..b..c..d", "return f()()()"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, compile := range []func([]byte, string) (*lua.FunctionProto, error){vm.Compile, vm.CompileSandboxed} {
			_, err := compile(src, "fuzz")
			switch k := errs.KindOf(err); {
			case err == nil, k == errs.Syntax:
			case k == errs.Limit && strings.Contains(err.Error(), "too many syntax levels"):
			default:
				t.Fatalf("error of kind %v: %v", k, err)
			}
		}
	})
}
