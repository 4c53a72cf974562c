package log_test

import (
	"testing"

	"github.com/luagent/luagent/luabind/luatest"
)

func TestLua(t *testing.T) {
	t.Setenv("LUAGENT_LOG", "")
	luatest.RunDir(t, "testdata", luatest.Options{})
}
