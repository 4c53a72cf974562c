package vm_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/luagent/luagent/luabind/vm"
	"github.com/luagent/luagent/runtime/errs"
)

func ExampleNew() {
	L := vm.New(vm.Options{Profile: vm.Sandbox})
	defer L.Close()
	L.DoString(`print(type(io), tonumber("1e2"), math.huge, string.format("%q", "a\n"))`)
	// Output:
	// nil	100	inf	"a\
	// "
}

func ExampleIncomplete() {
	_, err := vm.Compile([]byte("function f()"), "stdin")
	fmt.Println(vm.Incomplete(err), err)
	// Output: true stdin: syntax error at end of input
}

// A snippet runs in a fresh sandboxed state under limits; reaching one is
// an error of kind limit that says which and where.
func ExampleNewSandbox() {
	var out strings.Builder
	s := vm.NewSandbox(vm.SandboxOptions{Limits: vm.Limits{Time: time.Second, Instructions: 1e6}, Print: &out})
	defer s.Close()
	vals, err := s.Run(context.Background(), []byte(`print("hello") return #("a" .. "b")`), "snippet")
	fmt.Println(out.String(), vals, err)
	_, err = s.Run(context.Background(), []byte("local n = 0\nwhile true do n = n + 1 end"), "snippet")
	fmt.Println(errs.KindOf(err), err)
	// Output:
	// hello
	//  [2] <nil>
	// limit snippet:2: instruction limit of 1000000 reached
}
