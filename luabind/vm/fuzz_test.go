package vm_test

import (
	"testing"

	"github.com/luagent/luagent/luabind/vm"
	"github.com/luagent/luagent/runtime/errs"
)

// FuzzCompile: any bytes either compile or give a syntax error; the parser
// never takes the host down.
func FuzzCompile(f *testing.F) {
	for _, s := range []string{"return 1", "function f() end", "x = [[", "#!/bin/x\nreturn", "goto a ::a::",
		"local t = {1, 2, [3] = 4, x = 'y'}", "for i = 1, 2 do break end", "return ...", "a.b:c(d)"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		_, err := vm.Compile(src, "fuzz")
		if err != nil && errs.KindOf(err) != errs.Syntax {
			t.Fatalf("error of kind %v: %v", errs.KindOf(err), err)
		}
	})
}
