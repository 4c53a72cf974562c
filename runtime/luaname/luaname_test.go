package luaname_test

import (
	"slices"
	"testing"

	"github.com/luagent/luagent/runtime/luaname"
	lua "github.com/yuin/gopher-lua"
)

// Every keyword is one to gopher-lua's parser (local KW = 1 fails) and the
// list is sorted (IsKeyword searches it); a name that is not still parses.
func TestKeywordsAreGopherLuas(t *testing.T) {
	if !slices.IsSorted(luaname.Keywords) {
		t.Fatal("Keywords is not sorted")
	}
	L := lua.NewState()
	defer L.Close()
	for _, k := range luaname.Keywords {
		if L.DoString("local "+k+" = 1") == nil {
			t.Errorf("%q parses as a name", k)
		}
		if !luaname.IsKeyword(k) {
			t.Errorf("IsKeyword(%q) is false", k)
		}
	}
	for _, n := range []string{"continue", "self", "tools"} {
		if L.DoString("local "+n+" = 1") != nil || luaname.IsKeyword(n) {
			t.Errorf("%q", n)
		}
	}
}
