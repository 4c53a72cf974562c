package env_test

import (
	"testing"

	"github.com/luagent/luagent/luabind/luatest"
)

func TestLua(t *testing.T) {
	t.Setenv("LUAGENT_TEST_SET", "value")
	t.Setenv("LUAGENT_TEST_EMPTY", "")
	luatest.RunDir(t, "testdata", luatest.Options{})
}
