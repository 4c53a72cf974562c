package vm_test

import (
	"fmt"

	"github.com/luagent/luagent/luabind/vm"
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
