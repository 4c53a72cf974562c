package luaname_test

import (
	"slices"
	"testing"

	"github.com/luagent/luagent/runtime/luaname"
)

// The list is sorted (IsKeyword searches it) and IsKeyword finds every
// entry; that each is a keyword to gopher-lua's parser is checked where
// Lua is (luabind/vm, TestKeywordsAreGopherLuas): runtime/ has no Lua.
func TestKeywordsSorted(t *testing.T) {
	if !slices.IsSorted(luaname.Keywords) {
		t.Fatal("Keywords is not sorted")
	}
	for _, k := range luaname.Keywords {
		if !luaname.IsKeyword(k) {
			t.Errorf("IsKeyword(%q) is false", k)
		}
	}
	for _, n := range []string{"continue", "self", "tools"} {
		if luaname.IsKeyword(n) {
			t.Errorf("IsKeyword(%q) is true", n)
		}
	}
}
