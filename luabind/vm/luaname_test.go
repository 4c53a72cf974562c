package vm_test

import (
	"testing"

	"github.com/luagent/luagent/runtime/luaname"
	lua "github.com/yuin/gopher-lua"
)

// Every word of runtime/luaname's list is a keyword to gopher-lua's parser
// (local KW = 1 fails); a name that is not one still parses.
func TestKeywordsAreGopherLuas(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	for _, k := range luaname.Keywords {
		if L.DoString("local "+k+" = 1") == nil {
			t.Errorf("%q parses as a name", k)
		}
	}
	for _, n := range []string{"continue", "self", "tools"} {
		if L.DoString("local "+n+" = 1") != nil {
			t.Errorf("%q does not parse as a name", n)
		}
	}
}
