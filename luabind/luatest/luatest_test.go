package luatest_test

import (
	"testing"

	"github.com/luagent/luagent/luabind/luatest"
)

// The Lua-written stdlib is tested in Lua.
func TestStdlib(t *testing.T) {
	luatest.RunDir(t, "../../stdlib/test", luatest.Options{})
}
